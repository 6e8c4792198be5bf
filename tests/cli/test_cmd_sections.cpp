// rope sections: chunked (A2) next to interleaved (A3), against tests/reference/mrope.py's ownership.
#include "rope/cli/cli.hpp"

#include <cmath>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/cli_harness.hpp"
#include "support/reference_data.hpp"

namespace rope {
namespace {

using test::expect_one_line_error;
using test::Result;
using test::rope_cli;
using ::testing::HasSubstr;
using ::testing::Not;

class CmdSections : public test::TempDirTest {};

TEST_F(CmdSections, TheCsvEqualsTheNumpyPortOfBothOrders) {
  // mrope_ownership.csv: HF's split into mrope_section * 2 chunks and HF's slice assignment, [16, 24, 24].
  const test::ReferenceCsv ref = test::read_reference("mrope_ownership.csv");
  const char* letters = "thwe";
  std::string chunked, interleaved;
  for (const auto& row : ref.rows) {
    if (row.at(1) != "16 24 24") continue;
    (row.at(0) == "chunked" ? chunked : interleaved) += letters[std::stoi(row.at(3))];
  }
  const Result r = rope_cli({"sections", "--model", "qwen2-vl-7b", "--csv", "-"});
  ASSERT_EQ(r.code, 0) << r.err;
  const test::ReferenceCsv got = test::parse_reference(r.out);
  ASSERT_EQ(got.header, (std::vector<std::string>{"pair", "theta", "wavelength", "chunked", "interleaved"}));
  std::string c, i;
  for (const auto& row : got.rows) {
    c += row.at(3);
    i += row.at(4);
  }
  EXPECT_EQ(c, chunked);
  EXPECT_EQ(i, interleaved);
  EXPECT_EQ(got.rows.at(15).at(2), "160.1142068523735");  // λ_15 = 2π·1e6^(30/128) (M2)
}

TEST_F(CmdSections, TableFigureAndChinese) {
  const Result r = rope_cli({"sections", "--png", path("s.png")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out,
              HasSubstr("M-RoPE sections [24, 20, 20] (Qwen3-VL's default) over 64 pairs, d = 128, base = 5000000"));
  EXPECT_THAT(r.out, HasSubstr("  w (width)         20  44 … 63                 253350 … 2.46876e+07\n"));
  EXPECT_THAT(r.out, HasSubstr("  w (width)         20  2, 5, …, 59             10.1747 … 9.4144e+06\n"));
  std::ifstream png(path("s.png"), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(png)), std::istreambuf_iterator<char>());
  EXPECT_EQ(test::png_size(bytes), (std::pair<std::uint32_t, std::uint32_t>{1200, 800}));
  const Result zh = rope_cli({"sections", "--sections", "16,24,24", "--base", "1000000", "--lang", "zh"});
  ASSERT_EQ(zh.code, 0) << zh.err;
  EXPECT_THAT(zh.out, HasSubstr("交错：  THW·THW"));
  EXPECT_THAT(zh.out, HasSubstr("w（宽度）         24  40 … 63"));
}

TEST_F(CmdSections, VisionMapsOfTheSixImplementationsByHand) {
  // d = 64, base 10000 (the --vision default head), q = d/4 = 16 pairs per axis, by (V2)-(V6):
  //   qwen2-vl, llama.cpp, axial: pair j < q is h with θ = base^(−4j/d), pair j ≥ q is w with base^(−4(j−q)/d);
  //   pixtral: j < q is h with base^(−4j/d) (the even i = 2j of base^(−2i/d)), j ≥ q is w with
  //            base^(−(4(j−q)+2)/d) (the odd i);
  //   llama4 and gemma4 (HF Gemma4VisionRotaryEmbedding, modeling_gemma4.py at c308a309e651: the column x's
  //   block first): j < q is w, j ≥ q is h, both ladders base^(−4k/d).
  // θ within 4 ulp (1e-15 relative): one pow each side, of exponents that may be formed differently.
  for (const auto& [base, flags] : std::vector<std::pair<double, std::vector<std::string>>>{
           {10000.0, {"sections", "--vision", "pixtral", "--csv", "-"}},
           {100.0, {"sections", "--vision", "llama4", "--base", "100", "--csv", "-"}}}) {
    const Result r = rope_cli(flags);
    ASSERT_EQ(r.code, 0) << r.err;
    const test::ReferenceCsv got = test::parse_reference(r.out);
    ASSERT_EQ(got.header,
              (std::vector<std::string>{"pair", "theta_qwen2_vl", "axis_qwen2_vl", "theta_llama_cpp", "axis_llama_cpp",
                                        "theta_pixtral", "axis_pixtral", "theta_llama4", "axis_llama4", "theta_axial",
                                        "axis_axial", "theta_gemma4", "axis_gemma4"}));
    const int d = 64, q = d / 4;
    ASSERT_EQ(got.rows.size(), static_cast<std::size_t>(d / 2));
    for (int j = 0; j < d / 2; ++j) {
      const auto& row = got.rows[static_cast<std::size_t>(j)];
      ASSERT_EQ(row.size(), 13u);
      EXPECT_EQ(std::stoi(row[0]), j);
      const int k = j < q ? j : j - q;
      const double ladder = std::pow(base, -4.0 * k / d);
      const double pixtral = j < q ? ladder : std::pow(base, -(4.0 * k + 2) / d);
      const std::string first = j < q ? "h" : "w", llama4 = j < q ? "w" : "h";
      const std::vector<std::pair<double, std::string>> want{{ladder, first},  {ladder, first}, {pixtral, first},
                                                             {ladder, llama4}, {ladder, first}, {ladder, llama4}};
      for (std::size_t c = 0; c < want.size(); ++c) {
        EXPECT_NEAR(std::stod(row[1 + 2 * c]), want[c].first, 1e-15 * want[c].first)
            << got.header[1 + 2 * c] << " pair " << j;
        EXPECT_EQ(row[2 + 2 * c], want[c].second) << got.header[2 + 2 * c] << " pair " << j;
      }
    }
  }
}

TEST_F(CmdSections, VisionTextNamesTheChosenKindAndDrawsTheSix) {
  const Result r = rope_cli({"sections", "--vision", "pixtral", "--dim", "16", "--png", path("v.png")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("2-D vision RoPE of the command line: d = 16, base = 10000"));
  EXPECT_THAT(r.out, HasSubstr("2-D vision RoPE (pixtral): each pair turns with the patch's row h or column w"));
  // (V3) at d = 16: w takes θ_i = 10000^(−2i/16) for odd i: λ = 2π·10000^(1/8) = 19.8692 … 2π·10000^(7/8) = 19869.2.
  EXPECT_THAT(r.out,
              HasSubstr("  pixtral    (V3)  half            0      6.28319 … 6283.19     19.8692 … 19869.2  ←\n"));
  EXPECT_THAT(r.out, HasSubstr("  llama4     (V4)  interleaved     1      6.28319 … 6283.19     6.28319 … 6283.19\n"));
  EXPECT_THAT(r.out, HasSubstr("  gemma4     (V6)  half, per axis  0      6.28319 … 6283.19     6.28319 … 6283.19\n"));
  std::ifstream png(path("v.png"), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(png)), std::istreambuf_iterator<char>());
  EXPECT_EQ(test::png_size(bytes), (std::pair<std::uint32_t, std::uint32_t>{1200, 800}));
  // --tower vision of the Llama 4 preset: its kind is marked, its patches counted from 1, d = 88.
  const Result t = rope_cli({"sections", "--model", "llama-4-scout-17b-16e", "--tower", "vision"});
  ASSERT_EQ(t.code, 0) << t.err;
  EXPECT_THAT(t.out, HasSubstr("2-D vision RoPE of llama-4-scout-17b-16e vision_config: d = 88, base = 10000"));
  EXPECT_THAT(
      t.out, HasSubstr("2-D vision RoPE (llama4): each pair turns with the patch's row h or column w, counted from 1"));
  EXPECT_THAT(t.out,
              HasSubstr("  llama4     (V4)  interleaved     1      6.28319 … 41339.2     6.28319 … 41339.2  ←\n"));
  EXPECT_THAT(t.out, HasSubstr("  w (width)         22  0 … 21 "));
  const Result csv = rope_cli({"sections", "--model", "qwen2.5-vl-7b", "--tower", "vision", "--csv", "-"});
  ASSERT_EQ(csv.code, 0) << csv.err;
  EXPECT_EQ(test::parse_reference(csv.out).rows.size(), 40u);  // head 80: 40 pairs
}

TEST_F(CmdSections, ErnieFourFiveVlsMapBesideQwensOfAsManyPairsPerAxis) {
  // An ERNIE-4.5-VL text config without mrope_section: the code's (h, w, t) = [22, 22, 20] (A8); Qwen's maps get
  // [20, 22, 22] (t, h, w). HF recomposition_to_3d (modeling_ernie4_5_vl_moe.py at 4f2fa85af5eb): pairs 0-43
  // alternate h (even) and w (odd), 44-63 t.
  {
    std::ofstream(path("ernie.json")) << R"({"model_type": "ernie4_5_vl_moe", "text_config": {"model_type":
        "ernie4_5_vl_moe_text", "hidden_size": 2560, "num_attention_heads": 20, "rope_parameters": {"rope_type": "default"}}})";
  }
  const Result r = rope_cli({"sections", "--config", path("ernie.json"), "--csv", "-"});
  ASSERT_EQ(r.code, 0) << r.err;
  const test::ReferenceCsv got = test::parse_reference(r.out);
  ASSERT_EQ(got.header,
            (std::vector<std::string>{"pair", "theta", "wavelength", "chunked", "interleaved", "ernie_3d"}));
  ASSERT_EQ(got.rows.size(), 64u);
  for (int j = 0; j < 64; ++j) {
    const auto& row = got.rows[static_cast<std::size_t>(j)];
    EXPECT_EQ(row[5], j >= 44 ? "t" : j % 2 == 0 ? "h" : "w") << j;
    EXPECT_EQ(row[3], j < 20 ? "t" : j < 42 ? "h" : "w") << j;
  }
  const Result text = rope_cli({"sections", "--config", path("ernie.json")});
  EXPECT_THAT(text.out, HasSubstr("ERNIE-4.5-VL's map of its sections (h, w, t) = [22, 22, 20] below Qwen's two maps"));
  EXPECT_THAT(text.out, HasSubstr("ERNIE 3-D:   HW·HW·"));
  EXPECT_THAT(text.out, Not(HasSubstr("llama.cpp, with the sections")));
}

TEST_F(CmdSections, BailingsMapBesideQwensOfTheSameSections) {
  // A Bailing VL config (data/configs/bailing-moe-v3-vl.json's keys): mrope_section (t, h, w) = [12, 10, 10] over the
  // 32 pairs of the MLA head's 64 rotary channels; vLLM BailingMRotaryEmbedding.select_cos_sin (bailing_mrope.py at
  // 9c5b716395): pairs 0-19 alternate h (even) and w (odd), 20-31 t (A9).
  {
    std::ofstream(path("bailing.json")) << R"({"model_type": "bailing_moe_v3_vl", "mrope_section": [12, 10, 10],
        "text_config": {"model_type": "bailing_hybrid", "hidden_size": 2048, "num_attention_heads": 16,
        "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "rope_parameters": {"rope_type": "default"}}})";
  }
  const Result r = rope_cli({"sections", "--config", path("bailing.json"), "--csv", "-"});
  ASSERT_EQ(r.code, 0) << r.err;
  const test::ReferenceCsv got = test::parse_reference(r.out);
  ASSERT_EQ(got.header, (std::vector<std::string>{"pair", "theta", "wavelength", "chunked", "interleaved", "bailing"}));
  ASSERT_EQ(got.rows.size(), 32u);
  for (int j = 0; j < 32; ++j) {
    const auto& row = got.rows[static_cast<std::size_t>(j)];
    EXPECT_EQ(row[5], j >= 20 ? "t" : j % 2 == 0 ? "h" : "w") << j;
    EXPECT_EQ(row[3], j < 12 ? "t" : j < 22 ? "h" : "w") << j;
  }
  const Result text = rope_cli({"sections", "--config", path("bailing.json")});
  EXPECT_THAT(text.out,
              HasSubstr("Bailing's map of its sections (t, h, w) below Qwen's two maps of the same sections"));
  EXPECT_THAT(text.out, HasSubstr("Bailing:     HW·HW·"));
  EXPECT_THAT(text.out, HasSubstr("·TTTTTTTTTTTT\n"));
  EXPECT_THAT(text.out, HasSubstr("the two channels of a pair in " + path("bailing.json") + ": interleaved layout"));
  EXPECT_THAT(text.out, Not(HasSubstr("llama.cpp, with the sections")));
}

TEST_F(CmdSections, OpenPangusGreedyMapBesideQwensOfTheSameSections) {
  // data/configs/openpangu-vl.json's keys: vLLM rope_type openpangu, mrope_section [24, 20, 20] over 64 pairs; the
  // greedy order of openpangu_rope.py at 098d12c28e as tests/reference/openpangu_mrope.py's port prints it, which
  // leaves Qwen3-VL's interleave at pair 23.
  {
    std::ofstream(path("pangu.json")) << R"({"model_type": "openpangu_vl_text", "hidden_size": 4096,
        "num_attention_heads": 32, "head_dim": 128, "rope_parameters": {"rope_type": "openpangu",
        "rope_theta": 5000000.0, "mrope_section": [24, 20, 20], "mrope_interleaved": true}})";
  }
  const Result r = rope_cli({"sections", "--config", path("pangu.json"), "--csv", "-"});
  ASSERT_EQ(r.code, 0) << r.err;
  const test::ReferenceCsv got = test::parse_reference(r.out);
  ASSERT_EQ(got.header,
            (std::vector<std::string>{"pair", "theta", "wavelength", "chunked", "interleaved", "openpangu"}));
  const std::string greedy = "thwthwthwthwthwthwthwthtwthwthwthwthwthwthwthtwthwthwthwthwthwtt";
  ASSERT_EQ(got.rows.size(), greedy.size());
  for (std::size_t j = 0; j < greedy.size(); ++j) EXPECT_EQ(got.rows[j][5], greedy.substr(j, 1)) << j;
  const Result text = rope_cli({"sections", "--config", path("pangu.json")});
  EXPECT_THAT(text.out, HasSubstr("openPangu-VL's greedy map of its sections (t, h, w) below Qwen's two maps"));
  EXPECT_THAT(text.out, HasSubstr("openPangu-VL's greedy order is Qwen3-VL's interleaved order on pairs 0 … 22 and "
                                  "parts from it at pair 23"));
  const Result zh = rope_cli({"sections", "--config", path("pangu.json"), "--lang", "zh"});
  EXPECT_THAT(zh.out, HasSubstr("从第 23 对起分开"));
}

TEST_F(CmdSections, GlmFourOneVAndFourFiveVShareTheMapNotThePairing) {
  // The configs of reference.hf_families (tests/reference/hf_families.py glm4v_vision_f64, glm4v_moe_vision_f64):
  // mrope_section [8, 12, 12] chunked over the 32 pairs of 64 rotary channels in both; GLM-4.1V pairs (2i, 2i+1)
  // (modeling_glm4v.py at 03eac6f6d2af, repeat_interleave and rotate_half_llm), GLM-4.5V pairs (i, i + d/2)
  // (modeling_glm4v_moe.py at e78010218c7f). Both take the chunked row of the figure.
  {
    std::ofstream(path("glm41v.json")) << R"({"model_type": "glm4v", "text_config": {"model_type": "glm4v_text",
        "hidden_size": 4096, "num_attention_heads": 32, "partial_rotary_factor": 0.5, "rope_theta": 10000.0,
        "rope_scaling": {"type": "default", "mrope_section": [8, 12, 12]}}, "vision_config": {"model_type": "glm4v"}})";
    std::ofstream(path("glm45v.json")) << R"({"model_type": "glm4v_moe", "text_config": {"model_type": "glm4v_moe_text",
        "hidden_size": 4096, "num_attention_heads": 96, "head_dim": 128, "rope_theta": 10000.0,
        "rope_scaling": {"rope_type": "default", "mrope_section": [8, 12, 12]}}, "vision_config": {"model_type": "glm4v_moe"}})";
  }
  const Result a = rope_cli({"sections", "--config", path("glm41v.json")});
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_THAT(a.out, HasSubstr("chunked:     TTTTTTTT·HHHHHHHHHHHH·WWWWWWWWWWWW"));
  EXPECT_THAT(a.out, HasSubstr("the two channels of a pair in " + path("glm41v.json") + ": interleaved layout"));
  const Result b = rope_cli({"sections", "--config", path("glm45v.json")});
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_THAT(b.out, HasSubstr("chunked:     TTTTTTTT·HHHHHHHHHHHH·WWWWWWWWWWWW"));
  EXPECT_THAT(b.out, HasSubstr("the two channels of a pair in " + path("glm45v.json") + ": half layout"));
  // --sections alone names no model, and no pairing.
  EXPECT_THAT(rope_cli({"sections", "--sections", "8,12,12", "--dim", "64"}).out,
              Not(HasSubstr("the two channels of a pair")));
}

/// The pairs that the reference gives `rule` with `sections`, as axis letters "thwe".
std::string reference_owners(const std::string& rule, const std::string& sections) {
  const test::ReferenceCsv ref = test::read_reference("mrope_ownership.csv");
  std::string owners;
  for (const auto& row : ref.rows) {
    if (row.at(0) == rule && row.at(1) == sections) owners += "thwe"[std::stoi(row.at(3))];
  }
  return owners;
}

TEST_F(CmdSections, AGgufWithFourSlotsShowsLlamaCppsMapsNextToHfs) {
  // tests/io/write_gguf.py's qwen3-vl-8b.gguf: IMROPE, rope.dimension_sections [24, 20, 20, 0]. The CSV's four
  // maps equal mrope.py's ports of HF (A2), (A3) and of ggml_mrope_cache_init (MROPE, IMROPE (A4)).
  const std::string gguf = std::string(ROPE_GGUF_DIR) + "/qwen3-vl-8b.gguf";
  const Result r = rope_cli({"sections", "--config", gguf, "--csv", "-"});
  ASSERT_EQ(r.code, 0) << r.err;
  const test::ReferenceCsv got = test::parse_reference(r.out);
  ASSERT_EQ(got.header, (std::vector<std::string>{"pair", "theta", "wavelength", "chunked", "interleaved",
                                                  "llama_cpp_mrope", "llama_cpp_imrope"}));
  std::string columns[4];
  for (const auto& row : got.rows) {
    for (int c = 0; c < 4; ++c) columns[c] += row.at(static_cast<std::size_t>(3 + c));
  }
  EXPECT_EQ(columns[0], reference_owners("chunked", "24 20 20"));
  EXPECT_EQ(columns[1], reference_owners("interleaved", "24 20 20"));
  EXPECT_EQ(columns[2], reference_owners("ggml-mrope", "24 20 20 0"));
  EXPECT_EQ(columns[3], reference_owners("ggml-imrope", "24 20 20 0"));
  EXPECT_EQ(columns[3].substr(60), "teet");  // pairs 61 and 62 turn with the fourth slot (A4); HF: t
  EXPECT_EQ(columns[1].substr(60), "tttt");

  const Result text = rope_cli({"sections", "--config", gguf, "--png", path("s.png"), "--keep-script", path("s.gp")});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("llama.cpp's four slots t, h, w, e next to HF's maps of the first three\n"));
  EXPECT_THAT(text.out, HasSubstr("  e (extra)          2  61, 62                  1.52453e+07 … 1.94002e+07\n"));
  EXPECT_THAT(text.out, HasSubstr("IMROPE:      THW·THW"));
  EXPECT_THAT(text.out, HasSubstr("  MROPE (qwen2vl):  every pair as chunked\n"
                                  "  IMROPE (qwen3vl): as interleaved, except pairs 61, 62, which turn with e (A4)\n"));
  std::ifstream gp(path("s.gp"));
  const std::string script((std::istreambuf_iterator<char>(gp)), std::istreambuf_iterator<char>());
  EXPECT_THAT(script, HasSubstr("llama.cpp IMROPE (A4): qwen3vl  ← this model"));
  EXPECT_THAT(script, HasSubstr("e (extra)"));
  const Result zh = rope_cli({"sections", "--config", gguf, "--lang", "zh"});
  EXPECT_THAT(zh.out, HasSubstr("  IMROPE (qwen3vl): 与交错相同，但第 61, 62 对随 e 旋转(A4)\n"));
}

TEST_F(CmdSections, ThreeSectionsSayWhereLlamaCppLeavesHf) {
  // Qwen2-VL's [16, 24, 24] padded to [16, 24, 24, 0]: MROPE is HF's chunked map; IMROPE sends the pairs whose
  // sector is a multiple of 3 and at least 3·16 = 48 to e (A4): 48, 51, …, 63.
  const Result r = rope_cli({"sections", "--model", "qwen2-vl-7b"});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string imrope = reference_owners("ggml-imrope", "16 24 24 0");
  const std::string interleaved = reference_owners("interleaved", "16 24 24");
  std::vector<std::string> differ;
  for (std::size_t j = 0; j < imrope.size(); ++j) {
    if (imrope[j] != interleaved[j]) differ.push_back(std::to_string(j));
  }
  EXPECT_EQ(differ, (std::vector<std::string>{"48", "51", "54", "57", "60", "63"}));
  EXPECT_THAT(r.out,
              HasSubstr("llama.cpp, with the sections as a converted GGUF has them ([16, 24, 24, 0]):\n"
                        "  MROPE (qwen2vl):  every pair as chunked\n"
                        "  IMROPE (qwen3vl): as interleaved, except pairs 48, 51, …, 63, which turn with e (A4)\n"));
}

TEST_F(CmdSections, FourSectionsThatHfCannotReadShowLlamaCppsMapsOnly) {
  // [16, 24, 24, 8] over 72 pairs: a fourth section that is not 0, so no HF map; MROPE (A2) on sectors j mod 72.
  const Result r = rope_cli({"sections", "--sections", "16,24,24,8", "--dim", "144", "--csv", "-"});
  ASSERT_EQ(r.code, 0) << r.err;
  const test::ReferenceCsv got = test::parse_reference(r.out);
  ASSERT_EQ(got.header,
            (std::vector<std::string>{"pair", "theta", "wavelength", "llama_cpp_mrope", "llama_cpp_imrope"}));
  EXPECT_EQ(got.rows.at(63).at(3), "w");
  EXPECT_EQ(got.rows.at(64).at(3), "e");  // 16 + 24 + 24 = 64 ≤ j < 72
  EXPECT_EQ(got.rows.at(48).at(4), "e");  // (A4): sector 48, 48 mod 3 = 0 and 48 ≥ 3·16
  const Result text = rope_cli({"sections", "--sections", "16,24,24,8", "--dim", "144"});
  EXPECT_THAT(text.out,
              HasSubstr("llama.cpp's four slots t, h, w, e (HF's maps need three sections adding up to d/2)\n"));
  EXPECT_THAT(text.out, Not(HasSubstr("chunked:")));
}

TEST_F(CmdSections, BadSectionsAreOneLine) {
  expect_one_line_error(rope_cli({"sections", "--sections", "16,24"}), 2,
                        "--sections needs 3 numbers t,h,w (HF) or 4 t,h,w,e (llama.cpp) (got 2)");
  expect_one_line_error(rope_cli({"sections", "--sections", "0,0,0,0"}), 2, "mrope_section [0, 0, 0, 0] adds up to 0");
  expect_one_line_error(rope_cli({"sections", "--sections", "16,24,23"}), 2,
                        "mrope_section [16, 24, 23] adds up to 63, not rotary_dim / 2 = 64");
  expect_one_line_error(rope_cli({"sections", "--sections", "16,24.5,23.5"}), 2,
                        "--sections: every section is a whole number in 0 … 65536 (got 24.5)");
}

// --grid (issue 81): which pairs turn two patches of one row apart, under the model's own map; the w pairs are the
// models' own, written in tests/analysis/teaching/test_axes_grid.cpp from their code.
TEST_F(CmdSections, GridNamesTheWPairsAndDrawsTheGrid) {
  const Result r = rope_cli(
      {"sections", "--model", "qwen3-vl-8b", "--grid", "2x3x4", "--png", path("g.png"), "--keep-script", path("g.gp")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\nlatent grid 2×3×4 (frames × rows × columns), qwen3-vl-8b's own map (interleaved):\n"
                               "  patches (0, 0, 0) and (0, 0, 1) lie in one row: 20 of 64 pairs turn them apart, "
                               "just the w pairs\n  the pairs that turn them apart: 2, 5, …, 59\n"));
  const std::string script = read(path("g.gp"));
  EXPECT_THAT(script, HasSubstr("set size ratio -1"));
  // 24 cells, 64 pairs and 20 bars under the pairs that differ
  std::size_t rects = 0;
  for (std::size_t at = script.find(" rect from "); at != std::string::npos; at = script.find(" rect from ", at + 1))
    ++rects;
  EXPECT_EQ(rects, 24u + 64u + 20u);
  // With no model, Qwen3-VL's interleave of the sections; --patch moves the pair of patches.
  const Result typed = rope_cli(
      {"sections", "--sections", "16,24,24", "--base", "1000000", "--grid", "1x2x3", "--patch", "0,1,1", "--json"});
  ASSERT_EQ(typed.code, 0) << typed.err;
  const auto j = nlohmann::json::parse(typed.out);
  EXPECT_EQ(j["grid_map"], "interleaved");
  EXPECT_EQ(j["grid"]["first"], nlohmann::json({0, 1, 1}));
  EXPECT_EQ(j["grid"]["differing"].size(),
            21u);  // (A3) of [16, 24, 24] over 64 pairs: j mod 3 = 2, j < 72: 2, 5, …, 62
  // A video generator's latent grid: Wan's last 21 pairs; the header names its widths, not M-RoPE's two maps.
  const Result wan = rope_cli({"sections", "--model", "wan2.1-t2v-14b", "--grid", "2x3x4"});
  ASSERT_EQ(wan.code, 0) << wan.err;
  EXPECT_THAT(wan.out, testing::StartsWith("latent-grid RoPE of wan2.1-t2v-14b over 64 pairs, d = 128, base = 10000: "
                                           "pairs per axis [22, 21, 21] (t, h, w)\n"));
  EXPECT_THAT(wan.out, Not(HasSubstr("M-RoPE")));
  EXPECT_THAT(wan.out, Not(HasSubstr("chunked and interleaved")));
  EXPECT_THAT(wan.out, HasSubstr("  the pairs that turn them apart: 43 … 63\n"));
  // The patch's next row and frame, where the grid has them: the h pairs, then the t pairs.
  EXPECT_THAT(wan.out, HasSubstr("  next row (0, 1, 0): 21 of 64 pairs turn it apart, just the h pairs\n"
                                 "  the pairs that turn them apart: 22 … 42\n"
                                 "  next frame (1, 0, 0): 22 of 64 pairs turn it apart, just the t pairs\n"
                                 "  the pairs that turn them apart: 0 … 21\n"));
  const Result corner = rope_cli({"sections", "--model", "wan2.1-t2v-14b", "--grid", "2x3x4", "--patch", "1,2,1"});
  EXPECT_THAT(corner.out, Not(HasSubstr("next row")));
  EXPECT_THAT(corner.out, Not(HasSubstr("next frame")));
  const Result zh = rope_cli({"sections", "--model", "qwen3-vl-8b", "--grid", "2x3x4", "--lang", "zh"});
  ASSERT_EQ(zh.code, 0) << zh.err;
  EXPECT_THAT(zh.out, HasSubstr("潜变量网格 2×3×4"));
  EXPECT_THAT(zh.out, HasSubstr("下一行 (0, 1, 0)：64 对中有 20 对使两者转角不同，恰好是那些 h 对"));
}

TEST_F(CmdSections, BadGridsAreOneLineAndDrawNothing) {
  const std::string png = path("g.png");
  expect_one_line_error(rope_cli({"sections", "--grid", "2x3x1", "--png", png}), 2,
                        "the grid needs 2 columns or more (got 1)");
  expect_one_line_error(rope_cli({"sections", "--grid", "17x1x2"}), 2,
                        "--grid: the grid's frames, rows and columns must be in 1 … 16 (got 17)");
  expect_one_line_error(rope_cli({"sections", "--grid", "2x3"}), 2, "--grid");
  expect_one_line_error(rope_cli({"sections", "--patch", "0,0,0"}), 2, "--patch is a cell of --grid: give --grid too");
  expect_one_line_error(rope_cli({"sections", "--gif", path("g.gif")}), 2,
                        "--gif animates the latent grid's rotations: give --grid too");
  expect_one_line_error(rope_cli({"sections", "--grid", "2x3x4", "--patch", "0,0,3"}), 2,
                        "the patch (0, 0, 3) and its right neighbour must lie in the grid 2×3×4");
  expect_one_line_error(rope_cli({"sections", "--grid", "2x3x4", "--patch", "0,1"}), 2,
                        "--patch must be 3 whole numbers frame,row,column counted from 0 (got '0,1')");
  expect_one_line_error(rope_cli({"sections", "--vision", "pixtral", "--grid", "1x2x2"}), 2,
                        "--grid: a vision tower's patch has a row and a column, no frame");
  expect_one_line_error(
      rope_cli({"sections", "--sections", "16,24,24,8", "--dim", "144", "--grid", "1x2x2"}), 2,
      "--grid reads HF's maps of three sections t,h,w; llama.cpp's four slots [16, 24, 24, 8] have none");
  EXPECT_FALSE(std::filesystem::exists(png));
}

TEST_F(CmdSections, AModelsOwnSectionsAreNamedNotTheOptionNobodyTyped) {
  // A GGUF with one section blamed "--sections", which was not given (issue 37, item 10).
  const Result r = rope_cli({"sections", "--config", std::string(ROPE_GGUF_DIR) + "/one-section.gguf"});
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_THAT(r.err,
              HasSubstr(": the M-RoPE sections [64]: the maps need 3 sections, t,h,w (HF), or 4, t,h,w,e (llama.cpp)"));
  EXPECT_THAT(r.err, Not(HasSubstr("--sections")));
  // A factor of 1e308 ended in the figure's internal check "series 0 …: x[0] must be finite".
  expect_one_line_error(rope_cli({"sections", "--scaling", "linear", "--factor", "1e308", "--svg", path("s.svg")}), 2,
                        "no pair has a finite wavelength 2π/θ to draw (θ_0 = 1e-308)");
  EXPECT_EQ(rope_cli({"sections", "--scaling", "linear", "--factor", "1e300", "--svg", path("s.svg")}).code, 0);
}

}  // namespace
}  // namespace rope
