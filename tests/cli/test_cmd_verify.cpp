// rope verify: the identities pass, reproducibly; --dtype, in-process (moved from test_cli.cpp).
#include "rope/cli/cli.hpp"

#include <filesystem>
#include <map>
#include <fmt/format.h>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/cli_harness.hpp"
#include "support/reference_data.hpp"
#include "support/scoped_env.hpp"
#include "rope/core/frequencies.hpp"

#include "rope/cli/progress.hpp"
#include "rope/models/presets.hpp"

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

class CmdVerify : public test::TempDirTest {};

TEST_F(CmdVerify, VerifyPassesAndIsReproducible) {
  const Result a = rope_cli({"verify", "--trials", "50", "--seed", "5"});
  const Result b = rope_cli({"verify", "--trials", "50", "--seed", "5"});
  EXPECT_EQ(a.code, 0);
  EXPECT_EQ(a.out, b.out);
  EXPECT_THAT(a.out, HasSubstr("seed 5"));
  EXPECT_THAT(a.out, HasSubstr("7 of 7 identities passed"));
  EXPECT_THAT(a.out, HasSubstr("contrast, expected to fail"));
  EXPECT_THAT(a.out, HasSubstr(" - sinusoidal        ⟨q+p_{m+c}, k+p_{n+c}⟩ = ⟨q+p_m, k+p_n⟩   (M12)"));
  // --wide: today's wide table, with the samples and max |Δ| columns and the contrast's long names.
  const Result wide = rope_cli({"verify", "--trials", "50", "--seed", "5", "--wide"});
  EXPECT_THAT(wide.out, HasSubstr("FAIL (expected)"));
  EXPECT_THAT(wide.out,
              HasSubstr(" -  sinusoidal (contrast) ⟨q+p_{m+c}, k+p_{n+c}⟩ = ⟨q+p_m, k+p_n⟩    (M12)            50"));
  EXPECT_THAT(wide.out, Not(HasSubstr("--wide adds")));
  const Result json = rope_cli({"verify", "--trials", "10", "--json"});
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_TRUE(j["passed"].get<bool>());
  EXPECT_EQ(j["identities"].size(), 7u);
}

// rope verify --q --k: every identity on the user's own vectors.

TEST_F(CmdVerify, OnTheUsersVectorsAtGivenPositions) {
  const Result r =
      rope_cli({"verify", "--q", "1,0,2,-1;0.5,0.5,3,1", "--k", "0.5,1,0,2;1,-1,2,0", "--positions", "5,12,3"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("rope verify: d = 4, base = 10000, interleaved layout, 2 trials, seed"));
  EXPECT_THAT(r.out, HasSubstr("q, k: the 2 pairs of vectors given, the i-th q with the i-th k"));
  EXPECT_THAT(r.out, HasSubstr("positions given: m = 5, n = 12, shift c = 3\n"));
  EXPECT_THAT(r.out, HasSubstr("7 of 7 identities passed"));
  const Result j = rope_cli({"verify", "--q", "1,0,2,-1", "--k", "0.5,1,0,2", "--positions", "5,12,3", "--json"});
  const auto v = nlohmann::json::parse(j.out);
  EXPECT_EQ(v["settings"]["vector_pairs"], 1);
  EXPECT_EQ(v["settings"]["positions"], nlohmann::json::parse("[5, 12, 3]"));
  EXPECT_EQ(v["settings"]["max_position"], 13);
  EXPECT_EQ(v["identities"][0]["samples"], 1);
  const Result zh =
      rope_cli({"verify", "--q", "1,0,2,-1", "--k", "0.5,1,0,2", "--positions", "5,12,3", "--lang", "zh"});
  EXPECT_THAT(zh.out, HasSubstr("q、k：给出的向量\n给出的位置：m = 5，n = 12，平移量 c = 3\n"));
}

TEST_F(CmdVerify, OnTheUsersVectorsAtDrawnPositions) {
  const Result r = rope_cli({"verify", "--q", "1,0,2,-1,3,0.25", "--k", "0.5,1,0,2,-2,1", "--seed", "9"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("d = 6"));
  EXPECT_THAT(r.out, HasSubstr("1000 trials, seed 9"));
  EXPECT_THAT(r.out, HasSubstr("q, k: the vectors given\npositions m, n and shift c uniform integers in [0, 4096)"));
  // A model's RoPE: its rotated channels are d (Llama 3's 128 here, from a file of one number per line).
  std::string column;
  for (int j = 0; j < 128; ++j) column += fmt::format("{}\n", 0.01 * (j - 60));
  std::ofstream(path("q.csv")) << column;
  const Result model = rope_cli(
      {"verify", "--q", "@" + path("q.csv"), "--k", "@" + path("q.csv"), "--model", "llama-3-8b", "--trials", "50"});
  EXPECT_EQ(model.code, 0) << model.err;
  EXPECT_THAT(model.out, HasSubstr("d = 128"));
  EXPECT_THAT(model.out, HasSubstr("50 trials"));
}

/// A .npy file of float64 in C order, as numpy.save writes one (format version 1.0).
void write_npy(const fs::path& path, const std::vector<long>& shape, const std::vector<double>& values) {
  std::string dims;
  for (const long n : shape) dims += fmt::format("{}, ", n);
  if (shape.size() > 1) dims.resize(dims.size() - 2);
  std::string header = fmt::format("{{'descr': '<f8', 'fortran_order': False, 'shape': ({}), }}", dims);
  header.append(64 - (10 + header.size() + 1) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  out << "\x93NUMPY" << '\x01' << '\x00' << static_cast<char>(header.size() & 0xff)
      << static_cast<char>(header.size() >> 8) << header;
  out.write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * sizeof(double)));
}

TEST_F(CmdVerify, ReadsTheVectorsOfATensorFile) {
  // [heads 2, seq 3, d 4]: six vectors of four numbers.
  std::vector<double> values(24);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = 0.5 * static_cast<double>(i) - 4;
  write_npy(path("q.npy"), {2, 3, 4}, values);
  const Result r =
      rope_cli({"verify", "--q", "@" + path("q.npy"), "--k", "@" + path("q.npy"), "--positions", "0,7,1", "--json"});
  EXPECT_EQ(r.code, 0) << r.err;
  const auto v = nlohmann::json::parse(r.out);
  EXPECT_EQ(v["settings"]["dim"], 4);
  EXPECT_EQ(v["settings"]["vector_pairs"], 6);
  EXPECT_TRUE(v["passed"].get<bool>());
}

struct VerifyVectorError {
  const char* name;
  std::vector<std::string> args;
  const char* message;
};

class CmdVerifyVectorError : public ::testing::TestWithParam<VerifyVectorError> {};

TEST_P(CmdVerifyVectorError, IsOneLineNamingTheRule) {
  std::vector<std::string> args{"verify"};
  args.insert(args.end(), GetParam().args.begin(), GetParam().args.end());
  expect_one_line_error(rope_cli(args), 2, GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Rules, CmdVerifyVectorError,
    ::testing::Values(
        VerifyVectorError{"QAlone", {"--q", "1,2"}, "give both --q and --k, or neither (got only --q)"},
        VerifyVectorError{"PositionsAlone", {"--positions", "1,2,3"}, "--positions needs --q and --k"},
        VerifyVectorError{"TwoPositions",
                          {"--q", "1,2", "--k", "3,4", "--positions", "1,2"},
                          "--positions must be three numbers M,N,C: the query's position m, the key's n and the shift "
                          "c (got 2)"},
        VerifyVectorError{"PositionsWithTrials",
                          {"--q", "1,2", "--k", "3,4", "--positions", "1,2,3", "--trials", "5"},
                          "--trials excludes --positions"},
        VerifyVectorError{"FractionalPosition",
                          {"--q", "1,2", "--k", "3,4", "--positions", "1,2.5,3"},
                          "--positions must be integers between 0 and 999999999999 (got 2.5)"},
        VerifyVectorError{"FewerTrialsThanPairs",
                          {"--q", "1,2;3,4;5,6", "--k", "1,2;3,4;5,6", "--trials", "2"},
                          "--trials must be at least the number of vector pairs, 3, so that each is checked (got 2)"},
        VerifyVectorError{"DimensionMismatch",
                          {"--q", "1,2", "--k", "3,4", "--dim", "8"},
                          "--dim 8 does not match the 2 numbers per vector of --q and --k"},
        VerifyVectorError{"OtherThanTheModelRotates",
                          {"--q", "1,2", "--k", "3,4", "--model", "llama-3-8b"},
                          "q and k hold 2 numbers per vector, and the model rotates 128 channels"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(CmdVerifyVectorErrorZh, IsChinese) {
  expect_one_line_error(rope_cli({"verify", "--q", "1,2", "--k", "3,4", "--positions", "1,2", "--lang", "zh"}), 2,
                        "--positions 必须是三个数 M,N,C");
  expect_one_line_error(rope_cli({"verify", "--q", "1,2;3,4", "--k", "1,2;3,4", "--trials", "1", "--lang", "zh"}), 2,
                        "--trials 必须不小于向量对的个数 2");
}

// ---------------------------------------------------------------------------------------------
// Figures through the command line (the plot module itself: test_plot.cpp).

// rope verify --dtype.

TEST(CmdVerifyDType, Float32PassesAndStatesItsTolerance) {
  const auto r = rope_cli({"verify", "--dtype", "f32", "--trials", "200"});
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("seed 2104, computed in f32\n"));
  EXPECT_THAT(r.out, HasSubstr("tolerance on |Δ|/S = 8·ε·(d + M), ε = 1.19e-07"));
  EXPECT_THAT(r.out, HasSubstr("7 of 7 identities passed\n"));
}

// All-bfloat16 (cast-inputs, the default before --strategy existed; now asked for by name) fails.
TEST(CmdVerifyDType, Bfloat16CastInputsFailsWithExitOne) {
  const auto r = rope_cli({"verify", "--dtype", "bf16", "--strategy", "cast-inputs", "--trials", "100"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr("8·(ε_f32·d + ε·M), ε = 0.00781"));
  EXPECT_THAT(r.out, HasSubstr("bf16 keeps no correct digit at positions up to 4096"));
  EXPECT_THAT(r.out, HasSubstr("VERIFICATION FAILED"));
  EXPECT_THAT(r.out, Not(HasSubstr(" - all-bf16")));
  EXPECT_EQ(
      rope_cli({"verify", "--dtype", "bf16", "--strategy", "cast-inputs", "--trials", "100", "--max-position", "4"})
          .code,
      0);
}

// The default strategy is Hugging Face's (angles and cos/sin in float32): bf16 and f16 pass at the default
// positions, with the all-low-precision pipeline shown as the contrast that fails.
TEST(CmdVerifyDType, Bfloat16AndFloat16PassAsHuggingFaceComputesThem) {
  for (const char* type : {"bf16", "f16"}) {
    const auto r = rope_cli({"verify", "--dtype", type, "--trials", "300"});
    EXPECT_EQ(r.code, 0) << r.out;
    EXPECT_THAT(r.out, HasSubstr(fmt::format("computed in {} (angle-f32)", type)));
    EXPECT_THAT(r.out, HasSubstr("angle-f32, as Hugging Face"));
    EXPECT_THAT(r.out, HasSubstr("8·(ε_f32·d + ε_f32·M + ε)"));
    EXPECT_THAT(r.out, HasSubstr(fmt::format(" - all-{}", type)));
    EXPECT_THAT(r.out, HasSubstr("it fails from max-position "));
    EXPECT_THAT(r.out, HasSubstr("7 of 7 identities passed\n"));
  }
  const auto wide = rope_cli({"verify", "--dtype", "bf16", "--strategy", "cast-result", "--trials", "50"});
  EXPECT_EQ(wide.code, 0);
  EXPECT_THAT(wide.out, HasSubstr("8·(ε_f32·d + ε_f64·M + ε)"));
  const auto json = nlohmann::json::parse(rope_cli({"verify", "--dtype", "bf16", "--trials", "50", "--json"}).out);
  EXPECT_EQ(json["settings"]["strategy"], "angle-f32");
  EXPECT_FALSE(json["cast_inputs_contrast"]["passed"].get<bool>());
  EXPECT_GT(json["cast_inputs_contrast"]["fails_from_max_position"].get<double>(), 256);
}

TEST(CmdVerifyDType, StrategyNeedsALowPrecisionType) {
  expect_one_line_error(rope_cli({"verify", "--strategy", "angle-f32"}), 2,
                        "--strategy needs --dtype f32, f16 or bf16");
  expect_one_line_error(rope_cli({"verify", "--strategy", "sideways", "--dtype", "bf16"}), 2,
                        "strategy must be cast-inputs, angle-f32 or cast-result (got 'sideways')");
}

TEST_F(CmdVerify, DenseFormSaysSoAndPasses) {
  const Result dense = rope_cli({"verify", "--dense", "--trials", "30"});
  EXPECT_EQ(dense.code, 0);
  EXPECT_THAT(dense.out, HasSubstr("dense form: every rotation by apply_rotary and the d×d matrix R_m"));
  const Result fast = rope_cli({"verify", "--trials", "30"});
  EXPECT_THAT(fast.out, HasSubstr("on the 2×2 blocks of R_m: O(d) per check"));
  // No terminal here: no progress bar on stderr, whatever the size of the run.
  EXPECT_EQ(rope_cli({"verify", "--trials", "100000"}).err, "");
}

TEST(CmdVerifyDType, WithoutDtypeTheOutputIsUnchangedAndF64OnlyAddsItsLines) {
  const auto plain = rope_cli({"verify", "--trials", "50"});
  const auto f64 = rope_cli({"verify", "--trials", "50", "--dtype", "f64"});
  EXPECT_THAT(plain.out, Not(HasSubstr("computed in")));
  EXPECT_THAT(f64.out, HasSubstr("computed in f64"));
  // The table rows are the same numbers.
  const auto row = [](const std::string& out) { return out.substr(out.find(" 1 relative")); };
  EXPECT_EQ(row(plain.out), row(f64.out));
  const auto json = rope_cli({"verify", "--trials", "5", "--json", "--dtype", "bf16", "--max-position", "4"});
  EXPECT_THAT(json.out, HasSubstr("\"dtype\": \"bf16\""));
  EXPECT_THAT(rope_cli({"verify", "--trials", "5", "--json"}).out, Not(HasSubstr("dtype")));
}

TEST(CmdVerifyDType, BadType) {
  expect_one_line_error(rope_cli({"verify", "--dtype", "f8"}), 2, "dtype must be f64, f32, f16 or bf16 (got 'f8')");
}

// Issue 13: with --model, verify checks the identities in the model's layout (rope/models/rope_spec.hpp).
// One test per preset: its name and the layout line verify prints for it.
const std::map<std::string, std::string>& verify_preset_layouts() {
  static const std::map<std::string, std::string> layouts{
      {"deepseek-v3", "interleaved layout (model family deepseek_v3)"},
      {"gemma-3-4b", "half layout (model family gemma3_text)"},
      {"gpt-j-6b", "interleaved layout (model family gptj)"},
      {"gpt-neox-20b", "half layout (model family gpt_neox)"},
      {"gpt-oss-20b", "half layout (model family gpt_oss)"},
      {"llama-3.1-8b", "half layout (model family llama)"},
      {"mistral-7b-v0.1", "half layout (model family mistral)"},
      {"phi-3-mini-128k", "half layout (model family phi3)"},
      {"qwen2.5-7b", "half layout (model family qwen2)"},
      {"qwen3-8b", "half layout (model family qwen3)"},
      {"llama-2-7b", "half layout (model family llama)"},
      {"llama-3-8b", "half layout (model family llama)"},
      {"llama-3.2-1b", "half layout (model family llama)"},
      {"gemma-3-27b", "half layout (model family gemma3_text)"},
      {"chatglm3-6b", "interleaved layout (model family chatglm)"},
      {"llama-4-scout-17b-16e", "interleaved layout (model family llama4_text)"},
      {"glm-4-9b-chat", "interleaved layout (model family chatglm)"},
      {"mistral-nemo-base-2407", "half layout (model family mistral)"},
      {"phi-3.5-mini-instruct", "half layout (model family phi3)"},
      {"qwen2-vl-7b", "half layout (model family qwen2_vl)"},
      {"qwen2.5-vl-7b", "half layout (model family qwen2_5_vl)"},
      {"qwen3-vl-8b", "half layout (model family qwen3_vl_text)"},
      {"command-a-03-2025", "interleaved layout (model family cohere2)"},
      {"qwen3-next-80b-a3b", "half layout (model family qwen3_next)"},
      {"olmo-3-7b", "half layout (model family olmo3)"},
      {"minimax-m2", "half layout (model family minimax_m2)"},
      {"exaone-4.0-32b", "half layout (model family exaone4)"},
      {"gemma-4-26b-a4b", "half layout (model family gemma4_text)"},
      {"smollm3-3b", "half layout (model family smollm3)"},
      {"glm-4.5", "half layout (model family glm4_moe)"},
      {"kimi-k2-instruct", "interleaved layout (model family kimi_k2)"},
      {"qwen3.5-9b", "half layout (model family qwen3_5_text)"},
      {"devstral-small-2-24b", "half layout (model family ministral3)"},
      // diffusers' image and video transformers (issue 79, models/grid_rope.hpp), keyed by their _class_name.
      {"wan2.1-t2v-14b", "interleaved layout (diffusers WanTransformer3DModel"},
      {"wan2.1-t2v-1.3b", "interleaved layout (diffusers WanTransformer3DModel"},
      {"flux.1-dev", "interleaved layout (diffusers FluxTransformer2DModel"},
      {"flux.2-dev", "interleaved layout (diffusers Flux2Transformer2DModel"},
      {"qwen-image", "interleaved layout (diffusers QwenImageTransformer2DModel"},
      {"hunyuanvideo", "interleaved layout (diffusers HunyuanVideoTransformer3DModel"},
      {"ltx-video", "interleaved layout (diffusers LTXVideoTransformer3DModel"},
      {"cosmos-predict2-2b", "half layout (diffusers CosmosTransformer3DModel"},
      {"cosmos3-nano", "half layout (diffusers Cosmos3OmniTransformer"},
      {"z-image-turbo", "interleaved layout (diffusers ZImageTransformer2DModel"},
      {"hunyuanvideo-1.5-720p-t2v", "interleaved layout (diffusers HunyuanVideo15Transformer3DModel"},
      {"kandinsky-5.0-t2v-lite-sft-5s", "interleaved layout (diffusers Kandinsky5Transformer3DModel"}};
  return layouts;
}

TEST(CmdVerifyPresetTable, NamesEveryPreset) {
  // Every preset but the one with FoPE (intern-s1-pro) and LTX-2's per-head slices (ltx-2), which verify refuses
  // (test_fope_commands.cpp, test_ltx2_rope.cpp).
  ASSERT_EQ(verify_preset_layouts().size() + 2, list_presets().size());
  EXPECT_EQ(verify_preset_layouts().count("intern-s1-pro"), 0u);
  EXPECT_EQ(verify_preset_layouts().count("ltx-2"), 0u);
}

class CmdVerifyPreset : public ::testing::TestWithParam<std::pair<const std::string, std::string>> {};

TEST_P(CmdVerifyPreset, PassesInItsOwnLayout) {
  const auto& [preset, layout] = GetParam();
  const Result r = rope_cli({"verify", "--model", preset, "--trials", "20"});
  EXPECT_EQ(r.code, 0) << preset << ": " << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr(layout)) << preset;
  const Result j = rope_cli({"verify", "--model", preset, "--trials", "5", "--json"});
  const auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["settings"]["layout"], layout.substr(0, layout.find(' '))) << preset;
}

INSTANTIATE_TEST_SUITE_P(Presets, CmdVerifyPreset, ::testing::ValuesIn(verify_preset_layouts()),
                         [](const auto& info) { return test::case_name(info.param.first); });

TEST_F(CmdVerify, AModelWithSectionsAddsThePerAxisIdentities) {
  const Result r = rope_cli({"verify", "--model", "qwen2-vl-7b", "--trials", "50"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(" 8 axes: relative    ⟨R_p q, R_p' k⟩ = ⟨q, R_{p'−p} k⟩         (A5)   "));
  EXPECT_THAT(r.out, HasSubstr("12 axes: w alone     shift p_w, p'_w by c: score unchanged     (A7)   "));
  EXPECT_THAT(r.out, HasSubstr("12 of 12 identities passed"));
  const Result zh = rope_cli({"verify", "--model", "qwen2-vl-7b", "--trials", "20", "--lang", "zh"});
  EXPECT_THAT(zh.out, HasSubstr("多轴：只平移 h"));
  // In float32 the per-axis rows are left out, and the table says so.
  const Result f32 = rope_cli({"verify", "--model", "qwen3-vl-8b", "--trials", "20", "--dtype", "f32"});
  ASSERT_EQ(f32.code, 0) << f32.err;
  EXPECT_THAT(f32.out,
              HasSubstr("the per-axis rows (A5)-(A7) (axes t,h,w) are checked in float64 only: leave out --dtype"));
  EXPECT_THAT(f32.out, HasSubstr("7 of 7 identities passed"));
  // Without sections: the 7 rows of plain RoPE.
  EXPECT_THAT(rope_cli({"verify", "--model", "qwen3-8b", "--trials", "20"}).out, HasSubstr("7 of 7 identities passed"));
}

TEST_F(CmdVerify, XposRowsPassAndTheirContrastFails) {
  const Result r = rope_cli({"verify", "--xpos", "--trials", "100", "--dim", "32"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("xpos: relative"));
  EXPECT_THAT(r.out, HasSubstr("xpos: scale"));
  EXPECT_THAT(r.out, HasSubstr("contrast, expected to fail: RoPE's relative identity without xPos's scale (s = 512)"));
  EXPECT_THAT(r.out, HasSubstr("10 of 10 identities passed"));
  const Result csv = rope_cli({"verify", "--xpos", "--trials", "20", "--csv", "-"});
  EXPECT_THAT(csv.out, HasSubstr("\"no xpos scale\""));
  expect_one_line_error(rope_cli({"verify", "--xpos", "--xpos-scale-base", "-1"}), 2,
                        "--xpos-scale-base must be a finite number > 0 (got -1)");
  expect_one_line_error(rope_cli({"verify", "--xpos", "--max-position", "1e6"}), 2,
                        "--xpos: 2·max-position/s = 3906.25 is over 500");
  expect_one_line_error(rope_cli({"verify", "--xpos", "--dtype", "f32"}), 2, "--xpos is checked in float64");
  // As apply and decay: the scale base without --xpos, and xPos on a model's RoPE, are refused.
  expect_one_line_error(rope_cli({"verify", "--xpos-scale-base", "100"}), 2,
                        "--xpos-scale-base requires --xpos (see 'rope verify --help')");
  expect_one_line_error(rope_cli({"verify", "--model", "qwen3-vl-8b", "--xpos"}), 2,
                        "--xpos applies to plain RoPE: leave out --model, --config and --scaling");
  const Result zh = rope_cli({"verify", "--model", "qwen3-vl-8b", "--xpos", "--lang", "zh"});
  EXPECT_THAT(zh.err, HasSubstr("--xpos 只适用于普通 RoPE"));
}

TEST_F(CmdVerify, AVisionTowerChecksItsRowAndColumnAxes) {
  // A 2-D vision map reads (h, w): the per-axis rows are "h alone" and "w alone" (not t and h), and every
  // row passes, Llama 4's 1-based map included (its offset cancels in (A5)'s difference p' − p).
  for (const auto& flags :
       std::vector<std::vector<std::string>>{{"--vision", "llama4", "--dim", "16"},
                                             {"--vision", "pixtral", "--dim", "32", "--base", "100"},
                                             {"--model", "llama-4-scout-17b-16e", "--tower", "vision"},
                                             {"--model", "qwen2.5-vl-7b", "--tower", "vision"}}) {
    std::vector<std::string> args{"verify", "--trials", "100", "--csv", "-"};
    args.insert(args.end(), flags.begin(), flags.end());
    const Result r = rope_cli(args);
    ASSERT_EQ(r.code, 0) << flags[1] << ": " << r.err;
    std::vector<std::string> axes_rows;
    int passed = 0, rows = 0;
    for (const auto& row : test::parse_reference(r.out).rows) {  // a quoted formula may hold commas: count from the end
      if (row.back() == "true") continue;                        // expected_to_fail: the contrast
      ++rows;
      passed += row.at(row.size() - 2) == "true";
      if (row.at(0).rfind("\"axes: ", 0) == 0) axes_rows.push_back(row.at(0));
    }
    EXPECT_EQ(rows, 11) << flags[1];  // 7 of plain RoPE, (A5), (A6), (A7) for h and for w
    EXPECT_EQ(passed, rows) << flags[1] << "\n" << r.out;
    EXPECT_EQ(axes_rows, (std::vector<std::string>{"\"axes: relative\"", "\"axes: shift all\"", "\"axes: h alone\"",
                                                   "\"axes: w alone\""}))
        << flags[1];
  }
  const Result text = rope_cli({"verify", "--vision", "llama4", "--dim", "16", "--trials", "100"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("10 axes: h alone     shift p_h, p'_h by c: score unchanged     (A7)"));
  EXPECT_THAT(text.out, HasSubstr("11 axes: w alone     shift p_w, p'_w by c: score unchanged     (A7)"));
  EXPECT_THAT(text.out, HasSubstr("11 of 11 identities passed"));
  EXPECT_THAT(text.out, Not(HasSubstr("t alone")));
  EXPECT_THAT(
      rope_cli({"verify", "--model", "qwen2.5-vl-7b", "--tower", "vision", "--trials", "20", "--lang", "zh"}).out,
      HasSubstr("多轴：只平移 w"));
}

// The progress line of a long verify run says the time left at the rate so far (issue 52, item 7).
struct TimeLeftCase {
  double elapsed;
  long done, total;
  Lang lang;
  const char* expected;
};
class VerifyTimeLeft : public ::testing::TestWithParam<TimeLeftCase> {};
TEST_P(VerifyTimeLeft, AtTheRateSoFar) {
  const TimeLeftCase& c = GetParam();
  EXPECT_EQ(cli::time_left(c.elapsed, c.done, c.total, Text(c.lang)), c.expected);
}
INSTANTIATE_TEST_SUITE_P(
    Rates, VerifyTimeLeft,
    ::testing::Values(TimeLeftCase{0.5, 50, 100, Lang::En, ""},  // before a second: no estimate yet
                      TimeLeftCase{10, 0, 100, Lang::En, ""},    // nothing done yet
                      TimeLeftCase{10, 5, 1000, Lang::En, ""},   // under 1 %: too early to tell
                      TimeLeftCase{10, 50, 100, Lang::En, "about 10 s left"},
                      TimeLeftCase{30, 25, 100, Lang::En, "about 2 min left"},  // 90 s and more: minutes
                      TimeLeftCase{60, 10, 100, Lang::En, "about 9 min left"},
                      TimeLeftCase{600, 10, 1000, Lang::En, "about 16.5 h left"},
                      TimeLeftCase{60, 10, 100, Lang::Zh, "约剩 9 分钟"}));

}  // namespace
}  // namespace rope
