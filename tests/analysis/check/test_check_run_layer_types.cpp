// rope check against a model of many layer types, none given (issue 62 item 1): the model is resolved once per run
// and its config's layers scanned once per parse, whatever the number of types; each distinct RoPE of the types is
// tried once (names that share one share a try), at most kMaxLayerTypeTries of them, the others named as not tried;
// the names in a message are bounded (item 7). The dumps are data/dumps/q.npy and q_rope.npy (NumPy, RoPE of base
// 10000 in the half layout at positions 0 … 127, tests/reference/make_dumps.py).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "rope/analysis/check/check_run.hpp"
#include "rope/models/hf/layer_scans.hpp"
#include "rope/models/resolve_count.hpp"
#include "rope/report/check_report.hpp"
#include "rope/report/json.hpp"
#include "support/shared.hpp"
#include "support/temp_dir_test.hpp"

namespace rope {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class CheckLayerTypes : public test::TempDirTest {
 protected:
  /// A llama config of `types` layer types named full_attention (the default one), t01, t02, … (one layer each), each
  /// with its own rope_parameters of base `base_of(k)`: a distinct RoPE per type unless two bases are the same.
  template <class Base>
  std::string config(int types, Base base_of) {
    nlohmann::json c = {{"model_type", "llama"},
                        {"hidden_size", 64},
                        {"num_attention_heads", 1},
                        {"head_dim", 64},
                        {"num_hidden_layers", types}};
    nlohmann::json params = nlohmann::json::object();
    nlohmann::json names = nlohmann::json::array();
    for (int k = 0; k < types; ++k) {
      // HF keys the default type full_attention; two digits keep the types in this order (the keys are read sorted).
      const std::string n = k == 0 ? "full_attention" : fmt::format("t{:02}", k);
      names.push_back(n);
      params[n] = {{"rope_type", "default"}, {"rope_theta", base_of(k)}};
    }
    c["layer_types"] = names;
    c["rope_parameters"] = params;
    const std::string p = path("config.json");
    std::ofstream(p) << c.dump();
    return p;
  }
  /// A cohere2 config of `layers` layers, each its own name (cohere2 keeps each name as a type: one RoPE for all).
  std::string cohere2(int layers, const std::string& name_suffix = "") {
    nlohmann::json c = {{"model_type", "cohere2"}, {"hidden_size", 64},           {"num_attention_heads", 1},
                        {"head_dim", 64},          {"num_hidden_layers", layers}, {"rope_theta", 20000.0}};
    nlohmann::json names = nlohmann::json::array();
    for (int k = 0; k < layers; ++k) names.push_back("sliding_attention_" + std::to_string(k) + name_suffix);
    c["layer_types"] = names;
    const std::string p = path("cohere2.json");
    std::ofstream(p) << c.dump();
    return p;
  }
  static CheckRun run(const std::string& config, const std::string& after) {
    CheckRequest q;
    q.dumps.before = test::kDumps + "q.npy";
    q.dumps.after = test::kDumps + after;
    q.dumps.positions = "0:128";
    q.settings.source.file = config;
    return run_check(q);
  }
};

TEST_F(CheckLayerTypes, OneResolutionAndOneLayerScanPerRun) {
  const std::string c = cohere2(4096);
  const long resolutions = model_resolutions(), scans = detail::layer_scans();
  const CheckRun r = run(c, "q.npy");  // nothing turned: fails as every type
  EXPECT_FALSE(r.passed());
  EXPECT_EQ(model_resolutions() - resolutions, 1);
  EXPECT_EQ(detail::layer_scans() - scans, 1);  // one pass over the 4 096 names, not one per name
  EXPECT_EQ(r.layer_types.size(), 4096u);
  EXPECT_EQ(r.layer_type_tries, 0u);  // every name shares the default type's RoPE, checked already
  EXPECT_TRUE(r.layer_types_not_tried.empty());
}

TEST_F(CheckLayerTypes, PassesAsTheTypeOfItsBaseResolvedOnce) {
  // t05 has base 10000, q_rope.npy's; the others 20000, 30000, …
  const std::string c = config(20, [](int k) { return k == 5 ? 10000.0 : 20000.0 + 10000.0 * k; });
  const long resolutions = model_resolutions();
  const CheckRun r = run(c, "q_rope.npy");
  EXPECT_TRUE(r.passed());
  EXPECT_EQ(model_resolutions() - resolutions, 1);
  EXPECT_EQ(r.layer_type, "t05");
  EXPECT_EQ(r.layer_type_tries, 5u);  // t01 … t05 (full_attention, the default type, was the first check)
  EXPECT_THAT(r.report.notes.front().en, HasSubstr("PASS as a t05 layer"));
}

TEST_F(CheckLayerTypes, NamesSharingARopeShareATry) {
  // Three bases for 40 names: two tries beside the default type's.
  const std::string c = config(40, [](int k) { return 20000.0 + 10000.0 * (k % 3); });
  const CheckRun r = run(c, "q.npy");
  EXPECT_FALSE(r.passed());
  EXPECT_EQ(r.layer_type_tries, 2u);
  EXPECT_TRUE(r.layer_types_not_tried.empty());
}

TEST_F(CheckLayerTypes, AtMostSixteenDistinctRopesTriedTheOthersNamed) {
  const std::string c = config(20, [](int k) { return 20000.0 + 10000.0 * k; });
  const CheckRun r = run(c, "q.npy");
  EXPECT_FALSE(r.passed());
  EXPECT_EQ(r.layer_type_tries, kMaxLayerTypeTries);
  EXPECT_EQ(r.layer_types_not_tried, (std::vector<std::string>{"t17", "t18", "t19"}));
  const nlohmann::json j = nlohmann::json::parse(json_text(check_value(r)));
  EXPECT_EQ(j["layer_types_not_tried"], nlohmann::json({"t17", "t18", "t19"}));
  bool named = false;
  for (const Message& n : r.report.notes) named = named || n.en.find("layer types not tried (t17, t18, t19)") == 0;
  EXPECT_TRUE(named);
}

TEST_F(CheckLayerTypes, MessagesListAtMostSixteenNamesOfFortyEightBytes) {
  // 64 names of 60 kB: the failure's message listed them all (3.8 MB); now 16 names cut to 48 bytes, "and 48 more".
  const std::string c = cohere2(64, std::string(60000, 'x'));
  const CheckRun r = run(c, "q.npy");
  EXPECT_FALSE(r.passed());
  const std::string& m = r.report.diagnosis.message.en;
  EXPECT_THAT(m, HasSubstr("and 48 more"));
  EXPECT_LT(m.size(), 2000u);
  for (const Message& n : r.report.notes) EXPECT_LT(n.en.size(), 2000u);
}

}  // namespace
}  // namespace rope
