// One engine, both ways (issue 63 item 1): `rope check` and `rope identify` on every dump that
// tests/reference/buggy_kernels.py writes (NumPy alone, never rope's variant code; written at build time into
// ROPE_VARIANT_DUMPS with its manifest.json, tests/CMakeLists.txt). Per dump, check names its variant (or passes) and
// identify says the same thing in its own words: the base check found is the base identify fits, the cache length
// check found is where identify sees the positions stop, the offset check found is identify's, the partner channel
// is identify's pair, and so on. A dump the generator writes and this table lacks fails the table's own test.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/cli_harness.hpp"

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
      {"departure", "",
       [](const Both& b) {  // positions doubled: pair 0 turns by 2 rad a position
         EXPECT_NEAR(b.identify["theta"][0].get<double>(), 2.0, 1e-5) << b.identify_text;
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
      {"gemma3_none", "", passes_at(20000)},  // check: none of the model's layer types; identify: base 20000
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

TEST_P(IdentifyAgrees, WithCheck) {
  const Agreement& row = GetParam();
  const auto it = variant_cases().find(row.name);
  ASSERT_NE(it, variant_cases().end()) << row.name << " is not in " << kVariantDumps << "/manifest.json";
  const Json& c = it->second;
  std::vector<std::string> check_args = {"check", "--json"};
  for (const Json& a : c["args"]) check_args.push_back(a.get<std::string>());
  Both b;
  const auto checked = rope_cli(check_args);
  b.check_code = checked.code;
  ASSERT_EQ(checked.code, c["exit"].get<int>()) << checked.err << checked.out;
  b.check = Json::parse(checked.out);
  const Json& matches = b.check["diagnosis"]["matches"];
  EXPECT_EQ(matches.is_null() ? std::string() : matches.get<std::string>(), row.matches) << b.check["diagnosis"];
  std::vector<std::string> args = identify_arguments(c.contains("identify_args") ? c["identify_args"] : c["args"]);
  args.insert(args.begin(), "identify");
  const auto words = rope_cli(args);
  b.identify_text = words.out + words.err;
  args.insert(args.begin() + 1, "--json");
  const auto identified = rope_cli(args);
  b.identify_code = identified.code;
  EXPECT_EQ(identified.code, words.code);
  if (identified.code <= 1) b.identify = Json::parse(identified.out);
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

}  // namespace
}  // namespace rope
