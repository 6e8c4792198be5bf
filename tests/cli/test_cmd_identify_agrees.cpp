// One engine, both ways (issue 63 item 1): `rope check` and `rope identify` on every dump that
// tests/reference/buggy_kernels.py writes (NumPy alone, never rope's variant code; written at build time into
// ROPE_VARIANT_DUMPS with its manifest.json, tests/CMakeLists.txt). Per dump, check names its variant (or passes) and
// identify says the same thing in its own words: the base check found is the base identify fits, the cache length
// check found is where identify sees the positions stop, the offset check found is identify's, the partner channel
// is identify's pair, and so on. A dump the generator writes and this table lacks fails the table's own test.
//
// These tables run whole commands on every generated dump, so CI runs them in Release (rope_answer_tests, the
// end-to-end tier) beside the corpus (test_corpus.cpp); the sanitizer tree runs the corpus's sample.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/corpus.hpp"
#include "support/cli_harness.hpp"
#include "support/temp_dir_test.hpp"

namespace rope {
namespace {

using test::rope_cli;
using Json = nlohmann::json;

const std::string kVariantDumps = ROPE_VARIANT_DUMPS;

/// The manifest's cases by name (tests/reference/buggy_kernels.py: per case the check arguments, the exit code and
/// the variant expected).
const std::map<std::string, Json>& variant_cases() {
  static const std::map<std::string, Json> cases = [] {
    std::map<std::string, Json> out;
    std::ifstream in(kVariantDumps + "/manifest.json");
    const Json manifest = Json::parse(in);
    for (const Json& c : manifest["cases"]) out[c["name"].get<std::string>()] = c;
    return out;
  }();
  return cases;
}

/// What check and identify said about one dump.
struct Both {
  int check_code = 0;
  Json check;
  int identify_code = 0;
  Json identify;
  std::string identify_text;  // the report in words, for the facts JSON keeps as a note
  double found(const char* key) const { return check["diagnosis"]["found"][key].get<double>(); }
  std::string family() const { return identify["family"]["family"].get<std::string>(); }
  double base() const { return identify["family"]["base"].get<double>(); }
};

/// The dump options of check's arguments, which identify takes too (the dumps, their positions, axes and type).
std::vector<std::string> identify_arguments(const Json& check_args) {
  static const std::set<std::string> kDumpOptions = {"--before",     "--after", "--positions", "--axis-positions",
                                                     "--rope-delta", "--axes",  "--dtype",     "--sequence-starts"};
  std::vector<std::string> out;
  for (std::size_t i = 0; i + 1 < check_args.size(); ++i) {
    const std::string a = check_args[i].get<std::string>();
    if (kDumpOptions.count(a)) out.push_back(a), out.push_back(check_args[i + 1].get<std::string>()), ++i;
  }
  return out;
}

bool near_rel(double got, double want, double rel) { return std::abs(got - want) <= rel * std::abs(want); }

/// One row: the dump, the variant check names (empty: it passes, or names none), and what identify must say.
struct Agreement {
  const char* name;
  const char* matches;
  std::function<void(const Both&)> says;
};

/// identify passes (exit 0) and fits the default ladder of `base`.
std::function<void(const Both&)> passes_at(double base) {
  return [base](const Both& b) {
    EXPECT_EQ(b.identify_code, 0) << b.identify_text;
    EXPECT_PRED3(near_rel, b.base(), base, 2e-2) << b.identify_text;
  };
}

/// identify pairs the channels in `layout`.
std::function<void(const Both&)> layout(const char* want) {
  return [want](const Both& b) { EXPECT_EQ(b.identify["layout"], want) << b.identify_text; };
}

/// identify pairs the channels interleaved with the output de-interleaved (HF's DeepSeek-V3 order), and fits the
/// frequencies (YaRN, as the preset's).
void deinterleaved_output(const Both& b) {
  EXPECT_EQ(b.identify["layout"], "interleaved") << b.identify_text;
  EXPECT_EQ(b.identify["output_order"], "de-interleaved") << b.identify_text;
  EXPECT_EQ(b.identify_code, 0) << b.identify_text;
}

/// identify fits the default family at check's found base.
void fits_found_base(const Both& b) {
  EXPECT_EQ(b.family(), "default") << b.identify_text;
  EXPECT_PRED3(near_rel, b.base(), b.found("base"), 1e-3) << b.identify_text;
}

/// identify's rotated block starts at check's found offset.
void rotary_block_at_found_offset(const Both& b) {
  EXPECT_EQ(b.identify.value("rotary_offset", 0), static_cast<int>(b.found("offset"))) << b.identify_text;
}

/// identify finds the positions jump where segment `segment` (a batch row or packed sequence) starts, at index `start`,
/// and names that segment alone with check's found offset, its positions' shift.
std::function<void(const Both&)> segment_at_found_offset(const char* kind, long segment, long start) {
  return [=](const Both& b) {
    EXPECT_EQ(b.identify_code, 1) << b.identify_text;
    EXPECT_EQ(b.identify["jumps"], Json::array({start})) << b.identify_text;
    const Json& offsets = b.identify["segment_offsets"];
    ASSERT_EQ(offsets.size(), 1u) << b.identify_text;
    EXPECT_EQ(offsets[0][kind], segment) << b.identify_text;
    EXPECT_EQ(offsets[0]["start"], start) << b.identify_text;
    EXPECT_EQ(offsets[0]["offset"].get<double>(), b.found("offset")) << b.identify_text;
  };
}

/// identify's θ_j are the default ladder of base 10000 (d 64) rounded to the number type `round`.
std::function<void(const Both&)> theta_rounded(std::function<float(float)> round) {
  return [round](const Both& b) {
    const Json& theta = b.identify["theta"];
    ASSERT_EQ(theta.size(), 32u);
    for (int j = 1; j < 32; ++j) {
      const float exact = static_cast<float>(1.0 / std::pow(10000.0, 2.0 * j / 64.0));
      const double rounded = round(exact), measured = theta[j].get<double>();
      // The dump's float32 angles leave θ within 1e-6 relative; the rounding moves it by up to 2^-9 (bf16), 2^-12
      // (f16).
      EXPECT_PRED3(near_rel, measured, rounded, 1e-5) << "pair " << j << " exact " << exact;
    }
  };
}

float to_bf16(float x) {  // round to nearest even on the top 16 bits
  std::uint32_t bits;
  std::memcpy(&bits, &x, 4);
  bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000u;
  std::memcpy(&x, &bits, 4);
  return x;
}

float to_f16(float x) {  // float16 keeps 11 significant bits; these θ are normal numbers of float16
  int e;
  const float m = std::frexp(x, &e);
  return std::ldexp(std::nearbyint(std::ldexp(m, 11)), e - 11);
}

/// The median over pairs of identify's θ_j measured against base 10000's ladder (d 64) rounded to float32, less 1: the
/// share of itself every angle falls short by, as check's angles-fast-math measures it (the slopes of the same phases
/// against m·θ_j, less θ_j's float32 rounding; the median leaves the pairs whose float32 θ_j PyTorch's power puts an
/// ulp off).
double theta_shortfall(const Both& b) {
  const Json& theta = b.identify["theta"];
  std::vector<double> r;
  for (std::size_t j = 0; j < theta.size(); ++j) {
    const double ladder = static_cast<float>(std::pow(10000.0, -2.0 * static_cast<double>(j) / 64.0));
    r.push_back(theta[j].get<double>() / ladder - 1);
  }
  std::sort(r.begin(), r.end());
  return r.size() % 2 ? r[r.size() / 2] : (r[r.size() / 2 - 1] + r[r.size() / 2]) / 2;
}

/// identify passes at base 10000 and its θ_j fall short of float32's by `bias` (check's found one where null),
/// within 2·10⁻⁹ (a twentieth of fl32(1/2π)'s shortfall, 4.03·10⁻⁸; both measure the same 272 × 2 phases); where
/// check names angles-fast-math, identify names it too, with a bias within 2·10⁻⁹ of check's; elsewhere it does not.
std::function<void(const Both&)> theta_short_by(std::optional<double> bias) {
  return [bias](const Both& b) {
    EXPECT_EQ(b.identify_code, 0) << b.identify_text;
    EXPECT_PRED3(near_rel, b.base(), 10000.0, 1e-3) << b.identify_text;
    ASSERT_EQ(b.identify["theta"].size(), 32u) << b.identify_text;
    EXPECT_NEAR(theta_shortfall(b), bias ? *bias : b.found("bias"), 2e-9) << b.identify_text;
    if (bias) {
      EXPECT_TRUE(b.identify["angles_fast_math"].is_null()) << b.identify_text;
    } else {
      ASSERT_TRUE(b.identify["angles_fast_math"].is_object()) << b.identify_text;
      EXPECT_NEAR(b.identify["angles_fast_math"]["bias"].get<double>(), b.found("bias"), 2e-9) << b.identify_text;
      EXPECT_THAT(b.identify_text, ::testing::HasSubstr("rope check names angles-fast-math")) << b.identify_text;
    }
  };
}

/// Qwen3-VL's interleaved map (sections [24, 20, 20]): pair j's axis.
int qwen3_vl_axis(int j) {
  if (j % 3 == 1 && j < 60) return 1;
  if (j % 3 == 2 && j < 60) return 2;
  return 0;
}

const std::vector<Agreement>& agreements() {
  static const std::vector<Agreement> rows = {
      {"reversed", "rotation-reversed",
       [](const Both& b) {
         EXPECT_EQ(b.identify["reversed"], true);
         EXPECT_EQ(b.identify_code, 1);
       }},
      {"base_not_read", "base-other", fits_found_base},
      {"base_unknown", "base-other", fits_found_base},
      {"integer_division", "inv-freq-integer-division",
       [](const Both& b) {
         for (const Json& t : b.identify["theta"]) EXPECT_NEAR(t.get<double>(), 1.0, 1e-5);
       }},
      {"partial_pairing", "partial-rotary-pairing",
       [](const Both& b) {
         ASSERT_FALSE(b.identify["pairs"].empty()) << b.identify_text;
         for (const Json& p : b.identify["pairs"]) EXPECT_EQ(p[1].get<int>() - p[0].get<int>(), b.found("partner"));
       }},
      {"pass_through", "pass-through-changed",
       [](const Both& b) {  // the changed pass-through channel beside the 32 rotated ones: no rotation of pairs
         EXPECT_EQ(b.identify["rotary_dim"].get<int>(), 32 + static_cast<int>(b.found("channels"))) << b.identify_text;
         EXPECT_EQ(b.identify["layout"], "none") << b.identify_text;
       }},
      {"rotary_block_overlapping", "rotary-offset-other", rotary_block_at_found_offset},
      {"deepseek2_first", "rotary-offset-other", rotary_block_at_found_offset},
      {"deepseek2_middle", "rotary-offset-other", rotary_block_at_found_offset},
      {"scaling_twice", "scaling-applied-twice",
       [](const Both& b) {  // the scaling's factor squared on the interpolated pairs
         EXPECT_PRED3(near_rel, b.identify["family"]["factor"].get<double>(), b.found("factor") * b.found("factor"),
                      2e-2)
             << b.identify_text;
       }},
      {"llama3_base_not_read", "scaled-base-10000",
       [](const Both& b) {
         EXPECT_EQ(b.family(), "llama3") << b.identify_text;
         EXPECT_PRED3(near_rel, b.base(), b.found("base"), 1e-2) << b.identify_text;
         EXPECT_PRED3(near_rel, b.identify["family"]["factor"].get<double>(), 8.0, 1e-2) << b.identify_text;
       }},
      {"inv_freq_bf16", "inv-freq-bf16", theta_rounded(to_bf16)},
      {"inv_freq_f16", "inv-freq-f16", theta_rounded(to_f16)},
      // A cos/sin table rounded to bf16 (SGLang PR #33117): identify has no such error model and fits the ladder it
      // rounds, base 10000 (its pairs' angles off by at most a bf16 step of cos and sin); in bf16 the dump passes both.
      {"cos_sin_table_bf16", "cos-sin-table-bf16", passes_at(10000)},
      {"cos_sin_table_bf16_in_bf16", "", passes_at(10000)},
      // sin and cos of angles taken in turns through fl32(1/2π) (imp PR #1325) held to float64 angles: check
      // measures every angle short by fl32(1/2π)'s share, and identify's measured frequencies fall short of float32's
      // ladder by that bias; under the float32 angle model the dump passes; HF's plain float32 product held to float64
      // is named angles-float32 (within the float32 model's tolerance), its frequencies short by nothing.
      {"angles_fast_math", "angles-fast-math", theta_short_by(std::nullopt)},
      {"angles_fast_math_float32", "", passes_at(10000)},
      {"angles_float32_product", "angles-float32", theta_short_by(0.0)},
      {"cache_short", "cos-sin-cache-short",
       [](const Both& b) {  // the positions stop advancing at the cache's length, held at its last row
         EXPECT_EQ(b.identify_code, 1) << b.identify_text;
         EXPECT_EQ(b.identify["held_from"], b.found("length")) << b.identify_text;
         EXPECT_EQ(b.identify["held_position"], b.found("length") - 1) << b.identify_text;
         EXPECT_EQ(b.family(), "default") << b.identify_text;
         EXPECT_PRED3(near_rel, b.base(), 10000.0, 1e-3) << b.identify_text;
       }},
      {"cache_wrapped", "cos-sin-cache-short",
       [](const Both& b) {  // positions 256 …: the cache of 512 wraps at index 256, where 512 reads as 0
         EXPECT_EQ(b.identify_code, 1) << b.identify_text;
         EXPECT_EQ(b.identify["jumps"], Json::array({512 - 256, 1024 - 256})) << b.identify_text;
         EXPECT_PRED3(near_rel, b.base(), 10000.0, 1e-3) << b.identify_text;
       }},
      {"f16_overflow", "angles-f16-overflow",
       [](const Both& b) {  // NaN from the found position on: identify refuses the dump, naming where they start
         EXPECT_EQ(b.identify_code, 2);
         EXPECT_THAT(b.identify_text, ::testing::HasSubstr("the element at position " +
                                                           std::to_string(static_cast<long>(b.found("position")))));
       }},
      {"packed_ignored", "position-ids-ignored",
       [](const Both& b) {
         EXPECT_EQ(b.identify_code, 1);
         EXPECT_EQ(b.identify["jumps"], Json::array({b.found("restart")})) << b.identify_text;
       }},
      {"heads_seq_mixed", "heads-seq-mixed",
       [](const Both& b) {  // the positions jump every `groups` indices, where the reshape wraps: not the given ones
         EXPECT_EQ(b.identify_code, 1) << b.identify_text;
         ASSERT_FALSE(b.identify["jumps"].empty()) << b.identify_text;
         EXPECT_EQ(b.identify["jumps"][0], b.found("groups")) << b.identify_text;
       }},
      {"batch_seq_heads_assumed", "", passes_at(10000)},
      {"mrope_t_for_all", "mrope-t-for-all",
       [](const Both& b) {
         for (const Json& a : b.identify["mrope"]["pair_axis"]) EXPECT_EQ(a, 0) << b.identify_text;
       }},
      {"mrope_npy_thw_3_seq", "",
       [](const Both& b) {
         EXPECT_EQ(b.identify_code, 0);
         EXPECT_EQ(b.identify["mrope"]["sections"], Json::array({24, 20, 20})) << b.identify_text;
       }},
      {"mrope_npy_thw_3_1_seq", "",
       [](const Both& b) {
         EXPECT_EQ(b.identify_code, 0);
         EXPECT_EQ(b.identify["mrope"]["sections"], Json::array({24, 20, 20})) << b.identify_text;
       }},
      {"mrope_shifted", "mrope-axes-shifted",
       [](const Both& b) {  // pair j turns by the axis after its own
         const Json& axes = b.identify["mrope"]["pair_axis"];
         ASSERT_EQ(axes.size(), 64u) << b.identify_text;
         for (int j = 0; j < 64; ++j)
           EXPECT_EQ(axes[j], (qwen3_vl_axis(j) + int(b.found("shift"))) % 3) << "pair " << j;
       }},
      {"mrope_batch_rows", "mrope-batch-rows",
       [](const Both& b) {  // the t, h, w given fit no axis map; read the kernel's way, Qwen3-VL's sections
         EXPECT_EQ(b.identify["mrope_batch_rows"].get<double>(), b.found("batch")) << b.identify_text;
         EXPECT_EQ(b.identify["mrope"]["sections"], Json::array({24, 20, 20})) << b.identify_text;
         EXPECT_EQ(b.identify_code, 1) << b.identify_text;
       }},
      {"mrope_text_rows", "mrope-text-rows-as-axes",
       [](const Both& b) {  // rows 1 and 2 are not at their positions: jumps where they start
         EXPECT_EQ(b.identify_code, 1) << b.identify_text;
         EXPECT_EQ(b.identify["jumps"], Json::array({24, 48})) << b.identify_text;
       }},
      {"mrope_no_delta", "mrope-delta-missing",
       [](const Both& b) {  // the decode tokens at their index: every position shifted by −delta from index + delta
         EXPECT_EQ(b.identify["position_offset"], -b.found("delta")) << b.identify_text;
       }},
      {"yarn_truncated", "yarn-truncated", [](const Both& b) { EXPECT_EQ(b.family(), "yarn") << b.identify_text; }},
      {"closest_hint", "", layout("interleaved")},
      {"departure", "positions-scaled",
       [](const Both& b) {  // positions doubled: pair 0 turns by 2 rad a position, check's scale 2
         EXPECT_NEAR(b.identify["theta"][0].get<double>(), 2.0, 1e-5) << b.identify_text;
         EXPECT_EQ(b.found("scale"), 2.0) << b.check.dump();
       }},
      {"positions_forgotten", "positions-offset",
       [](const Both& b) {
         EXPECT_EQ(b.identify_code, 1);
         EXPECT_EQ(b.identify["position_offset"], b.found("offset")) << b.identify_text;
       }},
      {"row_offset", "positions-offset", segment_at_found_offset("row", 1, 64)},
      {"packed_offset", "positions-offset", segment_at_found_offset("sequence", 1, 128)},
      {"head_offset", "positions-offset",
       [](const Both& b) {  // check's head with check's offset, the other heads at their positions
         EXPECT_EQ(b.identify_code, 1) << b.identify_text;
         const Json& heads = b.identify["head_offsets"];
         ASSERT_EQ(heads.size(), 1u) << b.identify_text;
         EXPECT_EQ(heads[0]["head"].get<double>(), b.found("head")) << b.identify_text;
         EXPECT_EQ(heads[0]["offset"].get<double>(), b.found("offset")) << b.identify_text;
       }},
      {"cp_rank_zigzag", "positions-offset",
       [](const Both& b) {  // check's first piece is identify's offset, its second piece identify's jump
         EXPECT_EQ(b.identify_code, 1) << b.identify_text;
         EXPECT_EQ(b.identify["position_offset"], b.found("offset")) << b.identify_text;
         EXPECT_EQ(b.identify["jumps"], Json::array({b.found("from_1")})) << b.identify_text;
       }},
      {"cp_rank_contiguous", "positions-offset",
       [](const Both& b) {
         EXPECT_EQ(b.identify_code, 1);
         EXPECT_EQ(b.identify["position_offset"], b.found("offset")) << b.identify_text;
       }},
      {"correct_f32", "", passes_at(500000)},
      {"correct_bf16", "", passes_at(500000)},
      {"correct_f16", "", passes_at(500000)},
      {"norm_bf16", "norm-scaled",
       [](const Both& b) {
         EXPECT_PRED3(near_rel, b.identify["attention_factor"].get<double>(), b.found("factor"), 2e-3);
       }},
      {"norm_f32", "norm-scaled",
       [](const Both& b) {
         EXPECT_PRED3(near_rel, b.identify["attention_factor"].get<double>(), b.found("factor"), 1e-5);
       }},
      {"gemma3_sliding", "", passes_at(10000)},
      {"gemma3_gguf_sliding", "", passes_at(10000)},
      // check: none of the model's layer types, the default one's base measured 20000; identify: base 20000
      {"gemma3_none", "base-other", passes_at(20000)},
      {"gemma3_gguf_full", "",
       [](const Both& b) {
         EXPECT_EQ(b.family(), "linear") << b.identify_text;
         EXPECT_PRED3(near_rel, b.identify["family"]["factor"].get<double>(), 8.0, 1e-2) << b.identify_text;
       }},
      {"deepseek_llama_cpp", "output-interleaved", layout("interleaved")},
      {"deepseek_llama_cpp_strict", "output-interleaved", layout("interleaved")},
      {"deepseek_llama_cpp_layout", "", layout("interleaved")},
      // HF's DeepSeek-V3 reads a pair at (2i, 2i + 1) and writes it at (i, i + 32): identify reads the output back in
      // place, finds the interleaved pairs and names the order, as check's output-deinterleaved (and the preset) does.
      {"deepseek_hf", "", deinterleaved_output},
      {"deepseek_hf_as_llama_cpp", "output-deinterleaved", deinterleaved_output},
      {"deepseek_hf_as_llama_cpp_strict", "output-deinterleaved", deinterleaved_output},
      {"deepseek2_legacy", "",  // check passes with the spec's block, the last 64 channels; identify finds it there
       [](const Both& b) {
         EXPECT_EQ(b.identify_code, 0);
         EXPECT_EQ(b.identify["rotary_offset"], 128) << b.identify_text;
         EXPECT_EQ(b.identify["layout"], "interleaved") << b.identify_text;
       }},
  };
  return rows;
}

class IdentifyAgrees : public ::testing::TestWithParam<Agreement> {};

/// check (with --json) and identify (in words and with --json) on one manifest case; check's exit code asserted.
Both check_and_identify(const Json& c) {
  std::vector<std::string> check_args = {"check", "--json"};
  for (const Json& a : c["args"]) check_args.push_back(a.get<std::string>());
  Both b;
  const auto checked = rope_cli(check_args);
  b.check_code = checked.code;
  EXPECT_EQ(checked.code, c["exit"].get<int>()) << checked.err << checked.out;
  if (checked.code <= 1) b.check = Json::parse(checked.out);
  std::vector<std::string> args = identify_arguments(c.contains("identify_args") ? c["identify_args"] : c["args"]);
  args.insert(args.begin(), "identify");
  const auto words = rope_cli(args);
  b.identify_text = words.out + words.err;
  args.insert(args.begin() + 1, "--json");
  const auto identified = rope_cli(args);
  b.identify_code = identified.code;
  EXPECT_EQ(identified.code, words.code);
  if (identified.code <= 1) b.identify = Json::parse(identified.out);
  return b;
}

/// The variant check's diagnosis names ("" where it passes or names none).
std::string check_matches(const Both& b) {
  const Json diagnosis = b.check.value("diagnosis", Json::object());
  const Json matches = diagnosis.is_object() ? diagnosis.value("matches", Json()) : Json();
  return matches.is_string() ? matches.get<std::string>() : std::string();
}

TEST_P(IdentifyAgrees, WithCheck) {
  const Agreement& row = GetParam();
  const auto it = variant_cases().find(row.name);
  ASSERT_NE(it, variant_cases().end()) << row.name << " is not in " << kVariantDumps << "/manifest.json";
  const Both b = check_and_identify(it->second);
  ASSERT_EQ(b.check_code, it->second["exit"].get<int>());
  EXPECT_EQ(check_matches(b), row.matches) << b.check.dump();
  row.says(b);
}

INSTANTIATE_TEST_SUITE_P(VariantDumps, IdentifyAgrees, ::testing::ValuesIn(agreements()),
                         [](const ::testing::TestParamInfo<Agreement>& info) {
                           return test::case_name(info.param.name);
                         });

TEST(IdentifyAgreesTable, HoldsEveryDumpOfTheGenerator) {
  std::set<std::string> table;
  for (const Agreement& a : agreements()) table.insert(a.name);
  for (const auto& [name, c] : variant_cases()) EXPECT_TRUE(table.count(name)) << name << ": no row in agreements()";
}

// Issue 67: the dumps of HunyuanVL's XD-RoPE (tests/reference/hunyuan_xdrope.py: HF's and Tencent's maps, text alone,
// decode steps) and of FoPE (tests/reference/fope.py: vLLM's padding with sin 0 and its earlier one with sin 1, 16
// query heads on 4 key-value heads, the keys, one shared matrix), written at build time beside the variant dumps.
// identify names the map check names, with the pair where the maps part, and FoPE's padded pairs in check's words.

const std::string kVariantDumps67 = kVariantDumps + "_67";

/// The cases of one of issue 67's generators ("hunyuan_xdrope", "fope") by name.
const std::map<std::string, Json>& cases_67(const std::string& generator) {
  static std::map<std::string, std::map<std::string, Json>> all;
  auto& cases = all[generator];
  if (cases.empty()) {
    std::ifstream in(kVariantDumps67 + "/" + generator + "/manifest.json");
    const Json manifest = Json::parse(in);
    for (const Json& c : manifest["cases"]) cases[c["name"].get<std::string>()] = c;
  }
  return cases;
}

struct Agreement67 {
  const char* generator;
  const char* name;
  const char* matches;
  std::function<void(const Both&)> says;
};

/// identify names XD-RoPE's map `map` ("hf", "tencent") with xdrope_section [16, 16, 16, 16], parting at pair 0
/// (check's found pair where check names a map), and fits HunYuan's NTK-α base (10000·1000^(128/126)).
std::function<void(const Both&)> xdrope_map(const char* map) {
  return [map](const Both& b) {
    EXPECT_EQ(b.identify_code, 0) << b.identify_text;
    const Json& x = b.identify["xdrope"];
    EXPECT_EQ(x["map"], map) << b.identify_text;
    EXPECT_EQ(x["sections"], Json::array({16, 16, 16, 16})) << b.identify_text;
    EXPECT_EQ(x["parts_at"], 0) << b.identify_text;
    if (!check_matches(b).empty()) EXPECT_EQ(x["parts_at"].get<double>(), b.found("pair")) << b.identify_text;
    EXPECT_EQ(b.identify["layout"], "half") << b.identify_text;
    EXPECT_PRED3(near_rel, b.base(), 10000.0 * std::pow(1000.0, 128.0 / 126.0), 1e-3) << b.identify_text;
    EXPECT_THAT(b.identify_text, ::testing::HasSubstr(std::string(map) == "hf" ? "in HF's map" : "in Tencent's map"));
  };
}

/// Text alone: four equal streams, no map named, and identify says why.
void xdrope_text_alone(const Both& b) {
  EXPECT_EQ(b.identify_code, 0) << b.identify_text;
  EXPECT_TRUE(b.identify["xdrope"]["map"].is_null()) << b.identify_text;
  EXPECT_THAT(b.identify_text, ::testing::HasSubstr("cannot tell the maps apart"));
}

/// A decode step (one position, p): plain RoPE at HunYuan's NTK-α base, no streams.
void decode_plain(const Both& b) {
  EXPECT_EQ(b.identify_code, 0) << b.identify_text;
  EXPECT_FALSE(b.identify.contains("xdrope")) << b.identify_text;
  EXPECT_PRED3(near_rel, b.base(), 10000.0 * std::pow(1000.0, 128.0 / 126.0), 1e-3) << b.identify_text;
}

/// FoPE with `kept` kept pairs, the rest padded with sin 0 (pass through) or sin 1 (check's fope-sin-padded-one, its
/// found count and its sentence), `kv` key-value heads of `group` query heads each.
std::function<void(const Both&)> fope(int kept, bool sin_one, long kv, long group) {
  return [=](const Both& b) {
    EXPECT_EQ(b.identify_code, sin_one ? 1 : 0) << b.identify_text;
    const Json& f = b.identify["fope"];
    EXPECT_EQ(f["kept"], kept) << b.identify_text;
    EXPECT_EQ(f["padded"], 64 - kept) << b.identify_text;
    EXPECT_EQ(f["padding"], sin_one ? "sin 1" : "sin 0") << b.identify_text;
    EXPECT_EQ(f["kv_heads"], kv) << b.identify_text;
    EXPECT_EQ(f["group_heads"], group) << b.identify_text;
    EXPECT_EQ(b.identify["layout"], "half") << b.identify_text;
    EXPECT_TRUE(b.identify["family"].is_null()) << b.identify_text;  // no θ per pair claimed
    if (sin_one) {
      EXPECT_EQ(f["padded"].get<double>(), b.found("padded")) << b.identify_text;
      EXPECT_THAT(b.identify_text, ::testing::HasSubstr(b.check["diagnosis"]["message"].get<std::string>()));
    }
  };
}

const std::vector<Agreement67>& agreements_67() {
  static const std::vector<Agreement67> rows = {
      {"hunyuan_xdrope", "hf", "", xdrope_map("hf")},
      {"hunyuan_xdrope", "hf_as_tencent", "xdrope-hf-map", xdrope_map("hf")},
      {"hunyuan_xdrope", "hf_ratios_default", "", xdrope_map("hf")},
      {"hunyuan_xdrope", "tencent", "", xdrope_map("tencent")},
      {"hunyuan_xdrope", "tencent_as_hf", "xdrope-tencent-map", xdrope_map("tencent")},
      {"hunyuan_xdrope", "tencent_as_default", "xdrope-tencent-map", xdrope_map("tencent")},
      {"hunyuan_xdrope", "text_hf", "", xdrope_text_alone},
      {"hunyuan_xdrope", "text_tencent", "", xdrope_text_alone},
      {"hunyuan_xdrope", "decode_hf", "", decode_plain},
      {"hunyuan_xdrope", "decode_tencent", "", decode_plain},
      {"fope", "vllm_q", "", fope(45, false, 4, 4)},
      {"fope", "vllm_k", "", fope(45, false, 4, 1)},
      {"fope", "vllm_c215d1e_q", "fope-sin-padded-one", fope(45, true, 4, 4)},
      {"fope", "vllm_c215d1e_k", "fope-sin-padded-one", fope(45, true, 4, 1)},
      {"fope", "shared_q", "", fope(32, false, 1, 16)},
      // One key-value head's heads alone (--kv-head): identify sees one key-value head, of 4 query heads or of 1;
      // checked on another head's coefficients, check names the head and identify, without them, reads the same FoPE.
      {"fope", "vllm_kv2_q", "", fope(45, false, 1, 4)},
      {"fope", "vllm_kv2_k", "", fope(45, false, 1, 1)},
      {"fope", "vllm_kv2_k_as_head_0", "fope-kv-head-other", fope(45, false, 1, 1)},
  };
  return rows;
}

class IdentifyAgrees67 : public ::testing::TestWithParam<Agreement67> {};

TEST_P(IdentifyAgrees67, WithCheck) {
  const Agreement67& row = GetParam();
  const auto& cases = cases_67(row.generator);
  const auto it = cases.find(row.name);
  ASSERT_NE(it, cases.end()) << row.name << " is not in " << kVariantDumps67 << "/" << row.generator;
  const Both b = check_and_identify(it->second);
  ASSERT_EQ(b.check_code, it->second["exit"].get<int>());
  EXPECT_EQ(check_matches(b), row.matches) << b.check.dump();
  row.says(b);
}

INSTANTIATE_TEST_SUITE_P(Issue67Dumps, IdentifyAgrees67, ::testing::ValuesIn(agreements_67()),
                         [](const ::testing::TestParamInfo<Agreement67>& info) {
                           return test::case_name(std::string(info.param.generator) + "_" + info.param.name);
                         });

TEST(IdentifyAgreesTable, HoldsEveryDumpOfIssue67sGenerators) {
  for (const char* generator : {"hunyuan_xdrope", "fope"}) {
    std::set<std::string> table;
    for (const Agreement67& a : agreements_67()) {
      if (std::string(a.generator) == generator) table.insert(a.name);
    }
    for (const auto& [name, c] : cases_67(generator))
      EXPECT_TRUE(table.count(name)) << generator << " " << name << ": no row in agreements_67()";
  }
}

/// Golden rows of identify's text on issue 67's dumps, in both languages.
struct Golden67 {
  const char* name;
  const char* generator;
  const char* dump;
  const char* lang;
  std::vector<std::string> rows;
};

class IdentifyText67 : public ::testing::TestWithParam<Golden67> {};

TEST_P(IdentifyText67, RowsInBothLanguages) {
  const Golden67& g = GetParam();
  const Json& c = cases_67(g.generator).at(g.dump);
  std::vector<std::string> args = identify_arguments(c["args"]);
  args.insert(args.begin(), "identify");
  args.insert(args.end(), {"--lang", g.lang});
  const auto r = rope_cli(args);
  EXPECT_EQ(r.code, c["exit"].get<int>()) << r.err;
  for (const std::string& row : g.rows) EXPECT_THAT(r.out, ::testing::HasSubstr(row + "\n"));
}

const std::vector<Golden67>& golden_67() {
  static const std::vector<Golden67> rows = {
      {"xdrope_hf_en",
       "hunyuan_xdrope",
       "hf",
       "en",
       {"  XD-RoPE             xdrope_section [16, 16, 16, 16] over the streams p, w, h, t in HF's map (each section "
        "doubled: the two channels of a pair read two streams); Tencent's map parts from it at pair 0 "
        "(docs/multi-axis.md (A11))"}},
      {"xdrope_hf_zh",
       "hunyuan_xdrope",
       "hf",
       "zh",
       {"  XD-RoPE             xdrope_section [16, 16, 16, 16] 按 HF 的映射分配到位置流 p、w、h、t（每段加倍：一对的两个"
        "通道读取两路位置流）；腾讯的映射从第 0 对起与之分开（docs/multi-axis.md (A11)）"}},
      {"xdrope_tencent_en",
       "hunyuan_xdrope",
       "tencent",
       "en",
       {"  XD-RoPE             xdrope_section [16, 16, 16, 16] over the streams p, w, h, t in Tencent's map (the list "
        "repeated: both channels of a pair on one stream, as mlx-vlm too); HF's map parts from it at pair 0 "
        "(docs/multi-axis.md (A11))"}},
      {"xdrope_tencent_zh",
       "hunyuan_xdrope",
       "tencent",
       "zh",
       {"  XD-RoPE             xdrope_section [16, 16, 16, 16] 按腾讯的映射分配到位置流 p、w、h、t（列表重复：一对的两个"
        "通道读同一路位置流，mlx-vlm 也是如此）；HF 的映射从第 0 对起与之分开（docs/multi-axis.md (A11)）"}},
      {"xdrope_text_en",
       "hunyuan_xdrope",
       "text_hf",
       "en",
       {"  XD-RoPE             four streams p, w, h, t: the map is undetermined (see the note)",
        "note: the four streams p, w, h, t are equal wherever the dump turns (text alone): HF's XD-RoPE map and "
        "Tencent's turn such tokens alike, so the positions cannot tell the maps apart; an image's tokens can"}},
      {"xdrope_text_zh",
       "hunyuan_xdrope",
       "text_hf",
       "zh",
       {"  XD-RoPE             四路位置流 p、w、h、t：映射无法确定（见注释）",
        "注：在转储旋转的地方，四路位置流 p、w、h、t 都相等（只有文本）：HF 的 XD-RoPE 映射和腾讯的映射对这样的词元转得"
        "一样，所以这些位置分不出两种映射；图像的词元可以"}},
      {"fope_sin_one_en",
       "fope",
       "vllm_c215d1e_q",
       "en",
       {"  FoPE                45 kept pairs (0 … 44), each turned and scaled by a cos′ and sin′ that are not those of "
        "one angle (norms ×0.00359 … ×2.465); 19 padded pairs (45 … 63) turned into √2·R(π/4) (sin 1 as well as cos "
        "1: see the note)",
        "  heads               4 key-value heads: the 16 query heads share cos′ and sin′ in GQA groups of 4 consecutive "
        "heads",
        "note: FoPE's coefficients (cos_coef and sin_coef, [key-value heads, K, K], checkpoint weights) are not "
        "measured from a dump: rope check --coefficients FILE compares it with them"}},
      {"fope_sin_one_zh",
       "fope",
       "vllm_c215d1e_q",
       "zh",
       {"  FoPE                保留 45 个维度对（0 … 44），每对都被一组并非同一个角的 cos′ 和 sin′ 旋转并缩放（范数 "
        "×0.00359 … ×2.465）；19 个填充维度对（45 … 63）成为 √2·R(π/4)（cos 取 1 的同时 sin 也取 1：见注释）",
        "  头                  4 个键值头：16 个查询头按 GQA 分组，每组 4 个相邻的头共用 cos′ 和 sin′"}},
      {"fope_keys_en",
       "fope",
       "vllm_k",
       "en",
       {"  FoPE                45 kept pairs (0 … 44), each turned and scaled by a cos′ and sin′ that are not those of "
        "one angle (norms ×0.00359 … ×2.465); 19 padded pairs (45 … 63) pass through unrotated (cos 1, sin 0)",
        "  heads               each of the 4 heads has its own cos′ and sin′: a key-value head each (a key dump, or no "
        "GQA)",
        "note: FoPE keeps the pairs whose θ_i = b^(−2i/128) exceeds 2π / max_position_embeddings (F1): 45 kept pairs "
        "mean 2π·b^(88/128) < max_position_embeddings ≤ 2π·b^(90/128) for the model's base b, or num_inv_freq 45 "
        "(rope inspect --config names the model's K)"}},
      {"fope_shared_zh",
       "fope",
       "shared_q",
       "zh",
       {"  头                  全部 16 个头的 cos′ 和 sin′ 都相同：只有一个键值头，或所有头共用一个系数矩阵（fope_sep_head "
        "为 false）"}},
  };
  return rows;
}

INSTANTIATE_TEST_SUITE_P(Issue67Text, IdentifyText67, ::testing::ValuesIn(golden_67()),
                         [](const ::testing::TestParamInfo<Golden67>& info) { return std::string(info.param.name); });

class IdentifyFigure67 : public test::TempDirTest {};

TEST_F(IdentifyFigure67, FopeDrawsNoThetaAndXdropeDrawsItsFit) {
  // FoPE's pairs turn by no one angle: no θ_j to draw, the exit check's; HF's XD-RoPE map: θ_j from the channels.
  for (const auto& [generator, name] :
       {std::pair<const char*, const char*>{"fope", "vllm_c215d1e_k"}, {"hunyuan_xdrope", "hf"}}) {
    const Json& c = cases_67(generator).at(name);
    std::vector<std::string> args = identify_arguments(c["args"]);
    args.insert(args.begin(), "identify");
    const std::string png = path(std::string(name) + ".png");
    args.insert(args.end(), {"--png", png});
    const auto r = rope_cli(args);
    EXPECT_EQ(r.code, c["exit"].get<int>()) << r.err;
    EXPECT_EQ(std::filesystem::exists(png), std::string(generator) == "hunyuan_xdrope") << r.out << r.err;
  }
}

using test::corpus_rows;
using test::kCorpus;

// Issue 78 item 2: k read with q's head count (ColossalAI PR #6429, qk_pairs.py's k_query_heads). check, given q and
// k, names it in k's diagnosis with both head counts; identify, given k alone, reads k's buffer walked with q's head
// count, the same count, and the default ladder at the positions so read.
TEST(IdentifyAgreesQk, KWithQueryHeadsIsReadWithQsHeadCount) {
  const auto it = corpus_rows().find("qk_pairs/k_query_heads");
  ASSERT_NE(it, corpus_rows().end()) << kCorpus;
  std::vector<std::string> check_args = {"check", "--json"}, args = {"identify"};
  for (const Json& a : it->second["check"]) check_args.push_back(a.get<std::string>());
  for (const Json& a : it->second["identify"]) args.push_back(a.get<std::string>());
  const auto checked = rope_cli(check_args);
  ASSERT_EQ(checked.code, 1) << checked.err;
  const Json k = Json::parse(checked.out)["k"]["diagnosis"];
  ASSERT_EQ(k["matches"], "k-with-query-heads") << k.dump();
  const auto words = rope_cli(args);
  EXPECT_EQ(words.code, 1) << words.err;
  EXPECT_THAT(words.out, ::testing::HasSubstr("k's 2 heads walked with q's head count 8")) << words.out;
  args.insert(args.begin() + 1, "--json");
  const auto identified = rope_cli(args);
  ASSERT_EQ(identified.code, 1) << identified.err;
  const Json r = Json::parse(identified.out);
  EXPECT_EQ(r["query_heads"].get<double>(), k["found"]["q_heads"].get<double>()) << identified.out;
  EXPECT_EQ(r["family"]["family"], "default") << identified.out;
  EXPECT_PRED3(near_rel, r["family"]["base"].get<double>(), 10000.0, 1e-3) << identified.out;
}

// Issue 91: check measures a failing dump and names the difference; identify, on the same dumps, states the same
// difference with the same parameter. Every recipe of tests/reference/diagnosis_2026.py and the diffusers recipes
// (Wan at base 1e6, Flux's text ids counted) as the corpus holds them (check's arguments, identify's dump options).

/// check and identify on corpus row `id` (check with --json; identify in words and with --json).
Both check_and_identify_row(const std::string& id) {
  const Json& row = corpus_rows().at(id);
  Json c = Json::object();
  c["args"] = row["check"];
  c["identify_args"] = row["identify"];
  c["exit"] = row["truth"]["exit"];
  return check_and_identify(c);
}

struct Agreement91 {
  const char* id;
  const char* matches;
  std::function<void(const Both&)> says;
};

/// The default ladder's θ_j of `base` over `r` channels, pair j.
double ladder(double base, int r, int j) { return std::pow(base, -2.0 * j / r); }

const std::vector<Agreement91>& agreements_91() {
  static const std::vector<Agreement91> rows = {
      // Positions doubled: every θ_j twice base 5e7's, which identify fits as a linear factor of 1/scale.
      {"diagnosis_2026/positions_doubled", "positions-scaled",
       [](const Both& b) {
         EXPECT_EQ(b.family(), "linear") << b.identify_text;
         EXPECT_PRED3(near_rel, b.identify["family"]["factor"].get<double>(), 1 / b.found("scale"), 1e-4);
         EXPECT_PRED3(near_rel, b.base(), 5e7, 1e-4) << b.identify_text;
       }},
      // out = x·cos: identify finds no pairing, each changed channel its input times a factor within [−1, 1].
      {"diagnosis_2026/sin_dropped", "sin-dropped",
       [](const Both& b) {
         EXPECT_EQ(b.identify["layout"], "none") << b.identify_text;
         EXPECT_EQ(b.identify["channels_scaled"], true) << b.identify_text;
         EXPECT_LE(b.identify["rotary_dim"].get<double>(), b.found("channels")) << b.identify_text;
         EXPECT_THAT(b.identify_text, ::testing::HasSubstr("x·cos alone, the sin term dropped"));
       }},
      // Channels 64 … 127 keep their input: identify's changed channels are the 64 others, no pairing.
      {"diagnosis_2026/half_unstored", "elements-unrotated",
       [](const Both& b) {
         EXPECT_EQ(b.identify["rotary_dim"].get<double>(), b.found("channel")) << b.identify_text;
         EXPECT_EQ(b.identify["d"].get<double>() - b.identify["rotary_dim"].get<double>(), b.found("channels"));
         EXPECT_EQ(b.identify["layout"], "none") << b.identify_text;
         EXPECT_EQ(b.identify["channels_scaled"], false) << b.identify_text;  // kept, not scaled: no x·cos claimed
       }},
      // vLLM's dynamic NTK base at f·L0 = 4096: 1000·(2·4096/2048 − 1)^(64/62), which identify fits as the ladder's.
      {"diagnosis_2026/dynamic_at_longest", "engine-reading-other",
       [](const Both& b) {
         EXPECT_EQ(b.family(), "default") << b.identify_text;
         EXPECT_PRED3(near_rel, b.base(), 1000 * std::pow(3.0, 64.0 / 62.0), 1e-5) << b.identify_text;
         EXPECT_THAT(b.check["diagnosis"]["message"].get<std::string>(), ::testing::HasSubstr("base 3108.22"));
       }},
      // The attention factor fed to YaRN's formula again: identify's a is the expected a times check's factor.
      {"diagnosis_2026/attention_twice", "norm-scaled",
       [](const Both& b) {
         const double a = 0.1 * std::log(64.0) + 1;
         EXPECT_PRED3(near_rel, b.identify["attention_factor"].get<double>(), a * b.found("factor"), 1e-5);
         EXPECT_PRED3(near_rel, b.identify["attention_factor"].get<double>(), 0.1 * std::log(64.0) * a + 1, 1e-5);
         EXPECT_EQ(b.family(), "yarn") << b.identify_text;
       }},
      // Elements of 31 tokens keep their input: identify reads the rotated block check's elements lie in, no restart
      // or offset of the positions, and the same elements as check, located: the vectors whose pair norms break are
      // left out of its fit (the base exactly 10000 then), and their elements off the rotation so identified are
      // counted, each kept input among them.
      {"diagnosis_2026/racing_stores", "elements-unrotated",
       [](const Both& b) {
         EXPECT_EQ(b.identify_code, 0) << b.identify_text;
         EXPECT_EQ(b.identify["jumps"], Json::array()) << b.identify_text;
         EXPECT_EQ(b.identify["position_offset"], 0) << b.identify_text;
         EXPECT_EQ(b.identify["rotary_offset"].get<double>(), b.found("channel")) << b.identify_text;
         EXPECT_EQ(b.identify["rotary_dim"].get<double>(), b.found("channels")) << b.identify_text;
         EXPECT_EQ(b.identify["layout"], "interleaved") << b.identify_text;
         EXPECT_PRED3(near_rel, b.base(), 10000.0, 1e-6) << b.identify_text;
         const Json& e = b.identify["departed"];
         ASSERT_TRUE(e.is_object()) << b.identify_text;
         EXPECT_EQ(e["kept_input"].get<double>(), b.found("elements")) << b.identify_text;
         EXPECT_EQ(e["elements"].get<double>(), b.found("elements")) << b.identify_text;
         EXPECT_EQ(e["channel"].get<double>(), b.found("channel")) << b.identify_text;
         EXPECT_EQ(e["channels"].get<double>(), b.found("channels")) << b.identify_text;
         EXPECT_EQ(e["indices"].get<double>(), b.found("indices")) << b.identify_text;
         EXPECT_EQ(e["groups"].get<double>(), b.found("groups")) << b.identify_text;
         EXPECT_THAT(b.identify_text, ::testing::HasSubstr("1649 of them their input unchanged")) << b.identify_text;
       }},
      // A rank numbering its tokens globally, given its true positions: identify reads the tokens' order plus check's
      // order_offset, one constant, and says neither the jumps nor the offset that coincide with it; the positions are
      // not the ones given (exit 1, as docs/cli.md's identify says, and as check's).
      {"diagnosis_2026/cp_rank_numbered_globally", "positions-offset",
       [](const Both& b) {
         EXPECT_EQ(b.identify_code, 1) << b.identify_text;
         EXPECT_EQ(b.identify["order_offset"].get<double>(), b.found("order_offset")) << b.identify_text;
         EXPECT_THAT(b.identify_text,
                     ::testing::HasSubstr("24 … 35, the tokens' order plus 24: one constant offset over the tokens'"));
         EXPECT_THAT(b.identify_text, ::testing::Not(::testing::HasSubstr("positions shifted by"))) << b.identify_text;
         EXPECT_THAT(b.identify_text, ::testing::Not(::testing::HasSubstr("jump at index"))) << b.identify_text;
         EXPECT_PRED3(near_rel, b.base(), 10000.0, 1e-4) << b.identify_text;
       }},
      // pie's partial rotary paired (i, i + 128) at the whole head's frequencies: identify's pairs and ladder.
      {"diagnosis_2026/pie_partial_head_pairs", "partial-rotary-pairing",
       [](const Both& b) {
         ASSERT_FALSE(b.identify["pairs"].empty()) << b.identify_text;
         for (const Json& p : b.identify["pairs"]) EXPECT_EQ(p[1].get<int>() - p[0].get<int>(), b.found("partner"));
         EXPECT_EQ(b.identify["rotary_dim"], 64) << b.identify_text;
         // base^(−2j/256), the head's ladder, not the rotary block's: the default family over the head's pairs (its
         // θ_j fitted from positions 700 … 2355 in steps near 35, which identify flags as aliasing every pair).
         EXPECT_EQ(b.family(), "default") << b.identify_text;
         EXPECT_PRED3(near_rel, b.base(), 1e6, 1e-4) << b.identify_text;
       }},
      // Gemma 3's sliding layer turned with the full layers' scaling (linear, factor 8) at its own base 10000: check
      // names the full layer type's scaling on this layer's base; identify fits linear, base 10000, factor 8.
      {"diagnosis_2026/ferrox_gemma3_sliding_scaled", "layer-type-other",
       [](const Both& b) {
         EXPECT_EQ(b.found("scaling_only"), 1.0) << b.check.dump();
         EXPECT_THAT(b.check["diagnosis"]["message"].get<std::string>(),
                     ::testing::HasSubstr("the scaling of layer type full_attention"));
         EXPECT_EQ(b.family(), "linear") << b.identify_text;
         EXPECT_PRED3(near_rel, b.base(), 10000.0, 1e-4) << b.identify_text;
         EXPECT_PRED3(near_rel, b.identify["family"]["factor"].get<double>(), 8.0, 1e-4) << b.identify_text;
       }},
      // CUDA's __sinf with its product rounded toward zero, held to float64 angles: identify names angles-fast-math
      // with the product rounded toward zero, and its bias is check's within 10⁻⁸ (a quarter of fl32(1/2π)'s
      // shortfall 4.03·10⁻⁸: the truncation's share varies by 3·10⁻⁸ over the pairs' binades, and the two medians
      // weigh other pairs and positions; 3.6·10⁻⁹ apart here); its θ_j fall short of base 10000's float32 ladder by as
      // much (their median within 1.5·10⁻⁸ of check's).
      {"diagnosis_2026/fast_math_toward_zero", "angles-fast-math",
       [](const Both& b) {
         EXPECT_PRED3(near_rel, b.base(), 10000.0, 1e-3) << b.identify_text;
         ASSERT_TRUE(b.identify["angles_fast_math"].is_object()) << b.identify_text;
         EXPECT_NEAR(b.identify["angles_fast_math"]["bias"].get<double>(), b.found("bias"), 1e-8) << b.identify_text;
         EXPECT_EQ(b.identify["angles_fast_math"]["toward_zero"], true) << b.identify_text;
         EXPECT_EQ(b.found("toward_zero"), 1.0) << b.check.dump();
         EXPECT_THAT(b.identify_text, ::testing::HasSubstr("and the product rounded toward zero")) << b.identify_text;
         const Json& theta = b.identify["theta"];
         ASSERT_EQ(theta.size(), 64u) << b.identify_text;
         std::vector<double> r;
         for (std::size_t j = 0; j < theta.size(); ++j) {
           const double f32 = static_cast<float>(std::pow(10000.0, -2.0 * static_cast<double>(j) / 128.0));
           r.push_back(theta[j].get<double>() / f32 - 1);
         }
         std::sort(r.begin(), r.end());
         EXPECT_NEAR((r[31] + r[32]) / 2, b.found("bias"), 1.5e-8) << b.identify_text;
       }},
      // A K cache moved by one δ, given each key's new − old as its positions: identify reads every key turned by the
      // same angles, one δ (check's found delta: pair 0's turn, an integer), the default ladder of base 10000 at δ.
      {"diagnosis_2026/shift_map_one_delta", "shift-map-one-delta",
       [](const Both& b) {
         EXPECT_EQ(b.identify_code, 1) << b.identify_text;
         ASSERT_TRUE(b.identify["one_turn"].is_object()) << b.identify_text;
         EXPECT_EQ(b.identify["one_turn"]["delta"].get<double>(), b.found("delta")) << b.identify_text;
         EXPECT_PRED3(near_rel, b.identify["one_turn"]["base"].get<double>(), 10000.0, 1e-6) << b.identify_text;
         EXPECT_EQ(b.family(), "default") << b.identify_text;
         EXPECT_PRED3(near_rel, b.base(), 10000.0, 1e-6) << b.identify_text;
         EXPECT_EQ(b.identify["segment_offsets"], Json::array()) << b.identify_text;
         EXPECT_THAT(b.identify_text,
                     ::testing::HasSubstr(fmt::format("every key turned by one δ = {:g}", b.found("delta"))));
       }},
      // Half the head rotated: identify's rotary dimension 32 at base 10000.
      {"diagnosis_2026/vllm_bailing_mla_rotary_halved", "rotary-dim-halved",
       [](const Both& b) {
         EXPECT_EQ(b.identify["rotary_dim"], 32) << b.identify_text;
         EXPECT_EQ(b.family(), "default") << b.identify_text;
         EXPECT_PRED3(near_rel, b.base(), 10000.0, 1e-4) << b.identify_text;
       }},
      // Gemma 3's full layer unscaled: identify's default ladder at its base 1e6, no factor.
      {"diagnosis_2026/mlxvlm_gemma3_global_unscaled", "scaling-ignored",
       [](const Both& b) {
         EXPECT_EQ(b.family(), "default") << b.identify_text;
         EXPECT_PRED3(near_rel, b.base(), 1e6, 1e-4) << b.identify_text;
       }},
      // q's second halves are k's (q and k crossed): identify, on q alone, finds no pairing that keeps norms and claims
      // no x·cos; that values came from another tensor is check's to name, given k too, and identify says so.
      {"diagnosis_2026/qk_crossed_modulo", "qk-crossed",
       [](const Both& b) {
         EXPECT_EQ(b.identify["layout"], "none") << b.identify_text;
         EXPECT_EQ(b.identify["channels_scaled"], false) << b.identify_text;
         EXPECT_EQ(b.found("heads_modulo"), 1.0) << b.check.dump();
         EXPECT_THAT(b.identify_text, ::testing::HasSubstr("only rope check given both tensors (--k-before, "
                                                           "--k-after) can name that"))
             << b.identify_text;
       }},
      // phi3's table in bf16 at positions 0, 8, …, 4088: identify reads the half pairs of the 96 channels, and the
      // pairs whose phases no frequency fits (bf16's rounding of m·θ beyond π), which check's angles-bf16 names; it
      // names no family's ladder. Those pairs are the fast ones, from pair 0.
      {"diagnosis_2026/candle_phi3_table_bf16", "angles-bf16",
       [](const Both& b) {
         EXPECT_EQ(b.identify["layout"], "half") << b.identify_text;
         EXPECT_EQ(b.identify["rotary_dim"], 96) << b.identify_text;
         EXPECT_EQ(b.identify_code, 0) << b.identify_text;
         EXPECT_EQ(b.family(), "per-pair") << b.identify_text;
         EXPECT_THAT(b.identify_text, ::testing::HasSubstr("fit no frequency (angle RMS above 0.5 rad)"));
         EXPECT_THAT(b.identify_text, ::testing::HasSubstr("angles computed in bf16 err by 2⁻⁹ of m·θ"));
         EXPECT_GT(b.identify["angle_residual"][0].get<double>(), 0.5) << b.identify_text;
       }},
      // MiniMax-M2 as transformers #48241 rotates it: identify reads the whole head turned at base 5e6, where the
      // checkpoint's config rotates 64 channels (check's partial-rotary-whole-head).
      {"diagnosis_2026/transformers_minimax_m2_rotary_dim_dropped", "partial-rotary-whole-head",
       [](const Both& b) {
         EXPECT_EQ(b.identify["rotary_dim"], 128) << b.identify_text;
         EXPECT_EQ(b.family(), "default") << b.identify_text;
         EXPECT_PRED3(near_rel, b.base(), 5e6, 1e-4) << b.identify_text;
       }},
      // Wan at base 1e6: identify's grid of Wan's widths at check's base, and the presets whose base differs.
      {"diffusers/mistake_wan_base_1e6_f32", "base-other",
       [](const Both& b) {
         EXPECT_EQ(b.identify["grid"]["widths"], Json::array({44, 42, 42})) << b.identify_text;
         EXPECT_PRED3(near_rel, b.identify["grid"]["base"].get<double>(), b.found("base"), 1e-5) << b.identify_text;
         EXPECT_THAT(b.identify_text, ::testing::HasSubstr("whose base is 10000: the base differs"));
       }},
      {"diffusers/mistake_wan_base_1e6_bf16", "base-other",
       [](const Both& b) {
         EXPECT_EQ(b.identify["grid"]["widths"], Json::array({44, 42, 42})) << b.identify_text;
         EXPECT_PRED3(near_rel, b.identify["grid"]["base"].get<double>(), b.found("base"), 1e-4) << b.identify_text;
       }},
      // Flux's text ids counted 0, 1, 2 on t: identify counts the same tokens on the same axis, then reads Flux's grid.
      {"diffusers/mistake_flux_text_counted_f32", "text-ids-counted",
       [](const Both& b) {
         EXPECT_EQ(b.identify_code, 1) << b.identify_text;
         EXPECT_EQ(b.identify["text_ids_counted"]["axis"].get<double>(), b.found("axis")) << b.identify_text;
         EXPECT_EQ(b.identify["text_ids_counted"]["tokens"].get<double>(), b.found("tokens")) << b.identify_text;
         EXPECT_EQ(b.identify["grid"]["widths"], Json::array({16, 56, 56})) << b.identify_text;
         EXPECT_THAT(b.identify_text, ::testing::HasSubstr("the first 3 tokens (text) at their order 0 … 2 on axis t"));
       }},
      {"diffusers/mistake_flux_text_counted_bf16", "text-ids-counted",
       [](const Both& b) {
         EXPECT_EQ(b.identify_code, 1) << b.identify_text;
         EXPECT_EQ(b.identify["text_ids_counted"]["axis"].get<double>(), b.found("axis")) << b.identify_text;
         EXPECT_EQ(b.identify["text_ids_counted"]["tokens"].get<double>(), b.found("tokens")) << b.identify_text;
         EXPECT_EQ(b.identify["grid"]["widths"], Json::array({16, 56, 56})) << b.identify_text;
       }},
  };
  return rows;
}

class IdentifyAgrees91 : public ::testing::TestWithParam<Agreement91> {};

TEST_P(IdentifyAgrees91, WithCheck) {
  const Agreement91& row = GetParam();
  ASSERT_TRUE(corpus_rows().count(row.id)) << row.id << " is not in " << kCorpus;
  const Both b = check_and_identify_row(row.id);
  ASSERT_EQ(b.check_code, 1);
  EXPECT_EQ(check_matches(b), row.matches) << b.check.dump();
  // check's named difference with its parameters in `found` and each changed one in `difference` (expected → found);
  // not for bf16's angles (a precision, no parameter) nor for a rank's tokens' order plus a constant (the positions
  // given are no order plus any constant: no one expected value).
  const std::string named = check_matches(b);
  if (named != "angles-bf16" && named != "positions-offset") {
    EXPECT_FALSE(b.check["diagnosis"]["found"].empty()) << b.check.dump();
    EXPECT_FALSE(b.check["diagnosis"]["difference"].empty()) << b.check.dump();
  }
  row.says(b);
}

TEST(IdentifyAgreesTable, HoldsEveryRecipeOfDiagnosis2026) {
  std::set<std::string> table;
  for (const Agreement91& a : agreements_91()) table.insert(a.id);
  for (const auto& [id, row] : corpus_rows()) {
    if (id.rfind("diagnosis_2026/", 0) == 0) EXPECT_TRUE(table.count(id)) << id << ": no row in agreements_91()";
  }
}

INSTANTIATE_TEST_SUITE_P(Issue91Recipes, IdentifyAgrees91, ::testing::ValuesIn(agreements_91()),
                         [](const ::testing::TestParamInfo<Agreement91>& info) {
                           return test::case_name(info.param.id);
                         });

}  // namespace
}  // namespace rope
