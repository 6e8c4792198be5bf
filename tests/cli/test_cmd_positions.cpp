// rope positions: HF's get_rope_index for text + image + video sequences against the NumPy port
// tests/reference/positions.py, the table, CSV, figure, Chinese and bad input.
#include "rope/cli/cli.hpp"

#include <filesystem>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "rope/core/error.hpp"
#include "rope/models/mrope_positions.hpp"
#include "support/cli_harness.hpp"
#include "support/reference_data.hpp"

namespace rope {
namespace {

using test::expect_one_line_error;
using test::Result;
using test::rope_cli;
using ::testing::HasSubstr;

class CmdPositions : public test::TempDirTest {};

/// The CSV rows "token,t,h,w" of one case of tests/reference/positions_cases.csv.
std::string reference_case(const std::string& name) {
  const test::ReferenceCsv ref = test::read_reference("positions_cases.csv");
  std::string out;
  for (const auto& row : ref.rows) {
    if (row.at(0) == name) out += row.at(1) + "," + row.at(2) + "," + row.at(3) + "," + row.at(4) + "\n";
  }
  return out;
}

/// Columns token,t,h,w of rope's CSV (token,segment,kind,t,h,w).
std::string token_thw(const std::string& csv) {
  std::istringstream in(csv);
  std::string line, out;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    const auto c = test::split(line, ',');
    out += c.at(0) + "," + c.at(3) + "," + c.at(4) + "," + c.at(5) + "\n";
  }
  return out;
}

// Exact integers: (Q1)-(Q4) and HF's arange/expand/flatten give the same ids. One test per case of
// tests/reference/positions_cases.csv: its name there, and the arguments of rope positions that build it.
struct PositionsReferenceCase {
  std::string name;
  std::vector<std::string> args;
};

class CmdPositionsNumpyPort : public ::testing::TestWithParam<PositionsReferenceCase> {};

TEST_P(CmdPositionsNumpyPort, EqualsGetRopeIndex) {
  const auto& [name, args] = GetParam();
  std::vector<std::string> a{"positions"};
  a.insert(a.end(), args.begin(), args.end());
  a.insert(a.end(), {"--csv", "-"});
  const Result r = rope_cli(a);
  ASSERT_EQ(r.code, 0) << name << r.err;
  const std::string want = reference_case(name);
  ASSERT_FALSE(want.empty()) << name;
  EXPECT_EQ(token_thw(r.out), want) << name;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, CmdPositionsNumpyPort,
    ::testing::Values(
        PositionsReferenceCase{"text5-image1x4x6-text3", {"--text", "5", "--image", "1x4x6", "--text", "3"}},
        PositionsReferenceCase{"text2-video3x4x2-text1", {"--text", "2", "--video", "3x4x2", "--text", "1"}},
        PositionsReferenceCase{
            "qwen2.5-text2-video4x2x4-tps2-spg0.5",
            {"--text", "2", "--video", "4x2x4", "--text", "2", "--tokens-per-second", "2", "--second-per-grid", "0.5"}},
        PositionsReferenceCase{
            "qwen2.5-text1-image1x4x4-video2x2x2-tps4",
            {"--text", "1", "--image", "1x4x4", "--video", "2x2x2", "--text", "1", "--tokens-per-second", "4"}},
        PositionsReferenceCase{"image2x6x2-merge1", {"--image", "2x6x2", "--merge-size", "1"}},
        // (Q3) in float32 as HF's tensors: float64 would give 20 for frame 3 here and 114 for frame 69 below.
        PositionsReferenceCase{"qwen2.5-text1-video4x2x2-tps10-spg0.7-text1",
                               {"--text", "1", "--video", "4x2x2", "--text", "1", "--tokens-per-second", "10",
                                "--second-per-grid", "0.7"}},
        PositionsReferenceCase{
            "qwen2.5-video70x2x2-tps25-spg1/15",
            {"--video", "70x2x2", "--tokens-per-second", "25", "--second-per-grid", "0.06666666666666667"}},
        // (Q5): the decode tokens after each prefill at index + rope_deltas (the port's decode_ids, HF's forward).
        PositionsReferenceCase{"decode-text5-image1x4x6-text3",
                               {"--text", "5", "--image", "1x4x6", "--text", "3", "--decode", "3"}},
        PositionsReferenceCase{"decode-text6", {"--text", "6", "--decode", "2"}},
        PositionsReferenceCase{"decode-qwen2.5-text2-video4x2x4-tps2-spg0.5",
                               {"--text", "2", "--video", "4x2x4", "--text", "2", "--tokens-per-second", "2",
                                "--second-per-grid", "0.5", "--decode", "4"}},
        PositionsReferenceCase{"decode-qwen2.5-text1-video3x2x2-tps4-spg2-text1",
                               {"--text", "1", "--video", "3x2x2", "--text", "1", "--tokens-per-second", "4",
                                "--second-per-grid", "2", "--decode", "2"}},
        // (Q3'): Qwen3-VL's video split into frames, each after its timestamp's text (get_rope_index_qwen3).
        PositionsReferenceCase{
            "decode-qwen3-text2-video3x4x4-frame4-text2",
            {"--text", "2", "--video", "3x4x4", "--frame-text", "4", "--text", "2", "--decode", "3"}},
        PositionsReferenceCase{"decode-qwen3-image1x4x4-video2x2x4-frame0",
                               {"--image", "1x4x4", "--video", "2x2x4", "--frame-text", "0", "--decode", "1"}},
        // (B1): Bailing (sglang bailing_mrope.py), the port's get_rope_index_bailing on a token list.
        PositionsReferenceCase{"bailing-text3-image1x4x6-text2",
                               {"--bailing", "--text", "3", "--image", "1x4x6", "--text", "2"}},
        PositionsReferenceCase{"bailing-image1x6x4-text2", {"--bailing", "--image", "1x6x4", "--text", "2"}},
        PositionsReferenceCase{"bailing-text2-video3x4x4-text1-decode2",
                               {"--bailing", "--text", "2", "--video", "3x4x4", "--text", "1", "--decode", "2"}},
        PositionsReferenceCase{
            "bailing-text1-image1x2x2-video2x4x6-merge1",
            {"--bailing", "--text", "1", "--image", "1x2x2", "--video", "2x4x6", "--merge-size", "1"}},
        PositionsReferenceCase{
            "bailing-text2-video2x4x4-frame3-text1-decode1",
            {"--bailing", "--text", "2", "--video", "2x4x4", "--frame-text", "3", "--text", "1", "--decode", "1"}}),
    [](const auto& info) { return test::case_name(info.param.name); });

TEST_F(CmdPositions, DecodePrintsRopeDeltasAndTheDecodeRows) {
  // 14 tokens whose ids end at 10: rope_deltas 11 − 14 = −3; decode token 14 is at 11, token 16 at 13.
  const Result r = rope_cli({"positions", "--text", "5", "--image", "1x4x6", "--text", "3", "--decode", "3"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("14 tokens\n"));
  EXPECT_THAT(r.out, HasSubstr("rope_deltas = -3: the largest id + 1 − the prefill's 14 tokens (Q5)\n"));
  EXPECT_THAT(r.out, HasSubstr("is at t = h = w = i − 3: check it with --positions and --rope-delta -3\n"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("\n +16 +3 +decode +13 +13 +13\n"));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("the next token would start")));
  const Result csv = rope_cli({"positions", "--text", "2", "--image", "1x2x2", "--decode", "1", "--csv", "-"});
  EXPECT_THAT(csv.out, HasSubstr("\n3,2,decode,3,3,3\n"));  // 3 tokens, ids up to 2: δ = 0
  const Result zh =
      rope_cli({"positions", "--text", "5", "--image", "1x4x6", "--text", "3", "--decode", "1", "--lang", "zh"});
  ASSERT_EQ(zh.code, 0) << zh.err;
  EXPECT_THAT(zh.out, HasSubstr("rope_deltas = -3"));
  EXPECT_THAT(zh.out, ::testing::Not(HasSubstr("the largest id")));
  expect_one_line_error(rope_cli({"positions", "--text", "3", "--decode", "-1"}), 2, "--decode must be between 0");
  expect_one_line_error(rope_cli({"positions", "--text", "3", "--decode", "100001"}), 2, "--decode");
}

TEST_F(CmdPositions, BailingFromItsConfigAndItsSentences) {
  // A Bailing VL config (model_type bailing_moe_v3_vl) selects (B1); its merge size from vision_config, the frames
  // split by the language model's use_interleaved_frame_timestamp.
  const std::string config = path("bailing.json");
  std::ofstream(config) << R"({"model_type": "bailing_moe_v3_vl", "vision_config": {"spatial_merge_size": 2},
      "text_config": {"model_type": "bailing_hybrid", "hidden_size": 2048, "num_attention_heads": 16,
      "use_interleaved_frame_timestamp": true}})";
  const Result by_config = rope_cli({"positions", "--config", config, "--text", "2", "--video", "2x4x4", "--frame-text",
                                     "3", "--text", "1", "--decode", "1", "--csv", "-"});
  ASSERT_EQ(by_config.code, 0) << by_config.err;
  EXPECT_EQ(token_thw(by_config.out), reference_case("bailing-text2-video2x4x4-frame3-text1-decode1"));
  const Result text = rope_cli({"positions", "--bailing", "--text", "3", "--image", "1x4x6", "--text", "2"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("as sglang's Bailing (Ling/Ming) rule builds them"));
  EXPECT_THAT(text.out, HasSubstr("the next token would start at 6 (the largest time id + 1, (B1))"));
  const Result decode = rope_cli({"positions", "--bailing", "--text", "3", "--image", "1x4x6", "--decode", "1"});
  EXPECT_THAT(decode.out, HasSubstr("rope_deltas = -5: the largest time id + 1"));
  expect_one_line_error(rope_cli({"positions", "--bailing", "--text", "2", "--tokens-per-second", "2"}), 2,
                        "Bailing's position ids have no time scaling");
  std::ofstream(config) << R"({"model_type": "bailing_moe_v3_vl", "text_config": {"model_type": "bailing_hybrid",
      "hidden_size": 2048, "num_attention_heads": 16}})";
  const Result split = rope_cli({"positions", "--config", config, "--video", "2x4x4", "--frame-text", "3"});
  expect_one_line_error(split, 2, "keeps a video one block");
  const Result assumed = rope_cli({"positions", "--config", config, "--image", "1x4x4"});
  EXPECT_THAT(assumed.out, HasSubstr("spatial_merge_size: 2 (not in the file: assumed"));
}

TEST_F(CmdPositions, QwenThreeVlSplitsAVideoIntoFrames) {
  // The model's rule with --frame-text: the same ids as --image per frame after --text.
  const Result split = rope_cli(
      {"positions", "--model", "qwen3-vl-8b", "--text", "1", "--video", "2x2x2", "--frame-text", "3", "--csv", "-"});
  const Result frames = rope_cli(
      {"positions", "--text", "1", "--text", "3", "--image", "1x2x2", "--text", "3", "--image", "1x2x2", "--csv", "-"});
  ASSERT_EQ(split.code, 0) << split.err;
  EXPECT_EQ(token_thw(split.out), token_thw(frames.out));
  const Result shown = rope_cli({"positions", "--model", "qwen3-vl-8b", "--video", "2x2x2", "--frame-text", "3"});
  EXPECT_THAT(shown.out,
              HasSubstr("= its block's start, each video frame a block after 3 text tokens (Qwen3-VL, (Q3'))"));
  expect_one_line_error(rope_cli({"positions", "--model", "qwen2-vl-7b", "--video", "2x2x2", "--frame-text", "3"}), 2,
                        "(Qwen2-VL) keeps a video one block");
  expect_one_line_error(
      rope_cli({"positions", "--video", "2x2x2", "--frame-text", "3", "--tokens-per-second", "2"}), 2,
      "--frame-text splits a video into frames after timestamps (Qwen3-VL); --tokens-per-second scales");
  expect_one_line_error(rope_cli({"positions", "--video", "2x2x2", "--frame-text", "-1"}), 2, "--frame-text");
}

TEST_F(CmdPositions, TheTimeIndexIsHfsFloat32Product) {
  // τ(3) = float32(float32(3 · float32(0.7)) · 10) = 21 (float32(0.7) = 0.699999988, 3 · it = 2.0999999642 →
  // 2.1 in float32 = 2.0999999046, · 10 = 20.999999046 → 21.0 in float32); the video starts at 1, so frame 3 is
  // 1 + 21 = 22 and the closing text 23 (Q4).
  const Result r = rope_cli({"positions", "--text", "1", "--video", "4x2x2", "--text", "1", "--tokens-per-second", "10",
                             "--second-per-grid", "0.7", "--csv", "-"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\n4,1,video,22,1,1\n5,2,text,23,23,23\n"));
}

TEST_F(CmdPositions, TheWorkedExampleByHand) {
  // 5 text tokens 0 … 4; the image 1x4x6 is 1×2×3 merged tokens starting at 5: t = 5, h = 5 … 6,
  // w = 5 … 7; the text after it resumes at max + 1 = 8 (Q4).
  const Result r = rope_cli({"positions", "--text", "5", "--image", "1x4x6", "--text", "3"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("sequence: text 5, image 1x4x6 → 1×2×3 tokens, text 3; 14 tokens"));
  EXPECT_THAT(r.out, HasSubstr("spatial merge size 2 (the value of every Qwen2-VL, Qwen2.5-VL and Qwen3-VL config)"));
  EXPECT_THAT(r.out, HasSubstr("     10        1  image          5         6         7\n"));
  EXPECT_THAT(r.out, HasSubstr("     11        2  text           8         8         8\n"));
  EXPECT_THAT(r.out, HasSubstr("the next token would start at 11"));
  const Result zh = rope_cli({"positions", "--text", "5", "--image", "1x4x6", "--text", "3", "--lang", "zh"});
  ASSERT_EQ(zh.code, 0) << zh.err;
  EXPECT_THAT(zh.out, HasSubstr("序列：文本 5, 图像 1x4x6 → 1×2×3 个词元, 文本 3；共 14 个词元"));
  EXPECT_THAT(zh.out, HasSubstr("下一个词元将从 11 开始"));
}

TEST_F(CmdPositions, DrawsTheIdsAndWritesTheCsv) {
  const Result r = rope_cli({"positions", "--text", "5", "--image", "1x4x6", "--text", "3", "--png", path("p.png"),
                             "--csv", path("p.csv"), "--keep-script", path("p.gp")});
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream png(path("p.png"), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(png)), std::istreambuf_iterator<char>());
  EXPECT_EQ(test::png_size(bytes), (std::pair<std::uint32_t, std::uint32_t>{1200, 800}));
  // t, h, w as rings: point sizes 2.4, 1.6, 0.8 in that order, so the smaller dot of an equal id is on top.
  std::ifstream gp(path("p.gp"));
  const std::string script((std::istreambuf_iterator<char>(gp)), std::istreambuf_iterator<char>());
  const auto t_at = script.find("pt 7 ps 2.4 ");
  const auto h_at = script.find("pt 7 ps 1.6 ");
  const auto w_at = script.find("pt 7 ps 0.8 ");
  ASSERT_NE(t_at, std::string::npos) << script;
  ASSERT_NE(h_at, std::string::npos) << script;
  ASSERT_NE(w_at, std::string::npos) << script;
  EXPECT_LT(t_at, h_at);
  EXPECT_LT(h_at, w_at);
  std::ifstream csv(path("p.csv"));
  const std::string text((std::istreambuf_iterator<char>(csv)), std::istreambuf_iterator<char>());
  EXPECT_EQ(token_thw(text), reference_case("text5-image1x4x6-text3"));
}

TEST_F(CmdPositions, AModelGivesItsOwnRules) {
  // qwen2.5-vl-7b's vision_config: merge 2, tokens_per_second 2. The video 4x2x4 is 4×1×2 tokens from s = 2
  // with τ(t) = ⌊t · 1 s · 2⌋ = 0, 2, 4, 6 (Q3): (2, 2, 2), (2, 2, 3), (4, 2, 2) … (8, 2, 3); the text after
  // it resumes at 8 + 1 = 9 (Q4). The same ids as the flags typed by hand.
  const std::vector<std::string> seq{"--text", "2", "--video", "4x2x4", "--text", "2"};
  std::vector<std::string> a{"positions", "--model", "qwen2.5-vl-7b"};
  a.insert(a.end(), seq.begin(), seq.end());
  const Result r = rope_cli(a);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("the rules of qwen2.5-vl-7b (Qwen2.5-VL get_rope_index):\n"
                               "  spatial_merge_size: 2 (vision_config.spatial_merge_size)\n"
                               "  tokens_per_second: 2 (vision_config.tokens_per_second)\n"));
  EXPECT_THAT(r.out, HasSubstr("      8        1  video          8         2         2\n"));
  EXPECT_THAT(r.out, HasSubstr("     10        2  text           9         9         9\n"));
  a.insert(a.end(), {"--csv", "-"});
  std::vector<std::string> typed{"positions", "--tokens-per-second", "2", "--merge-size", "2", "--csv", "-"};
  typed.insert(typed.end(), seq.begin(), seq.end());
  EXPECT_EQ(rope_cli(a).out, rope_cli(typed).out);
  // A typed value replaces the config's, and says so.
  const Result over = rope_cli({"positions", "--model", "qwen2.5-vl-7b", "--image", "1x2x2", "--merge-size", "1"});
  ASSERT_EQ(over.code, 0) << over.err;
  EXPECT_THAT(over.out, HasSubstr("  spatial_merge_size: 1 (--merge-size on the command line, over the config's 2)\n"));
  EXPECT_THAT(over.out, HasSubstr("image 1x2x2 → 1×2×2 tokens"));
  // A config file: Qwen2-VL, merge 1 from its vision_config, no time scaling; Chinese.
  const std::string cfg = path("config.json");
  std::ofstream(cfg) << R"({"model_type": "qwen2_vl", "head_dim": 128, "vision_config": {"spatial_merge_size": 1}})";
  const Result file = rope_cli({"positions", "--config", cfg, "--video", "2x1x1", "--lang", "zh"});
  ASSERT_EQ(file.code, 0) << file.err;
  EXPECT_THAT(file.out, HasSubstr("  spatial_merge_size: 1(vision_config.spatial_merge_size)\n"));
  EXPECT_THAT(file.out, HasSubstr("时间编号 = 帧序号（Qwen2-VL）"));
  EXPECT_THAT(file.out, HasSubstr("      1        0  视频           1         0         0\n"));
  // Qwen3-VL: images as Qwen2-VL's; its video frames are refused with what to give instead.
  const Result three = rope_cli({"positions", "--model", "qwen3-vl-8b", "--text", "1", "--image", "1x2x2"});
  ASSERT_EQ(three.code, 0) << three.err;
  EXPECT_THAT(three.out, HasSubstr("      1        1  image          1         1         1\n"));
}

TEST_F(CmdPositions, ModelRefusalsAreOneLine) {
  expect_one_line_error(
      rope_cli({"positions", "--model", "qwen3-vl-8b", "--video", "2x2x2"}), 2,
      "--video: qwen3-vl-8b (Qwen3-VL) splits a video into its frames, each its own 1xHxW block after a "
      "timestamp text: give --frame-text N, the timestamp's tokens before each frame, or each frame as --image 1xHxW "
      "after --text N");
  expect_one_line_error(
      rope_cli({"positions", "--model", "qwen2-vl-7b", "--video", "2x2x2", "--tokens-per-second", "2"}), 2,
      "--tokens-per-second: qwen2-vl-7b (Qwen2-VL) has no time scaling: its video time index is the frame index");
  expect_one_line_error(rope_cli({"positions", "--model", "llama-3.1-8b", "--text", "3"}), 2,
                        "llama-3.1-8b (model_type 'llama') has no M-RoPE position ids rope knows");
  expect_one_line_error(rope_cli({"positions", "--model", "qwen2-vl-7b", "--config", path("c.json"), "--text", "3"}), 2,
                        "give --config FILE or --model NAME, not both");
  expect_one_line_error(rope_cli({"positions", "--model", "no-such", "--text", "3"}), 2, "no-such");
  const std::string bad = path("bad.json");
  std::ofstream(bad) << R"({"model_type": "qwen2_vl", "head_dim": 128, "vision_config": {"spatial_merge_size": 0}})";
  expect_one_line_error(rope_cli({"positions", "--config", bad, "--text", "3"}), 2,
                        "vision_config.spatial_merge_size: must be positive, got 0");
  const Result zh = rope_cli({"positions", "--model", "qwen3-vl-8b", "--video", "2x2x2", "--lang", "zh"});
  EXPECT_EQ(zh.code, 2);
  EXPECT_THAT(zh.err, HasSubstr("把视频拆成各帧"));
  // A GGUF's language model does not carry the vision rules: it says where they are, not "no position ids".
  const std::string gguf = std::string(ROPE_GGUF_DIR) + "/qwen3-vl-8b.gguf";  // tests/io/write_gguf.py
  expect_one_line_error(
      rope_cli({"positions", "--config", gguf, "--image", "1x4x4"}), 2,
      "qwen3-vl-8b.gguf is a GGUF language model (architecture qwen3vl): the rules of its position ids "
      "(spatial_merge_size, and tokens_per_second for Qwen2.5-VL) are in the vision model's mmproj file");
  const Result gguf_zh = rope_cli({"positions", "--config", gguf, "--image", "1x4x4", "--lang", "zh"});
  EXPECT_THAT(gguf_zh.err, HasSubstr("在视觉模型的 mmproj 文件里"));
}

TEST_F(CmdPositions, BadInputIsOneLine) {
  expect_one_line_error(rope_cli({"positions", "--image", "1x3x4"}), 2,
                        "image grid 1x3x4: height 3 is not divisible by the spatial merge size 2");
  expect_one_line_error(rope_cli({"positions", "--image", "1x4"}), 2,
                        "--image must be a grid TxHxW of three whole numbers, e.g. 1x4x6 (got '1x4')");
  expect_one_line_error(rope_cli({"positions", "--image", "0x4x4"}), 2,
                        "--image: every side of the grid must be between 1 and 65536 (got 0)");
  expect_one_line_error(rope_cli({"positions", "--text", "0"}), 2,
                        "--text must be between 1 and 1000000 tokens (got 0)");
  expect_one_line_error(rope_cli({"positions"}), 2, "the sequence is empty");
  expect_one_line_error(rope_cli({"positions", "--image", "1000x1000x1000"}), 2,
                        "the sequence has 250000000 tokens up to its segment 1, more than the limit of 1000000");
  expect_one_line_error(rope_cli({"positions", "--text", "3", "--second-per-grid", "2"}), 2,
                        "--second-per-grid scales video time (Qwen2.5-VL): give it with --tokens-per-second");
  expect_one_line_error(
      rope_cli({"positions", "--video", "2x2x2", "--tokens-per-second", "2", "--second-per-grid", "-2"}), 2,
      "--second-per-grid must be between 0 and 1e+06 (got -2)");
  expect_one_line_error(rope_cli({"positions", "--video", "4x2x2", "--tokens-per-second", "1e308"}), 2,
                        "--tokens-per-second must be > 0 and at most 1e+06 (got 1e+308)");
  expect_one_line_error(rope_cli({"positions", "--text", "3", "--merge-size", "0"}), 2,
                        "--merge-size must be between 1 and 64 (got 0)");
  expect_one_line_error(rope_cli({"positions", "--text", "3", "--tokens-per-second", "-1"}), 2,
                        "--tokens-per-second must be > 0 and at most 1e+06 (got -1)");
  // 0 as a config's tokens_per_second: refused on the command line too (every frame would be time 0).
  expect_one_line_error(rope_cli({"positions", "--video", "4x2x2", "--tokens-per-second", "0"}), 2,
                        "--tokens-per-second must be > 0 and at most 1e+06 (got 0)");
  EXPECT_THAT([] { parse_grid("1x\x01x2", "--image"); },
              ::testing::ThrowsMessage<InvalidArgument>(HasSubstr("--image")));
  // A missing side names the whole grid, not an empty integer.
  expect_one_line_error(rope_cli({"positions", "--image", "1x4x"}), 2,
                        "--image must be a grid TxHxW of three whole numbers, e.g. 1x4x6 (got '1x4x')");
  expect_one_line_error(rope_cli({"positions", "--image", "x4x6"}), 2,
                        "--image must be a grid TxHxW of three whole numbers, e.g. 1x4x6 (got 'x4x6')");
}

}  // namespace
}  // namespace rope

namespace rope {
namespace {

/// A HunyuanVL config (data/configs/hunyuan-vl.json's keys, with a vision_config) and an openPangu-VL one
/// (data/configs/openpangu-vl.json's keys) in the test's directory; the path printed is replaced by CONFIG.
class CmdPositionsVl : public test::TempDirTest {
 protected:
  std::string hunyuan_config() {
    const std::string p = path("hunyuan_vl.json");
    std::ofstream(p) << R"({"model_type": "hunyuan_vl", "hidden_size": 1024, "num_attention_heads": 16,
        "head_dim": 128, "max_position_embeddings": 32768, "rope_theta": 10000.0, "vision_config":
        {"spatial_merge_size": 2}, "rope_scaling": {"type": "xdrope", "alpha": 1000.0, "factor": 1.0,
        "xdrope_section": [16, 16, 16, 16]}})";
    return p;
  }
  std::string pangu_config() {
    const std::string p = path("openpangu_vl.json");
    std::ofstream(p) << R"({"model_type": "openpangu_vl_text", "hidden_size": 4096, "num_attention_heads": 32,
        "head_dim": 128, "max_position_embeddings": 32768, "rope_parameters": {"rope_type": "openpangu",
        "rope_theta": 5000000.0, "mrope_section": [24, 20, 20], "mrope_interleaved": true}})";
    return p;
  }
  static std::string named(std::string text, const std::string& config) {
    for (std::size_t at; (at = text.find(config)) != std::string::npos;) text.replace(at, config.size(), "CONFIG");
    return text;
  }
};

TEST_F(CmdPositionsVl, HunyuanVlsFourStreamsInBothLanguages) {
  // (X1): text 0; the image's start token 1 and an image token 2 at their index; one row of 2 + 1 from 3, the newline
  // last (w = 2); an image token 6, the end token 7; text 8; the decode token 9 at 9 on every stream (X2).
  const std::string config = hunyuan_config();
  const std::vector<std::string> a{"positions", "--config", config, "--text",   "1", "--image",
                                   "1x2x4",     "--text",   "1",    "--decode", "1"};
  const Result en = rope_cli(a);
  ASSERT_EQ(en.code, 0) << en.err;
  EXPECT_EQ(named(en.out, config),
            R"(XD-RoPE ids (p, w, h, t) as vLLM's get_xdrope_input_positions builds them (docs/multi-axis.md (X1))
the rules of CONFIG (HunyuanVL):
  spatial_merge_size: 2 (vision_config.spatial_merge_size)
spatial merge size 2; an image is its start token, an image token, H/2 rows of W/2 + 1 tokens
(the last of each row its newline), an image token and its end token
sequence: text 1, image 1x2x4 → 1×(2 + 1) + 4 = 7 tokens, text 1; 9 tokens
an image's start and end tokens are counted in the image, not in --text

  token  segment  kind           p         w         h         t
      0        0  text           0         0         0         0
      1        1  image          1         1         1         1
      2        1  image          2         2         2         2
      3        1  image          3         0         0         0
      4        1  image          4         1         0         0
      5        1  image          5         2         0         0
      6        1  image          6         6         6         6
      7        1  image          7         7         7         7
      8        2  text           8         8         8         8
      9        3  decode         9         9         9         9

decode token i (i ≥ 9) is at p = w = h = t = i: XD-RoPE is used in prefill only (X2),
a decode step turns every pair with p alone
)");
  std::vector<std::string> z = a;
  z.insert(z.end(), {"--lang", "zh"});
  const Result zh = rope_cli(z);
  ASSERT_EQ(zh.code, 0) << zh.err;
  EXPECT_EQ(named(zh.out, config),
            R"(按 vLLM 的 get_xdrope_input_positions 构造的 XD-RoPE 位置编号 (p, w, h, t)（docs/multi-axis.md (X1)）
CONFIG 的规则（HunyuanVL）：
  spatial_merge_size: 2(vision_config.spatial_merge_size)
空间合并尺寸 2；一张图像依次是：它的起始词元、一个图像词元、
H/2 行每行 W/2 + 1 个词元（每行最后一个是换行词元）、一个图像词元和它的结束词元
序列：文本 1, 图像 1x2x4 → 1×(2 + 1) + 4 = 7 个词元, 文本 1；共 9 个词元
图像的起始词元和结束词元计入图像，不计入 --text

   词元     片段  类型           p         w         h         t
      0        0  文本           0         0         0         0
      1        1  图像           1         1         1         1
      2        1  图像           2         2         2         2
      3        1  图像           3         0         0         0
      4        1  图像           4         1         0         0
      5        1  图像           5         2         0         0
      6        1  图像           6         6         6         6
      7        1  图像           7         7         7         7
      8        2  文本           8         8         8         8
      9        3  解码           9         9         9         9

解码词元 i（i ≥ 9）位于 p = w = h = t = i：XD-RoPE 只用于预填充 (X2)，
解码的每一步都只按 p 转动每个维度对
)");
  std::vector<std::string> c = a;
  c.insert(c.end(), {"--csv", "-"});
  EXPECT_EQ(rope_cli(c).out,
            "token,segment,kind,p,w,h,t\n0,0,text,0,0,0,0\n1,1,image,1,1,1,1\n2,1,image,2,2,2,2\n3,1,image,3,0,0,0\n"
            "4,1,image,4,1,0,0\n5,1,image,5,2,0,0\n6,1,image,6,6,6,6\n7,1,image,7,7,7,7\n8,2,text,8,8,8,8\n"
            "9,3,decode,9,9,9,9\n");
}

TEST_F(CmdPositionsVl, OpenPanguSplitsAVideoIntoItsFrames) {
  // (P1): text 0, 1; frame 0 (2 × 2 merged) from 2, its end token at 2 + 2 = 4, the next start at 5, frame 1 from 6.
  const std::string config = pangu_config();
  const Result r = rope_cli({"positions", "--config", config, "--text", "2", "--video", "2x4x4", "--text", "1"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(named(r.out, config),
              HasSubstr("M-RoPE position ids (t, h, w) as vLLM's openPangu-VL code builds them (docs/multi-axis.md "
                        "(P1))\nthe rules of CONFIG (vLLM's openPangu-VL position ids):\n"
                        "  spatial_merge_size: 2 (not in the file: assumed, as every Qwen-VL config says; vLLM's "
                        "openpangu_vl.py reads vision_config.spatial_merge_size without a default)\n"
                        "  tokens_per_second: 1 (not in the file: vLLM's getattr(vision_config, \"tokens_per_second\", "
                        "1.0))\nspatial merge size 2; time index ⌊t · 1⌋ for images, video frames split (openPangu-VL, "
                        "(P1))\n"));
  EXPECT_THAT(r.out, HasSubstr("      6        1  text           4         4         4\n"));  // frame 0's end token
  EXPECT_THAT(r.out, HasSubstr("      8        1  video          6         6         6\n"));
  EXPECT_THAT(r.out, HasSubstr("the next token would start at 9 (the largest id + 1, (Q4))\n"));
  const Result zh =
      rope_cli({"positions", "--config", config, "--text", "2", "--video", "2x4x4", "--text", "1", "--lang", "zh"});
  ASSERT_EQ(zh.code, 0) << zh.err;
  EXPECT_THAT(zh.out, HasSubstr("按 vLLM 的 openPangu-VL 代码构造的 M-RoPE 位置编号 (t, h, w)"));
  EXPECT_THAT(zh.out, HasSubstr("图像为 ⌊t · 1⌋，视频按帧拆分（openPangu-VL，(P1)）"));
}

TEST_F(CmdPositionsVl, ThreeXdropeSectionsAreRefusedWhenRead) {
  // vLLM stacks [w, h, t] for three sections; rope's reader takes HunyuanVL's four streams alone, so rope positions
  // never gives four streams where the engine builds three.
  const std::string config = path("hunyuan_vl_3.json");
  std::ofstream(config) << R"({"model_type": "hunyuan_vl", "head_dim": 128, "rope_theta": 10000.0,
      "rope_scaling": {"type": "xdrope", "alpha": 1000.0, "factor": 1.0, "xdrope_section": [16, 24, 24]}})";
  expect_one_line_error(
      rope_cli({"positions", "--config", config, "--image", "1x4x4"}), 2,
      "xdrope_section [16, 24, 24]: HunyuanVL's XD-RoPE reads 4 streams (p, w, h, t), one section each");
}

struct VlRefusal {
  bool hunyuan;
  std::vector<std::string> args;
  std::string says;
};

class CmdPositionsVlRefuses : public CmdPositionsVl, public ::testing::WithParamInterface<VlRefusal> {};

TEST_P(CmdPositionsVlRefuses, OneLineNamingTheEnginesCode) {
  const VlRefusal& c = GetParam();
  const std::string config = c.hunyuan ? hunyuan_config() : pangu_config();
  std::vector<std::string> a{"positions", "--config", config};
  a.insert(a.end(), c.args.begin(), c.args.end());
  const Result r = rope_cli(a);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_EQ(named(r.err, config), "rope: " + c.says + "\n");
}

INSTANTIATE_TEST_SUITE_P(
    Cases, CmdPositionsVlRefuses,
    ::testing::Values(
        VlRefusal{
            true,
            {"--text", "1", "--video", "2x4x4"},
            "--video: HunyuanVL has images alone: vLLM's get_xdrope_input_positions (hunyuan_vision.py) builds no "
            "video position ids"},
        VlRefusal{true,
                  {"--image", "1x4x4", "--tokens-per-second", "2"},
                  "--tokens-per-second: CONFIG (HunyuanVL) has images alone, with no time scaling and no frames "
                  "(vLLM's get_xdrope_input_positions in hunyuan_vision.py)"},
        VlRefusal{true,
                  {"--image", "1x4x4", "--frame-text", "2"},
                  "--frame-text: CONFIG (HunyuanVL) has images alone, with no time scaling and no frames (vLLM's "
                  "get_xdrope_input_positions in hunyuan_vision.py)"},
        VlRefusal{true,
                  {"--image", "1x4x4", "--second-per-grid", "2"},
                  "--second-per-grid: CONFIG (HunyuanVL) has no seconds per grid: its position ids read no video time"},
        VlRefusal{true,
                  {"--image", "2x4x4"},
                  "image grid 2x4x4: a HunyuanVL image is one frame, T = 1 (vLLM's get_xdrope_input_positions reads "
                  "H and W alone)"},
        VlRefusal{true,
                  {"--image", "1x4x6", "--merge-size", "4"},
                  "image grid 1x4x6: width 6 is not divisible by the spatial merge size 4"},
        VlRefusal{true,
                  {"--text", "999999", "--image", "1x2x2"},
                  "the sequence has 1000005 tokens up to its segment 2, more than the limit of 1000000"},
        VlRefusal{false,
                  {"--video", "2x4x4", "--frame-text", "2"},
                  "--frame-text: CONFIG (openPangu-VL) splits a video into its frames with two tokens between two "
                  "frames (a frame's end, the next one's start) and none before the first: nothing to give"},
        VlRefusal{false,
                  {"--video", "2x4x4", "--second-per-grid", "2"},
                  "--second-per-grid: CONFIG (openPangu-VL) has no seconds per grid: its position ids read no video "
                  "time"}),
    [](const auto& info) { return "case" + std::to_string(info.index); });

// The round trip (issue 79 item 3): for every multi-axis model whose ids rope positions builds, its CSV read back by
// rope check and rope identify --axis-positions by the columns' names, on a dump that the NumPy ports of the model's
// own code turned at the ids they build (tests/reference/positions_round_trip.py, written at build time beside
// ROPE_VARIANT_DUMPS). HunyuanVL's p,w,h,t columns are its four streams in that order: check refused them, and
// identify read them as t,h,w, before the header was read by its names.
struct RoundTripCase {
  std::string name;       // the case of the manifest
  std::string axes;       // the CSV's axis columns, in the order they are read
  std::string map_order;  // identify's map: the M-RoPE order, or "hf" for HunyuanVL's XD-RoPE map
};

const nlohmann::json& round_trip_manifest() {
  static const nlohmann::json manifest = [] {
    std::ifstream in(std::string(ROPE_VARIANT_DUMPS) + "_round_trip/manifest.json");
    return nlohmann::json::parse(in);
  }();
  return manifest;
}

class PositionsRoundTrip : public test::TempDirTest, public ::testing::WithParamInterface<RoundTripCase> {};

TEST_P(PositionsRoundTrip, CheckAndIdentifyReadTheCsv) {
  const RoundTripCase& want = GetParam();
  const std::string dir = std::string(ROPE_VARIANT_DUMPS) + "_round_trip/" + want.name;
  nlohmann::json c;
  for (const auto& one : round_trip_manifest()["cases"]) {
    if (one["name"] == want.name) c = one;
  }
  ASSERT_FALSE(c.is_null()) << want.name;
  const std::string csv = path("positions.csv");
  std::vector<std::string> a{"positions"};
  for (const auto& v : c["model"]) a.push_back(v.get<std::string>());
  for (const auto& v : c["positions"]) a.push_back(v.get<std::string>());
  a.insert(a.end(), {"--csv", csv});
  const Result positions = rope_cli(a);
  ASSERT_EQ(positions.code, 0) << positions.err;
  std::ifstream in(csv);
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header, "token,segment,kind," + want.axes);
  std::vector<std::string> dumps;
  for (const auto& v : c["model"]) dumps.push_back(v.get<std::string>());
  dumps.insert(dumps.end(),
               {"--before", dir + "/q.npy", "--after", dir + "/q_rope.npy", "--axis-positions", csv, "--json"});
  std::vector<std::string> check{"check"}, identify{"identify"};
  check.insert(check.end(), dumps.begin(), dumps.end());
  identify.insert(identify.end(), dumps.begin() + 2, dumps.end());  // the dumps alone: identify finds the model
  const Result checked = rope_cli(check);
  EXPECT_EQ(checked.code, 0) << checked.out << checked.err;
  const Result identified = rope_cli(identify);
  ASSERT_EQ(identified.code, 0) << identified.err;
  const nlohmann::json id = nlohmann::json::parse(identified.out);
  const char* map = want.map_order == "hf" ? "xdrope" : "mrope";
  ASSERT_TRUE(id.contains(map) && id[map].is_object()) << identified.out;
  if (want.map_order == "hf") {
    EXPECT_EQ(id["xdrope"]["map"], "hf") << identified.out;
    EXPECT_EQ(id["xdrope"]["sections"], c["sections"]) << identified.out;
  } else {
    EXPECT_EQ(id["mrope"]["order"], want.map_order) << identified.out;
    EXPECT_EQ(id["mrope"]["sections"], c["sections"]) << identified.out;
  }
}

INSTANTIATE_TEST_SUITE_P(MultiAxisModels, PositionsRoundTrip,
                         ::testing::Values(RoundTripCase{"qwen2-vl", "t,h,w", "chunked"},
                                           RoundTripCase{"qwen2.5-vl", "t,h,w", "chunked"},
                                           RoundTripCase{"qwen3-vl", "t,h,w", "interleaved"},
                                           RoundTripCase{"openpangu-vl", "t,h,w", "openPangu"},
                                           RoundTripCase{"bailing", "t,h,w", "Bailing"},
                                           RoundTripCase{"hunyuan-vl", "p,w,h,t", "hf"}),
                         [](const auto& info) { return test::case_name(info.param.name); });

TEST_F(CmdPositions, AxisPositionsNamingOtherAxesThanTheModelsAreRefused) {
  // HunyuanVL's CSV (p, w, h, t) given with a llama.cpp Qwen3-VL (t, h, w, e): four components both, other axes; a
  // column that is no axis. One line each, exit 2.
  const std::string dir = std::string(ROPE_VARIANT_DUMPS) + "_round_trip/hunyuan-vl";
  const std::string csv = path("p.csv"), bad = path("bad.csv");
  ASSERT_EQ(rope_cli({"positions", "--config", std::string(ROPE_REFERENCE_DIR) + "/../../data/configs/hunyuan-vl.json",
                      "--text", "3", "--image", "1x8x12", "--text", "3", "--csv", csv})
                .code,
            0);
  expect_one_line_error(rope_cli({"check", "--config", std::string(ROPE_GGUF_DIR) + "/qwen3-vl-8b.gguf", "--before",
                                  dir + "/q.npy", "--after", dir + "/q_rope.npy", "--axis-positions", csv}),
                        2, "names the axes p,w,h,t, but this model reads t,h,w,e");
  std::ofstream(bad) << "token,t,h,w,x\n0,1,2,3,4\n";
  expect_one_line_error(
      rope_cli({"identify", "--before", dir + "/q.npy", "--after", dir + "/q_rope.npy", "--axis-positions", bad}), 2,
      "line 1: the column 'x' is no axis (t, h, w, e, p, l) and none of token, segment, kind");
}

TEST(PositionsRoundTripTable, EveryCaseOfTheGeneratorIsInTheTable) {
  std::set<std::string> table{"qwen2-vl", "qwen2.5-vl", "qwen3-vl", "openpangu-vl", "bailing", "hunyuan-vl"}, written;
  for (const auto& c : round_trip_manifest()["cases"]) written.insert(c["name"].get<std::string>());
  EXPECT_EQ(written, table);
}

}  // namespace
}  // namespace rope

namespace rope {
namespace {

// A diffusers transformer's positions: a figure is refused, not dropped without a word (exit 0 and no file
// before); --json refused beyond kMaxGridJsonTokens (a value per number: 2^22 tokens ran out of 4 GiB), before a
// value is made, naming --csv, which writes any number.
TEST(CmdPositionsGrid, AFigureAndAnOversizedJsonAreRefused) {
  const std::string png = (std::filesystem::temp_directory_path() / "rope_grid_positions.png").string();
  std::filesystem::remove(png);
  expect_one_line_error(
      rope_cli({"positions", "--model", "wan2.1-t2v-1.3b", "--latent-shape", "1x4x4", "--png", png}), 2,
      "--latent-shape prints a diffusers transformer's positions (text, --json, --csv): it draws no figure");
  EXPECT_FALSE(std::filesystem::exists(png));
  // Wan's 2 × 2 patch: 1026 × 1026 is 513 × 513 = 263 169 tokens, one more row than 2^18 allows
  expect_one_line_error(
      rope_cli({"positions", "--model", "wan2.1-t2v-1.3b", "--latent-shape", "1x1026x1026", "--json"}), 2,
      "--json holds at most 262144 tokens' positions (a value per number): the latent gives 263169");
  const Result at = rope_cli({"positions", "--model", "wan2.1-t2v-1.3b", "--latent-shape", "1x4x4", "--json"});
  EXPECT_EQ(at.code, 0) << at.err;
}

}  // namespace
}  // namespace rope
