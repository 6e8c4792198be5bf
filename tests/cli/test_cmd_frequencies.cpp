// rope frequencies: the table, CSV and JSON, scaled frequencies, @FILE factor lists, every preset against NumPy,
// in-process (moved from test_cli.cpp).
#include "rope/cli/cli.hpp"

#include <cmath>
#include <filesystem>
#include <map>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/cli_harness.hpp"
#include "support/reference_data.hpp"
#include "support/scoped_env.hpp"
#include "rope/core/frequencies.hpp"

namespace rope {
namespace {

using test::expect_one_line_error;
using test::expect_plotted_data_equals_csv;
using test::png_size;
using test::Result;
using test::rope_cli;

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

class CmdFrequencies : public test::TempDirTest {};

TEST_F(CmdFrequencies, InvalidInputWritesNoFile) {
  const std::string target = path("f.csv");
  EXPECT_EQ(rope_cli({"frequencies", "--dim", "7", "--csv", target}).code, 2);
  EXPECT_FALSE(fs::exists(target));
}

// Issue 77 (6): --engine vllm on plain RoPE was refused in LongRoPE's words ("give --max-model-len"), sglang ignored:
// both are said to change nothing, in the plain table too.
TEST_F(CmdFrequencies, AnEngineOnPlainRopeIsSaidToChangeNothing) {
  for (const std::string engine : {"vllm", "sglang"}) {
    const Result r = rope_cli({"frequencies", "--dim", "8", "--engine", engine});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, ::testing::HasSubstr("warning: --engine " + engine +
                                            " chooses LongRoPE's list, and this model's rope_type is default: the "
                                            "engine changes nothing"));
  }
}

TEST_F(CmdFrequencies, FrequenciesCsvAndJson) {
  const Result csv = rope_cli({"freqs", "--dim", "8", "--csv", "-"});
  ASSERT_EQ(csv.code, 0);
  EXPECT_EQ(csv.out,
            "pair,exponent,theta,wavelength\n"
            "0,0,1,6.283185307179586\n"
            "1,-0.25,0.1,62.83185307179586\n"
            "2,-0.5,0.01,628.3185307179587\n"
            "3,-0.75,0.001,6283.185307179586\n");  // tests/reference/frequencies_d8_base10000.csv
  const Result json = rope_cli({"frequencies", "--dim", "128", "--json"});
  ASSERT_EQ(json.code, 0);
  const auto j = nlohmann::json::parse(json.out);
  ASSERT_EQ(j["inv_freq"].size(), 64u);
  EXPECT_EQ(j["inv_freq"][0].get<double>(), 1.0);
  EXPECT_EQ(j["inv_freq"][1].get<double>(), frequencies(128, 1e4)[1]);  // round-trips exactly
  EXPECT_EQ(j["attention_factor"].get<double>(), 1.0);
}

/// The one digits policy (report/digits.hpp kTableDigits): 6 significant digits in the text table, N with
/// --digits N, every digit (the shortest form of the double) with --digits 0; the CSV and JSON above keep them.
struct DigitsCase {
  std::vector<std::string> digits;  ///< the --digits option, or none
  std::vector<std::string> shown;   ///< θ_1, θ_63 and 2·θ_1 of d = 128 as the table prints them
};

class FrequenciesDigits : public ::testing::TestWithParam<DigitsCase> {};

TEST_P(FrequenciesDigits, TheTableShowsTheDigitsAsked) {
  std::vector<std::string> args{"frequencies", "--dim", "128", "--position", "2"};
  args.insert(args.end(), GetParam().digits.begin(), GetParam().digits.end());
  const Result r = rope_cli(args);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("-1/64"));
  for (const std::string& s : GetParam().shown) EXPECT_THAT(r.out, HasSubstr(s));
  if (GetParam().digits.empty()) EXPECT_THAT(r.out, Not(HasSubstr("0.86596432")));
}

INSTANTIATE_TEST_SUITE_P(
    Policy, FrequenciesDigits,
    ::testing::Values(DigitsCase{{}, {" 0.865964         7.25571         1.73193\n", " 0.000115478         54410.1 "}},
                      DigitsCase{{"--digits", "3"}, {" 0.866          7.26          1.73\n", " 0.000115 "}},
                      DigitsCase{{"--digits", "0"},
                                 {" 0.8659643233600653        7.2557091991964855        1.7319286467201307\n",
                                  " 0.00011547819846894582 "}}));

TEST_F(CmdFrequencies, FrequenciesJsonGivesHuggingFaceInvFreqAndAttentionFactor) {
  // HF tests/utils/test_modeling_rope_utils.py, LlamaConfig defaults (d = 128, base 1e4), llama3
  // f = 10, L0 = 2048, lf = 1, hf = 4: inv[31] = 0.0107302483, inv[40] = 3.453924383e-4,
  // inv[41..] = default/10, attention 1 (float64 values from the formula, docs/scaling.md §4).
  const Result r =
      rope_cli({"frequencies", "--dim", "128", "--scaling", "llama3", "--factor", "10", "--original-max-position",
                "2048", "--low-freq-factor", "1", "--high-freq-factor", "4", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["inv_freq"].size(), 64u);
  EXPECT_NEAR(j["inv_freq"][31].get<double>(), 0.0107302483, 1e-9 * 0.0107302483);
  EXPECT_NEAR(j["inv_freq"][40].get<double>(), 3.453924383e-4, 1e-9 * 3.453924383e-4);
  EXPECT_DOUBLE_EQ(j["inv_freq"][50].get<double>(), frequencies(128, 1e4)[50] / 10);
  EXPECT_EQ(j["attention_factor"].get<double>(), 1.0);
  // yarn, same config, β 32/1: attention factor 0.1·ln 10 + 1 = 1.2302585093 (HF
  // tests/utils/test_modeling_rope_utils.py).
  const Result y =
      rope_cli({"freqs", "--scaling", "yarn", "--factor", "10", "--original-max-position", "2048", "--json"});
  ASSERT_EQ(y.code, 0) << y.err;
  EXPECT_NEAR(nlohmann::json::parse(y.out)["attention_factor"].get<double>(), 1.2302585093, 1e-10);
}

TEST_F(CmdFrequencies, ScaledFrequencyTableShowsBandsAndTheLogitMultiplier) {
  // Llama 3.1 (HF _compute_llama3_parameters; docs/scaling.md §4): 29 kept / 6 blended / 29 divided.
  const Result r = rope_cli({"frequencies", "--model", "llama-3.1-8b"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("bands: 29 kept"));
  EXPECT_THAT(r.out, HasSubstr("29 interpolated"));
  EXPECT_THAT(r.out, HasSubstr("6 ramped"));
  EXPECT_THAT(r.out, HasSubstr("logits × 1"));
  // gpt-oss: yarn f = 32, attention get_mscale(32) = 1.34657 (docs/scaling.md (S10), §3), logits × 1.81326.
  const Result g = rope_cli({"frequencies", "--model", "gpt-oss-20b", "--json"});
  ASSERT_EQ(g.code, 0) << g.err;
  const auto j = nlohmann::json::parse(g.out);
  EXPECT_NEAR(j["attention_factor"].get<double>(), 1.34657, 5e-6);
  EXPECT_NEAR(j["logit_multiplier"].get<double>(), 1.81326, 5e-6);
}

TEST_F(CmdFrequencies, ShortAndLongFactorListsComeFromAFile) {
  // longrope with d = 4 (2 pairs): the @file form reads numbers separated by commas or white space.
  std::ofstream(path("short.txt")) << "1.0\n2.0\n";
  const Result r = rope_cli({"frequencies", "--dim", "4", "--scaling", "longrope", "--original-max-position", "2048",
                             "--max-position-embeddings", "8192", "--short-factor", "@" + path("short.txt"),
                             "--long-factor", "3,4", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_DOUBLE_EQ(j["inv_freq"][1].get<double>(), 0.01 / 2.0);  // θ_1 = 10000^(-1/2) over short_factor[1]
  expect_one_line_error(rope_cli({"frequencies", "--dim", "4", "--scaling", "longrope", "--original-max-position",
                                  "2048", "--short-factor", "@" + path("none.txt"), "--long-factor", "3,4"}),
                        3, "none.txt");
}

TEST_F(CmdFrequencies, EveryPresetMatchesTheIndependentNumpyReference) {
  // tests/reference/presets.py: HF's init functions written again in NumPy from the formulas of
  // docs/scaling.md (S1)–(S14), applied to data/models/*.json. Both sides float64: 1e-12 relative.
  const auto ref = test::read_reference("presets.csv");
  ASSERT_EQ(ref.header, (std::vector<std::string>{"preset", "pair", "inv_freq", "attention_factor"}));
  const auto rows = test::group_rows(ref, 1);
  ASSERT_GE(rows.size(), 13u);
  for (const auto& [name, preset_rows] : rows) {
    const Result r = rope_cli({"frequencies", "--model", name, "--json"});
    ASSERT_EQ(r.code, 0) << name << ": " << r.err;
    const auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["inv_freq"].size(), preset_rows.size()) << name;
    for (const auto* row : preset_rows) {
      const std::size_t pair = std::stoul((*row)[1]);
      const double expected = std::stod((*row)[2]);
      EXPECT_NEAR(j["inv_freq"][pair].get<double>(), expected, 1e-12 * expected) << name << " pair " << pair;
    }
    const double attention = std::stod((*preset_rows.front())[3]);
    EXPECT_NEAR(j["attention_factor"].get<double>(), attention, 1e-12 * attention) << name;
  }
}

TEST_F(CmdFrequencies, SectionsAddAnAxisColumn) {
  const Result csv = rope_cli({"frequencies", "--model", "qwen3-vl-8b", "--csv", "-"});
  ASSERT_EQ(csv.code, 0) << csv.err;
  EXPECT_THAT(csv.out, StartsWith("pair,theta,wavelength,original_theta,original_wavelength,ratio,band,axis\n0,1,"));
  EXPECT_THAT(csv.out, HasSubstr("\n1,"));
  EXPECT_THAT(csv.out, HasSubstr(",-,h\n2,"));  // pair 1 turns with the height (A3)
  EXPECT_THAT(csv.out, HasSubstr(",-,t\n"));
  const Result table = rope_cli({"frequencies", "--model", "qwen2-vl-7b", "--digits", "0"});
  EXPECT_THAT(table.out, HasSubstr("  h (height)        24  16 … 39                 198.692 … 28472.8\n"));
  // No scaling: one θ and one λ column (the CSV above keeps original, scaled and ratio).
  EXPECT_THAT(table.out, HasSubstr("    i                       θ_i                       λ_i  axis\n"));
  EXPECT_THAT(table.out,
              HasSubstr("   16       0.03162277660168379        198.69176531592203     h\n"));  // 1e6^(−32/128)
  EXPECT_THAT(table.out, Not(HasSubstr("scaled/original")));
}

TEST_F(CmdFrequencies, AxisAndFloat32ColumnsTogether) {
  // An M-RoPE model with --float32: the axis column, then HF's float32 θ_i, on every row. Each float32 θ_i
  // is the float64 θ_i to float32's precision (two roundings, pow and division: 2·2^-24 relative).
  const Result csv = rope_cli({"frequencies", "--model", "qwen3-vl-8b", "--float32", "--csv", "-"});
  ASSERT_EQ(csv.code, 0) << csv.err;
  const auto rows = test::split(csv.out, '\n');
  ASSERT_EQ(rows.size(), 65u);
  EXPECT_EQ(rows[0], "pair,theta,wavelength,original_theta,original_wavelength,ratio,band,axis,theta_float32");
  EXPECT_EQ(test::split(rows[2], ',').at(7), "h");  // (A3): interleaved, pair 1 turns with the height
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto cells = test::split(rows[i], ',');
    ASSERT_EQ(cells.size(), 9u) << rows[i];
    const double theta = std::stod(cells[1]);
    EXPECT_NEAR(std::stod(cells[8]), theta, 2 * std::ldexp(theta, -24)) << i;
  }
  const Result table = rope_cli({"frequencies", "--model", "qwen3-vl-8b", "--float32", "--digits", "0"});
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr("λ_i  axis               θ_i float32\n"));
  // NumPy: np.float32(1) / np.float32(5e6 ** (2/128)) = 0.785830020904541 (HF's (F1) for pair 1).
  EXPECT_THAT(table.out, HasSubstr("7.995603964898812     h         0.785830020904541\n"));
}

TEST_F(CmdFrequencies, TheLargestDimensionNeedsNoHeatmapLimit) {
  // d = kMaxDim = 65536 without a figure: 32768 rows, θ_last = 10000^(−65534/65536) (M1). The heatmap's
  // cell limit ((max-position + 1)·d/2) applies only when a figure is drawn.
  const Result r = rope_cli({"frequencies", "--dim", "65536", "--csv", "-"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto rows = test::split(r.out, '\n');
  ASSERT_EQ(rows.size(), 32769u);
  const double last = std::stod(test::split(rows.back(), ',').at(2));  // pair,exponent,theta,wavelength
  const double want = std::pow(10000.0, -65534.0 / 65536.0);
  EXPECT_NEAR(last, want, 4e-16 * want);
  EXPECT_EQ(rope_cli({"frequencies", "--dim", "65536", "--vision", "axial"}).code, 0);
  expect_one_line_error(rope_cli({"frequencies", "--dim", "65536", "--png", path("f.png")}), 2,
                        "--max-position must be >= 1 with (max-position + 1)·d/2 <= 4194304 (got 128)");
  EXPECT_FALSE(std::filesystem::exists(path("f.png")));
}

TEST_F(CmdFrequencies, AVisionTowerListsTheAxisOfEveryPair) {
  // --vision pixtral, d = 16, base 10000 (V3): pairs 0 … 3 are the row h with θ = 10000^(−2i/16) for
  // i = 0, 2, 4, 6, pairs 4 … 7 the column w with i = 1, 3, 5, 7. llama4 (V4): pairs 0 … 3 the column w,
  // 4 … 7 the row h, both 10000^(−4k/16). θ within 4 ulp (a pow each side).
  const Result r = rope_cli({"frequencies", "--vision", "pixtral", "--dim", "16", "--csv", "-"});
  ASSERT_EQ(r.code, 0) << r.err;
  const test::ReferenceCsv t = test::parse_reference(r.out);
  ASSERT_EQ(t.header.back(), "axis");
  ASSERT_EQ(t.rows.size(), 8u);
  for (int j = 0; j < 8; ++j) {
    const int i = j < 4 ? 2 * j : 2 * (j - 4) + 1;
    const double want = std::pow(10000.0, -2.0 * i / 16);
    EXPECT_NEAR(std::stod(t.rows[static_cast<std::size_t>(j)].at(1)), want, 1e-15 * want) << j;
    EXPECT_EQ(t.rows[static_cast<std::size_t>(j)].back(), j < 4 ? "h" : "w") << j;
  }
  const Result l = rope_cli({"frequencies", "--vision", "llama4", "--dim", "16", "--digits", "0"});
  ASSERT_EQ(l.code, 0) << l.err;
  EXPECT_THAT(
      l.out, HasSubstr("2-D vision RoPE (llama4): each pair turns with the patch's row h or column w, counted from 1"));
  EXPECT_THAT(l.out, HasSubstr("    0                         1         6.283185307179586     w\n"));
  EXPECT_THAT(l.out, HasSubstr("    4                         1         6.283185307179586     h\n"));
  const auto j = nlohmann::json::parse(rope_cli({"frequencies", "--vision", "llama4", "--dim", "16", "--json"}).out);
  EXPECT_EQ(j["pair_axis"], nlohmann::json::array({2, 2, 2, 2, 1, 1, 1, 1}));
  EXPECT_NEAR(j["inv_freq"][5].get<double>(), 0.1, 1e-16);  // 10000^(−4/16)
}

TEST_F(CmdFrequencies, PositionWithAModelShowsItsAnglesAndQueryScaling) {
  // Ministral 3 (modeling_ministral3.py get_llama_4_attn_scale): s(p) = 1 + β·ln(1 + ⌊p / L0⌋), (S21).
  std::ofstream(path("m.json")) << R"({"model_type": "ministral3", "head_dim": 8, "max_position_embeddings": 262144,
      "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0, "original_max_position_embeddings": 16384,
                          "llama_4_scaling_beta": 0.1}})";
  const Result r = rope_cli({"frequencies", "--config", path("m.json"), "--position", "262143", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_NEAR(j["query_scale"].get<double>(), 1 + 0.1 * std::log(16.0), 1e-15);
  EXPECT_EQ(j["angle"][1].get<double>(), 262143 * j["inv_freq"][1].get<double>());
  const Result text = rope_cli({"frequencies", "--config", path("m.json"), "--position", "16384"});
  EXPECT_THAT(text.out, HasSubstr("at p = 16384: s = 1.0693147180559945"));
  // A model with position axes still needs rope apply.
  expect_one_line_error(rope_cli({"frequencies", "--model", "qwen2-vl-7b", "--position", "3"}), 2,
                        "a model with position axes needs rope apply --position t,h,w");
}

TEST_F(CmdFrequencies, PositionOfADynamicModelTakesTheFrequenciesAtSeqLenPositionPlusOne) {
  // HF's dynamic update (modeling_rope_utils.py dynamic_rope_update, _compute_dynamic_ntk_parameters): at
  // seq_len = max(position_ids) + 1 = 8192 > M = 4096, base' = base·(f·L/M − (f − 1))^(d/(d − 2)) = 10^4·3^(128/126).
  std::ofstream(path("d.json")) << R"({"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
      "max_position_embeddings": 4096, "rope_theta": 10000, "rope_scaling": {"rope_type": "dynamic", "factor": 2.0}})";
  const Result at = rope_cli({"frequencies", "--config", path("d.json"), "--position", "8191", "--json"});
  ASSERT_EQ(at.code, 0) << at.err;
  const nlohmann::json j = nlohmann::json::parse(at.out);
  const double base = 1e4 * std::pow(3.0, 128.0 / 126.0);
  EXPECT_NEAR(j["effective_base"].get<double>(), base, 1e-9 * base);
  EXPECT_NEAR(j["inv_freq"][1].get<double>(), std::pow(base, -2.0 / 128), 1e-15);
  EXPECT_EQ(j["angle"][1].get<double>(), 8191 * j["inv_freq"][1].get<double>());
  // Within M, and without --position: the default frequencies; --seq-len, when given, wins over the position.
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{"--position", "4095"}, std::vector<std::string>{},
        std::vector<std::string>{"--position", "8191", "--seq-len", "4096"}}) {
    std::vector<std::string> args = {"frequencies", "--config", path("d.json"), "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const Result r = rope_cli(args);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["effective_base"].get<double>(), 1e4)
        << fmt::format("{}", fmt::join(extra, " "));
  }
  const Result text = rope_cli({"frequencies", "--config", path("d.json"), "--position", "8191"});
  EXPECT_THAT(text.out, HasSubstr("8192"));  // the note names the L it took
}

}  // namespace
}  // namespace rope
