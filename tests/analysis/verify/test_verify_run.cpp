// rope verify as one library call (analysis/verify/verify_run.hpp) and its report (report/verify_report.hpp): the rules
// between settings, the rows each setting adds, and the value, CSV and text built from the same run.
#include "rope/analysis/verify/verify_run.hpp"

#include <algorithm>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <limits>
#include <sstream>

#include "rope/core/error.hpp"
#include "rope/report/text.hpp"
#include "rope/report/verify_report.hpp"

namespace rope {
namespace {

using ::testing::HasSubstr;

VerifyRequest small(long trials = 20) {
  VerifyRequest q;
  q.settings.trials = trials;
  return q;
}

struct RuleCase {
  const char* name;
  void (*set)(VerifyRequest&);
  const char* message;  ///< the English, settings named by the command line's namer (the tests install it)
};

class VerifyRunRule : public ::testing::TestWithParam<RuleCase> {};

TEST_P(VerifyRunRule, IsRefusedNamingItsSettings) {
  VerifyRequest q = small();
  GetParam().set(q);
  try {
    (void)run_verify(q);
    FAIL() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr(GetParam().message));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Rules, VerifyRunRule,
    ::testing::Values(
        RuleCase{"XposScaleBaseZero", [](VerifyRequest& q) { q.xpos = true, q.xpos_scale_base = 0; },
                 "--xpos-scale-base must be a finite number > 0 (got 0)"},
        RuleCase{"XposScaleBaseInfinite",
                 [](VerifyRequest& q) { q.xpos_scale_base = std::numeric_limits<double>::infinity(); },
                 "--xpos-scale-base must be a finite number > 0 (got inf)"},
        RuleCase{"XposOnAModel", [](VerifyRequest& q) { q.xpos = true, q.source.preset = "llama-3-8b"; },
                 "--xpos applies to plain RoPE: leave out --model, --config and --scaling"},
        RuleCase{"XposScaled", [](VerifyRequest& q) { q.xpos = true, q.rope.scaling = "linear", q.rope.factor = 2.0; },
                 "--xpos applies to plain RoPE"},
        RuleCase{"XposInFloat32", [](VerifyRequest& q) { q.xpos = true, q.dtype = DType::F32; },
                 "--xpos is checked in float64: leave out --dtype"},
        RuleCase{"StrategyWithoutDtype", [](VerifyRequest& q) { q.strategy = Strategy::CastResult; },
                 "--strategy needs --dtype f32, f16 or bf16"},
        RuleCase{"StrategyInFloat64", [](VerifyRequest& q) { q.strategy = Strategy::CastResult, q.dtype = DType::F64; },
                 "--strategy needs --dtype f32, f16 or bf16"},
        RuleCase{"NoTrials", [](VerifyRequest& q) { q.settings.trials = 0; }, "--trials must be between 1 and"},
        RuleCase{"NegativePosition", [](VerifyRequest& q) { q.settings.max_position = -1; }, "--max-position must be"},
        RuleCase{"OddDimension", [](VerifyRequest& q) { q.dim = 5; }, "dimension d must be even"},
        RuleCase{"Gemma4VisionTower", [](VerifyRequest& q) { q.rope.vision = "gemma4"; },
                 "which this command does not place"}),
    [](const auto& info) { return std::string(info.param.name); });

/// The rows a request adds to the suite's seven and its contrast.
struct RowsCase {
  const char* name;
  void (*set)(VerifyRequest&);
  std::size_t identities;
  bool xpos_contrast, cast_inputs, axes_left_out;
  bool passed = true;
};

class VerifyRunRows : public ::testing::TestWithParam<RowsCase> {};

TEST_P(VerifyRunRows, AddTheRowsOfTheRun) {
  VerifyRequest q = small();
  GetParam().set(q);
  const VerifyRun run = run_verify(q);
  EXPECT_EQ(run.report.identities.size(), GetParam().identities);
  EXPECT_EQ(run.xpos_contrast.has_value(), GetParam().xpos_contrast);
  EXPECT_EQ(run.cast_inputs.has_value(), GetParam().cast_inputs);
  EXPECT_EQ(run.axes_left_out, GetParam().axes_left_out);
  EXPECT_EQ(run.rows().size(), GetParam().identities + 1 + GetParam().xpos_contrast + GetParam().cast_inputs);
  EXPECT_EQ(run.passed(), GetParam().passed);
  EXPECT_FALSE(run.interrupted());
  if (run.cast_inputs) EXPECT_TRUE(run.cast_inputs->row.expected_to_fail);
}

INSTANTIATE_TEST_SUITE_P(
    Rows, VerifyRunRows,
    ::testing::Values(
        RowsCase{"Plain", [](VerifyRequest&) {}, 7, false, false, false},
        RowsCase{"Xpos", [](VerifyRequest& q) { q.xpos = true; }, 10, true, false, false},
        RowsCase{"Bfloat16", [](VerifyRequest& q) { q.dtype = DType::BF16; }, 7, false, true, false},
        RowsCase{"Bfloat16CastInputs",
                 [](VerifyRequest& q) { q.dtype = DType::BF16, q.strategy = Strategy::CastInputs; }, 7, false, false,
                 false, /*passed=*/false},  // θ rounded to bfloat16: row 1 fails (P3)
        RowsCase{"PerAxis", [](VerifyRequest& q) { q.source.preset = "qwen2-vl-7b"; }, 12, false, false, false},
        RowsCase{"PerAxisLeftOut", [](VerifyRequest& q) { q.source.preset = "qwen2-vl-7b", q.dtype = DType::F32; }, 7,
                 false, false, true}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(VerifyRun, ModelFrequenciesAndLayoutAreVerified) {
  VerifyRequest q = small();
  q.source.preset = "llama-3-8b";
  const VerifyRun run = run_verify(q);
  EXPECT_FALSE(run.rope.plain);
  EXPECT_EQ(run.report.settings.layout, Layout::Half);
  EXPECT_EQ(run.report.settings.dim, 128);
  ASSERT_TRUE(run.report.settings.inv_freq.has_value());
  EXPECT_TRUE(run.report.settings.inv_freq->isApprox(run.rope.spec.params.inv_freq));
}

/// A watch that stops the trials at its first update.
class StopAtOnce final : public VerifyWatch {
 public:
  void start(bool stoppable) override { started = stoppable; }
  bool update(long, long) override { return false; }
  void finish() override { ++finished; }
  bool started = false;
  int finished = 0;
};

TEST(VerifyRun, WatchStopsTheTrialsAndTheRowsAfterThem) {
  VerifyRequest q = small(100000);
  q.dim = 4096;  // chunks of 2^24 channel-trials: 4096 trials each
  q.xpos = true;
  StopAtOnce watch;
  q.watch = &watch;
  const VerifyRun run = run_verify(q);
  EXPECT_TRUE(watch.started);
  EXPECT_EQ(watch.finished, 1);
  EXPECT_TRUE(run.interrupted());
  EXPECT_LT(run.report.completed, 100000);
  EXPECT_EQ(run.report.identities.size(), 7u);  // no xPos rows after an interruption
  EXPECT_FALSE(run.xpos_contrast.has_value());
  EXPECT_NE(verify_value(run).find("interrupted_after_trials"), nullptr);
}

TEST(VerifyReport, ValueCsvAndTextShowTheSameRows) {
  VerifyRequest q = small();
  q.dtype = DType::F16;
  const VerifyRun run = run_verify(q);
  const Value v = verify_value(run);
  ASSERT_NE(v.find("identities"), nullptr);
  EXPECT_EQ(v.find("identities")->items().size(), run.report.identities.size());
  ASSERT_NE(v.find("cast_inputs_contrast"), nullptr);
  EXPECT_NE(v.find("cast_inputs_contrast")->find("fails_from_max_position"), nullptr);
  EXPECT_EQ(v.find("settings")->find("dtype")->text(), "f16");
  EXPECT_EQ(v.find("settings")->find("strategy")->text(), "angle-f32");
  EXPECT_TRUE(v.find("passed")->boolean());
  const std::string csv = verify_csv(run);
  EXPECT_EQ(static_cast<std::size_t>(std::count(csv.begin(), csv.end(), '\n')), 1 + run.rows().size());
  std::ostringstream text, json;
  emit(text, run, {Format::Text, Lang::En, std::nullopt});
  EXPECT_THAT(
      text.str(),
      HasSubstr(
          "rope verify: d = 128, base = 10000, interleaved layout, 20 trials, seed 2104, computed in f16 (angle-f32)"));
  EXPECT_THAT(text.str(), HasSubstr("7 of 7 identities passed\n"));
  emit(json, run, {Format::Json, Lang::En, std::nullopt});
  EXPECT_THAT(json.str(), HasSubstr("\"cast_inputs_contrast\""));
}

}  // namespace
}  // namespace rope
