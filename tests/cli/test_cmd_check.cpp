// rope check on the example dumps of data/dumps/ (tests/reference/make_dumps.py, NumPy): the verdict, the
// exit code, the diagnosis of each planted bug, the JSON, and one-line errors for bad files and shapes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/cli_harness.hpp"
#include "support/shared.hpp"

namespace rope {
namespace {

using test::expect_one_line_error;
using test::rope_cli;
using ::testing::HasSubstr;
using ::testing::Not;

using test::kDumps;

test::Result check(const std::string& after, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"check",        "--before",    kDumps + "q.npy", "--after",
                                   kDumps + after, "--positions", "0:128"};
  args.insert(args.end(), extra.begin(), extra.end());
  return rope_cli(args);
}

TEST(CmdCheck, CorrectDumpPasses) {
  const auto r = check("q_rope.npy");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("elements failing    0 of 8192"));
  EXPECT_THAT(r.out, HasSubstr("verdict             PASS"));
  EXPECT_THAT(r.out, HasSubstr("half layout (assumed: Hugging Face's rotate_half; give --layout)"));
}

// Issue 77 (6): a setting this model's rope_type does not use is said, as rope frequencies says it (before: silent).
TEST(CmdCheck, SettingsTheModelDoesNotUseAreSaid) {
  auto r = check("q_rope.npy", {"--yarn-variant", "grok-yarn-log"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out,
              HasSubstr("note: --yarn-variant grok-yarn-log is a variant of YaRN: rope_type default ignores it"));
  r = check("q_rope.npy", {"--engine", "sglang"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("note: --engine sglang chooses LongRoPE's list, and this model's rope_type is default: "
                               "the engine changes nothing"));
  r = check("q_rope.npy", {"--engine", "vllm"});  // before: "give --max-model-len", LongRoPE's words
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("--engine vllm chooses LongRoPE's list"));
}

TEST(CmdCheck, PlantedBugsFailWithTheirDiagnosis) {
  auto r = check("q_rope_interleaved.npy");
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr("diagnosis           matches the interleaved layout; the spec implies half"));
  EXPECT_THAT(r.out, HasSubstr("positions failing   127 of 128 (first: position 1)"));
  r = check("q_rope_off_by_one.npy");
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr("positions off by one"));
  r = check("q_rope_yarn_no_factor.npy", {"--scaling", "yarn", "--factor", "4", "--original-max-position", "2048"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr("the attention factor 1.13863 is missing"));
  r = check("q_rope_yarn.npy", {"--scaling", "yarn", "--factor", "4", "--original-max-position", "2048", "--json"});
  EXPECT_EQ(r.code, 0);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["passed"].get<bool>());
  EXPECT_NEAR(j["expected"]["attention_factor"].get<double>(), 1.1386294361119891, 1e-15);  // 0.1·ln 4 + 1
}

TEST(CmdCheck, ErrorModelOfTheAngles) {
  // The default for a float32 dump: PyTorch's float32 angles; --angles picks another (angle_error.hpp (C2)).
  auto r = check("q_rope.npy");
  EXPECT_THAT(r.out, HasSubstr("angles (C2)         float32: c_i = 1.5 + |ln θ_i|/2"));
  EXPECT_THAT(r.out, HasSubstr("ε_A·(1 + c_i·|m|·θ_i)"));
  r = check("q_rope.npy", {"--angles", "ggml", "--json"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["angles"], "ggml");
  r = check("q_rope.npy", {"--angles", "ggml"});
  EXPECT_THAT(r.out, HasSubstr("angles (C2)         ggml: c_i = 2 + i·(1.5 + ln(base)/r) = 2 + "));
  // A planted bug is still named under ggml's looser model.
  r = check("q_rope_off_by_one.npy", {"--angles", "ggml"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr("positions off by one"));
  expect_one_line_error(check("q_rope.npy", {"--angles", "pytorch"}), 2,
                        "'pytorch' is not an error model of the angles");
}

TEST(CmdCheck, WarnsAtPositionZeroOnly) {
  const std::string empty = ::testing::TempDir() + "rope_check_empty_positions.txt";
  std::ofstream(empty).flush();  // an empty list file (a regular one: /dev/null is refused, docs/errors.md)
  const auto r =
      rope_cli({"check", "--before", kDumps + "q.npy", "--after", kDumps + "q.npy", "--positions", "@" + empty});
  EXPECT_EQ(r.code, 2);  // an empty list
  std::vector<std::string> zeros(128, "0");
  std::string list;
  for (std::size_t i = 0; i < zeros.size(); ++i) list += (i ? "," : "") + zeros[i];
  const auto z = rope_cli({"check", "--before", kDumps + "q.npy", "--after", kDumps + "q.npy", "--positions", list});
  EXPECT_EQ(z.code, 0);
  EXPECT_THAT(z.out, HasSubstr("warning: every position is 0"));
}

class CmdCheckFiles : public test::TempDirTest {};

TEST_F(CmdCheckFiles, BadInputsGiveOneLine) {
  expect_one_line_error(
      rope_cli({"check", "--before", kDumps + "q.npy", "--after", kDumps + "q_rope.npy", "--positions", "0:64"}), 2,
      "--positions: the number of positions, 64, is not the length of the dump's sequence axis, 128");
  expect_one_line_error(check("missing.npy"), 3, "cannot read tensor file");
  std::ofstream(path("small.csv")) << "1,2\n3,4\n";
  expect_one_line_error(rope_cli({"check", "--before", kDumps + "q.npy", "--after", path("small.csv")}), 2,
                        "must be equal");
  std::ofstream(path("bad.npy")) << "\x93NUMPY\x01";
  expect_one_line_error(rope_cli({"check", "--before", path("bad.npy"), "--after", kDumps + "q.npy"}), 2,
                        "byte 0: not a .npy file");
  expect_one_line_error(check("q_rope.npy", {"--axes", "batch,seq,heads,d"}), 2, "does not have the 4 axes");
  expect_one_line_error(check("q_rope.npy", {"--model", "llama-3.1-8b"}), 2,
                        "llama-3.1-8b has head_dim 128, the dump's last axis is d = 64");
  expect_one_line_error(check("q_rope.npy", {"--tensor", "q"}), 2, "--tensor 'q' names a tensor of a safetensors file");
  expect_one_line_error(check("q_rope.npy", {"--partial-rotary-factor", "0.5", "--dim", "64"}), 2, "--dim");
  // A vision tower's 2-D rotation needs a (row, column) per row, which a dump does not carry.
  expect_one_line_error(check("q_rope.npy", {"--vision", "pixtral"}), 2,
                        "a vision tower's 2-D RoPE turns each patch by its (row, column)");
  expect_one_line_error(check("q_rope.npy", {"--model", "qwen2.5-vl-7b", "--tower", "vision"}), 2,
                        "check the tower's rotation with rope apply --position ROW,COL");
}

TEST_F(CmdCheckFiles, MropePositionsPerAxisFromRopePositions) {
  // A Qwen2-VL config with head_dim 64 (128 / 2) and mrope_section [8, 12, 12], base 10000, half layout: the
  // example dump q_rope.npy (plain RoPE at 0 … 127) is this model's RoPE of 128 text tokens, whose positions
  // are (p, p, p). `rope positions --csv` writes them; check reads its t, h, w columns.
  std::ofstream(path("config.json")) << R"({"model_type": "qwen2_vl", "hidden_size": 128, "num_attention_heads": 2,
      "rope_theta": 10000, "rope_scaling": {"type": "mrope", "mrope_section": [8, 12, 12]}})";
  ASSERT_EQ(rope_cli({"positions", "--text", "128", "--csv", path("pos.csv")}).code, 0);
  const auto run = [&](const std::string& positions, std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"check",    "--before",          kDumps + "q.npy",   "--after", kDumps + "q_rope.npy",
                                  "--config", path("config.json"), "--axis-positions", positions};
    args.insert(args.end(), extra.begin(), extra.end());
    return rope_cli(args);
  };
  const auto ok = run(path("pos.csv"));
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_THAT(ok.out, HasSubstr("positions per axis (3 components) from " + path("pos.csv")));
  EXPECT_THAT(ok.out,
              HasSubstr("  M-RoPE              mrope_section [8, 12, 12], chunked (docs/multi-axis.md (A2)): pair i "
                        "turns by θ_i·p_a(i)\n"));
  EXPECT_THAT(ok.out, HasSubstr("ε_A·(1 + c_i·|p_a(i)|·θ_i)"));
  EXPECT_THAT(ok.out, HasSubstr("verdict             PASS"));
  // The same tokens given h = p + 1: the 12 h pairs (8 … 19, channels 8 … 19 and 40 … 51) fail at every position.
  {
    std::ofstream f(path("shifted.csv"));
    for (int p = 0; p < 128; ++p) f << p << "," << p + 1 << "," << p << "\n";
  }
  const auto bad = run(path("shifted.csv"), {"--json"});
  EXPECT_EQ(bad.code, 1) << bad.err;
  const nlohmann::json j = nlohmann::json::parse(bad.out);
  EXPECT_EQ(j["first_failure"]["position"], nlohmann::json::array({0, 1, 0}));
  EXPECT_EQ(j["expected"]["mrope_section"], nlohmann::json::array({8, 12, 12}));
  // Every element of the 24 channels but a few whose own change is within (C2)'s float32 tolerance (a channel's
  // change is ‖x‖·θ·|sin| of its angle, which can come close to 0 for one element).
  EXPECT_LE(j["failing"].get<long>(), 128 * 24);
  EXPECT_GE(j["failing"].get<long>(), 128 * 24 - 4);
  const auto zh = run(path("pos.csv"), {"--lang", "zh"});
  EXPECT_EQ(zh.code, 0) << zh.err;
  EXPECT_THAT(zh.out, HasSubstr("位置 按轴（3 个分量），来自 "));
  // One-line refusals.
  expect_one_line_error(run(path("pos.csv"), {"--positions", "0:128"}), 2,
                        "give --positions or --axis-positions, not both");
  std::ofstream(path("three.csv")) << "0,0,0\n1,1,1\n2,2,2\n";
  expect_one_line_error(
      run(path("three.csv")), 2,
      "--axis-positions: the number of positions, 3, is not the length of the dump's sequence axis, 128");
  std::ofstream(path("ragged.csv")) << "0,0,0\n1,1\n";
  expect_one_line_error(run(path("ragged.csv")), 2, "line 2: 2 components where the first row has 3");
  expect_one_line_error(rope_cli({"check", "--before", kDumps + "q.npy", "--after", kDumps + "q_rope.npy",
                                  "--axis-positions", path("pos.csv")}),
                        2, "the position (0, 0, 0) has 3 components but plain RoPE reads one");
  // identify with text tokens' (p, p, p): every axis fits every pair alike, so the sections are not determined.
  const auto text = rope_cli({"identify", "--before", kDumps + "q.npy", "--after", kDumps + "q_rope.npy",
                              "--axis-positions", path("pos.csv")});
  EXPECT_EQ(text.code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("M-RoPE              undetermined: the positions cannot tell the axes apart"));
  EXPECT_THAT(text.out, HasSubstr("note: the positions cannot tell which axis pairs 0, 1, 2"));
}

TEST_F(CmdCheckFiles, RotatedDumpOfALayerWithoutRope) {
  // SmolLM3 (HF configuration_smollm3.py: no_rope_layers defaults to int((i + 1) % 4 != 0)): layers 3 and 7 of 8 have
  // no RoPE, the others rotate with rope_theta in the half layout, as the example dumps q_rope*.npy (base 10000).
  std::ofstream(path("smollm3.json")) << R"({"model_type": "smollm3", "head_dim": 64, "num_hidden_layers": 8,
      "num_attention_heads": 2, "hidden_size": 128, "rope_theta": 10000})";
  const auto run = [&](const std::string& after, std::vector<std::string> extra = {}) {
    std::vector<std::string> args{
        "check", "--before", kDumps + "q.npy",     "--after",      kDumps + after, "--positions",
        "0:128", "--config", path("smollm3.json"), "--layer-type", "nope"};
    args.insert(args.end(), extra.begin(), extra.end());
    return rope_cli(args);
  };
  auto r = run("q.npy");  // unchanged: right
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("scaling             no RoPE on this layer\n"));
  r = run("q_rope.npy");  // the other layers' RoPE applied where the model skips it
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_THAT(r.out,
              HasSubstr("diagnosis           this layer has no RoPE in " + path("smollm3.json") +
                        " (layer type nope: layers 3, 7), but "
                        "the dump is rotated: it matches the RoPE of the model's layers that have one (half layout, "
                        "rotary dim 64, base 10000), which this layer's code must not apply\n"));
  EXPECT_THAT(r.out, Not(HasSubstr("no known variant")));
  r = run("q_rope.npy", {"--json"});
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["diagnosis"]["no_rope_rotated"]["rope_matches"], "expected");
  EXPECT_EQ(j["diagnosis"]["no_rope_rotated"]["changed"], j["failing"]);
  EXPECT_TRUE(j["diagnosis"]["matches"].is_null());
  EXPECT_TRUE(j["variants_failing"].empty());     // the variants of "unchanged" say nothing
  r = run("q_rope_interleaved.npy", {"--json"});  // rotated, and in the other layout too
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(j["diagnosis"]["no_rope_rotated"]["rope_matches"], "layout-swapped");
  EXPECT_THAT(
      j["diagnosis"]["message"].get<std::string>(),
      HasSubstr("but the dump is rotated, as the model's layers with RoPE rotate theirs but for one difference: "
                "matches the interleaved layout; the spec implies half; this layer's code must not apply RoPE at all"));
  r = run("q_rope_yarn.npy", {"--json"});  // YaRN's frequencies: not the model's RoPE nor a known variant of it
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(j["diagnosis"]["no_rope_rotated"]["rope_matches"].is_null());
  EXPECT_THAT(
      j["diagnosis"]["message"].get<std::string>(),
      HasSubstr(
          "but the dump after differs from the dump before (" + std::to_string(j["failing"].get<long>()) +
          " of 8192 elements beyond the tolerance), and the model's RoPE does not explain it: run `rope identify`"));
  // Packed sequences (positions 0…127 twice): each sequence's line says the same, in the words of a layer without RoPE.
  r = rope_cli({"check", "--before", kDumps + "packed_q.npy", "--after", kDumps + "packed_q_rope.npy",
                "--sequence-starts", "0,128", "--config", path("smollm3.json"), "--layer-type", "nope"});
  EXPECT_EQ(r.code, 1) << r.err;
  for (const std::string seq : {"sequence 0          indices 0–127", "sequence 1          indices 128–255"}) {
    EXPECT_THAT(r.out, HasSubstr(seq + ", positions 0–127: FAIL")) << r.out;
  }
  const std::string said =
      "): this layer has no RoPE in " + path("smollm3.json") +
      " (layer type nope: layers 3, 7), but the dump is rotated: it matches the RoPE of the model's layers";
  long times = 0;
  for (std::size_t at = r.out.find(said); at != std::string::npos; at = r.out.find(said, at + 1)) ++times;
  EXPECT_EQ(times, 2) << r.out;
  r = run("q_rope.npy", {"--lang", "zh"});
  EXPECT_THAT(r.out,
              HasSubstr("中没有 RoPE（层类型 nope：第 3, 7 层），但转储被旋转了：它符合该模型有 RoPE 的那些层的 RoPE"));
  EXPECT_THAT(r.out, HasSubstr("本层没有 RoPE"));
}

TEST_F(CmdCheckFiles, ReportNamesTheScalingAndEscapesWhatTheUserTyped) {
  auto r = check("q_rope.npy");
  EXPECT_THAT(r.out, HasSubstr("scaling             none (default RoPE)\n"));
  r = check("q_rope_yarn.npy", {"--scaling", "yarn", "--factor", "4", "--original-max-position", "2048"});
  EXPECT_THAT(r.out, HasSubstr("scaling             yarn: factor 4, original_max_position_embeddings 2048"));
  r = check("q_rope.npy", {"--lang", "zh"});
  EXPECT_THAT(r.out, HasSubstr("无（默认 RoPE）"));
  // A file whose name holds a line feed and an escape: one line of the report, escaped as errors escape it.
  const std::string odd = path("q\n\x1b[2Jrope.npy");
  std::filesystem::copy_file(kDumps + "q_rope.npy", odd);
  r = rope_cli({"check", "--before", kDumps + "q.npy", "--after", odd, "--positions", "0:128"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("q\\n\\e[2Jrope.npy against RoPE("));
  r = rope_cli({"identify", "--before", kDumps + "q.npy", "--after", odd, "--positions", "0:128"});
  EXPECT_THAT(r.out, HasSubstr("rope identify: " + path("q\\n\\e[2Jrope.npy")));
}

TEST(CmdCheck, ChineseText) {
  const auto r = check("q_rope_interleaved.npy", {"--lang", "zh"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr("符合相邻配对（interleaved）；配置要求的是前后半配对（half）"));
}

TEST_F(CmdCheckFiles, PositionsFilesDecodeBatchesAndPackedSequences) {
  // The committed examples (tests/reference/make_dumps.py): a decode batch [4, 2, 1, 64] at positions
  // 57, 12, 300, 4095 (int64 .npy [4, 1]) and two packed sequences of 128 at 0 … 127 each.
  auto r = rope_cli({"check", "--before", kDumps + "decode_q.npy", "--after", kDumps + "decode_q_rope.npy",
                     "--positions", kDumps + "decode_positions.npy"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("batch row 3         positions 4095: PASS"));
  r = rope_cli({"check", "--before", kDumps + "decode_q.npy", "--after", kDumps + "decode_q_rope_shared_offset.npy",
                "--positions", "@" + kDumps + "decode_positions.npy", "--json"});
  EXPECT_EQ(r.code, 1);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["segments"].size(), 4u);
  EXPECT_TRUE(j["segments"][0]["passed"].get<bool>());
  EXPECT_FALSE(j["segments"][1]["passed"].get<bool>());
  EXPECT_THAT(j["diagnosis"]["message"].get<std::string>(),
              HasSubstr("every batch row matches the first row's positions (from 57)"));
  // Packed: by --sequence-starts, or a text file of restarting positions named by its path.
  r = rope_cli({"check", "--before", kDumps + "packed_q.npy", "--after", kDumps + "packed_q_rope.npy",
                "--sequence-starts", "0,128"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("sequence 1          indices 128–255, positions 0–127: PASS"));
  {
    std::ofstream f(path("pos.txt"));
    for (int k = 0; k < 256; ++k) f << k % 128 << "\n";
  }
  r = rope_cli({"check", "--before", kDumps + "packed_q.npy", "--after", kDumps + "packed_q_rope.npy", "--positions",
                path("pos.txt")});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("sequence 0          indices 0–127"));
  r = rope_cli(
      {"check", "--before", kDumps + "packed_q.npy", "--after", kDumps + "packed_q_rope.npy", "--positions", "0:256"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr("diagnosis           the positions restart at index 128"));
  // A path that names no file: the error says how to name one; rows that do not match the batch.
  expect_one_line_error(rope_cli({"check", "--before", kDumps + "q.npy", "--after", kDumps + "q_rope.npy",
                                  "--positions", path("missing.npy")}),
                        2, "name a file as @FILE or by its path");
  expect_one_line_error(
      rope_cli({"check", "--before", kDumps + "decode_q.npy", "--after", kDumps + "decode_q_rope.npy", "--positions",
                path("pos.txt")}),
      2, "has no axis of the 256 positions: neither [batch, heads, seq, d] nor [batch, seq, heads, d] fits");
  expect_one_line_error(rope_cli({"check", "--before", kDumps + "packed_q.npy", "--after", kDumps + "packed_q_rope.npy",
                                  "--sequence-starts", "0,300"}),
                        2, "--sequence-starts: 300 is not a sequence index in [0, 256]");
}

/// Issue 52 (6): 40 packed sequences of q.npy (starts 0, 1, …, 39), the positions of 1 … 20 off by one: 20 fail,
/// 16 of them listed; the line after the list said "… and 24 more that pass" while 4 of them fail.
std::string packed_positions_with_20_failing(const std::string& file) {
  std::ofstream out(file);
  for (int s = 0; s < 128; ++s) out << (s >= 1 && s <= 20 ? s + 1 : s) << '\n';
  return file;
}

std::string starts_0_to_39() {
  std::string starts = "0";
  for (int s = 1; s < 40; ++s) starts += "," + std::to_string(s);
  return starts;
}

TEST_F(CmdCheckFiles, TheLineAfterTheListedSequencesSaysWhatTheOthersAre) {
  const std::string positions = packed_positions_with_20_failing(path("pos.txt"));
  auto r = rope_cli({"check", "--before", kDumps + "q.npy", "--after", kDumps + "q_rope.npy", "--positions", positions,
                     "--sequence-starts", starts_0_to_39()});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_THAT(r.out, HasSubstr("  … and 24 more: 20 pass, 4 fail\n"));
  EXPECT_THAT(r.out, Not(HasSubstr("more that pass")));
  r = rope_cli({"check", "--before", kDumps + "q.npy", "--after", kDumps + "q_rope.npy", "--positions", positions,
                "--sequence-starts", starts_0_to_39(), "--lang", "zh"});
  EXPECT_THAT(r.out, HasSubstr("  … 另有 24 个：20 个通过，4 个失败\n"));
  // All the others fail: sequences 0 … 39 of one index each (the last of 89) at the positions 1, 2, …
  std::ofstream(path("shifted.txt")) << [] {
    std::string text;
    for (int s = 0; s < 128; ++s) text += std::to_string(s + 1) + "\n";
    return text;
  }();
  r = rope_cli({"check", "--before", kDumps + "q.npy", "--after", kDumps + "q_rope.npy", "--positions",
                path("shifted.txt"), "--sequence-starts", starts_0_to_39()});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_THAT(r.out, HasSubstr("  … and 24 more that fail\n"));
}

// Issue 66: --grad and --shift on the dumps of tests/reference/grad_shift.py (the verdicts are
// tests/analysis/check/test_check_mode.cpp's): the mode in the header and the JSON, the exit codes, the Chinese, and
// the settings that do not fit a mode refused in one line.
const std::string kGradShiftDumps = std::string(ROPE_REFERENCE_DIR) + "/grad_shift/";

test::Result check_mode(const std::string& before, const std::string& after, std::vector<std::string> extra) {
  std::vector<std::string> args = {"check", "--before", kGradShiftDumps + before + ".npy", "--after",
                                   kGradShiftDumps + after + ".npy"};
  args.insert(args.end(), extra.begin(), extra.end());
  return rope_cli(args);
}

TEST(CmdCheck, GradModeSaysItAndNamesTheForwardRotation) {
  const std::vector<std::string> grad = {"--grad", "--positions", "0,1,7,4095,4096,32768,65535,131071", "--layout",
                                         "half"};
  const auto ok = check_mode("grad_half_default_f32_g", "grad_half_default_f32_gx", grad);
  EXPECT_EQ(ok.code, 0) << ok.out << ok.err;
  EXPECT_THAT(test::unwrapped(ok.out), HasSubstr("mode                grad: before is the upstream gradient grad_y"));
  const auto bad = check_mode("grad_half_default_f32_g", "grad_planted_forward_rotation", grad);
  EXPECT_EQ(bad.code, 1);
  EXPECT_THAT(test::unwrapped(bad.out), HasSubstr("matches the forward rotation R(m) where the backward applies its "
                                                  "transpose"));
  std::vector<std::string> json = grad;
  json.push_back("--json");
  const auto j = nlohmann::json::parse(check_mode("grad_half_default_f32_g", "grad_planted_head_zeroed", json).out);
  EXPECT_EQ(j["mode"], "grad");
  EXPECT_EQ(j["diagnosis"]["matches"], "heads-zeroed");
  std::vector<std::string> zh = grad;
  zh.insert(zh.end(), {"--lang", "zh"});
  const auto chinese = check_mode("grad_half_default_f32_g", "grad_planted_forward_rotation", zh);
  EXPECT_THAT(test::unwrapped(chinese.out), HasSubstr("符合前向旋转 R(m)"));
  EXPECT_THAT(test::unwrapped(chinese.out), HasSubstr("模式"));
}

TEST(CmdCheck, ShiftModeTakesDeltaAndNamesTheMagnitude) {
  const std::vector<std::string> yarn = {"--shift=-512", "--layout", "interleaved", "--scaling",
                                         "yarn",         "--factor", "4",           "--original-max-position",
                                         "4096",         "--json"};
  const auto ok = check_mode("shift_yarn_f32_k", "shift_yarn_f32_shifted", yarn);
  EXPECT_EQ(ok.code, 0) << ok.err;
  const auto j = nlohmann::json::parse(ok.out);
  EXPECT_EQ(j["mode"], "shift");
  EXPECT_EQ(j["shift"], -512);
  EXPECT_DOUBLE_EQ(j["expected"]["attention_factor"].get<double>(), 1.0);
  const auto again = check_mode("shift_yarn_f32_k", "shift_yarn_f32_magnitude_again", yarn);
  EXPECT_EQ(again.code, 1);
  const auto a = nlohmann::json::parse(again.out);
  EXPECT_EQ(a["diagnosis"]["matches"], "magnitude-reapplied");
  EXPECT_NEAR(a["diagnosis"]["found"]["factor"].get<double>(), 1.1386294361, 1e-6);
}

TEST(CmdCheck, ModesRefuseWhatDoesNotFit) {
  const std::string k = "shift_default_f32_k";
  expect_one_line_error(check_mode(k, k, {"--shift=-512", "--grad"}), 2, "--grad excludes --shift");
  expect_one_line_error(check_mode(k, k, {"--shift=-512", "--positions", "0:8"}), 2,
                        "--shift turns every key by the same δ: leave out --positions");
  expect_one_line_error(check_mode(k, k, {"--shift=1e9"}), 2, "--shift: position 1000000000 is outside [-2^24, 2^24]");
}

// --shift-map (issue 78 item 3) on the corpus's dumps of tests/reference/shift_map.py (the verdicts are
// tests/analysis/check/test_check_mode.cpp's): the mode and the found offset in the JSON, the sentence in the map's
// words, the Chinese, and the refusals in one line.
const std::string kShiftMapDumps = std::string(ROPE_VARIANT_DUMPS) + "/../corpus/shift_map/";

test::Result check_shift_map(const std::string& after, std::vector<std::string> extra) {
  std::vector<std::string> args = {"check",
                                   "--before",
                                   kShiftMapDumps + "k_f32.npy",
                                   "--after",
                                   kShiftMapDumps + after + ".npy",
                                   "--layout",
                                   "half",
                                   "--angles",
                                   "float32"};
  args.insert(args.end(), extra.begin(), extra.end());
  return rope_cli(args);
}

TEST(CmdCheck, ShiftMapNamesTheModeAndTheOffset) {
  const std::string map = kShiftMapDumps + "map.csv";
  const auto ok = check_shift_map("f32_correct", {"--shift-map", map});
  EXPECT_EQ(ok.code, 0) << ok.out << ok.err;
  EXPECT_THAT(test::unwrapped(ok.out), HasSubstr("shift map: before is the K cache, after each key moved"));
  const auto off = check_shift_map("f32_offset", {"--shift-map", map, "--json"});
  EXPECT_EQ(off.code, 1) << off.err;
  const auto j = nlohmann::json::parse(off.out);
  EXPECT_EQ(j["mode"], "shift-map");
  EXPECT_EQ(j["diagnosis"]["matches"], "shift-map-offset");
  EXPECT_EQ(j["diagnosis"]["found"]["offset"], 3775);
  const auto sign = check_shift_map("f32_sign", {"--shift-map", kShiftMapDumps + "map.npy", "--lang", "zh"});
  EXPECT_EQ(sign.code, 1);
  EXPECT_THAT(test::unwrapped(sign.out), HasSubstr("old − new"));
  EXPECT_THAT(test::unwrapped(sign.out), HasSubstr("模式"));
}

TEST(CmdCheck, ShiftMapRefusesWhatDoesNotFit) {
  const std::string map = kShiftMapDumps + "map.csv";
  expect_one_line_error(check_shift_map("f32_correct", {"--shift-map", map, "--grad"}), 2,
                        "--grad excludes --shift-map");
  expect_one_line_error(check_shift_map("f32_correct", {"--shift-map", map, "--shift=-3"}), 2,
                        "--shift excludes --shift-map");
  expect_one_line_error(check_shift_map("f32_correct", {"--shift-map", map, "--positions", "0:48"}), 2,
                        "--shift-map turns each key by its own δ = new − old: leave out --positions");
  const std::string rows = ::testing::TempDir() + "cmd_check_shift_map_rows.csv";
  std::ofstream(rows) << "old,new\n7,0\n9,1\n";
  expect_one_line_error(check_shift_map("f32_correct", {"--shift-map", rows}), 2,
                        "holds 2 rows (old, new) for a dump of 48 keys: a row per key");
  std::remove(rows.c_str());
}

TEST(CmdCheck, ShiftModesSayKeysAndTheirDeltas) {
  const std::string map = kShiftMapDumps + "map.csv";
  const auto off = check_shift_map("f32_offset", {"--shift-map", map});
  EXPECT_EQ(off.code, 1) << off.err;
  const std::string text = test::unwrapped(off.out);
  // Each index is a key turned by its δ: the rows name keys (0 … 47) and their δ, not "positions" of δs.
  EXPECT_THAT(text, HasSubstr("keys failing"));
  EXPECT_THAT(text, ::testing::ContainsRegex("keys failing +[0-9]+ of 48 \\(first: key [0-9]+, δ = -?[0-9]+\\): "));
  EXPECT_THAT(text, Not(HasSubstr("positions failing")));
  EXPECT_THAT(text, ::testing::ContainsRegex("first failure +key [0-9]+ \\(δ = -?[0-9]+\\), "));
  const auto zh = check_shift_map("f32_offset", {"--shift-map", map, "--lang", "zh"});
  EXPECT_THAT(test::unwrapped(zh.out), HasSubstr("超差的键"));
}

TEST(CmdCheck, ShiftMapHeadersNamedOrRefusedNamingTheColumns) {
  // The map of map.csv with a header of longer names: read alike.
  std::ifstream in(kShiftMapDumps + "map.csv");
  std::string line, rows;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] != '#' && line.find_first_not_of("0123456789-,. \r") == std::string::npos)
      rows += line + "\n";
  }
  const std::string named = ::testing::TempDir() + "cmd_check_shift_map_named.csv";
  std::ofstream(named) << "old_pos,new_pos\n" << rows;
  EXPECT_EQ(check_shift_map("f32_correct", {"--shift-map", named}).code, 0);
  const std::string swapped = ::testing::TempDir() + "cmd_check_shift_map_swapped.csv";
  std::ofstream(swapped) << "new_pos,old_pos\n" << rows;
  expect_one_line_error(check_shift_map("f32_correct", {"--shift-map", swapped}), 2,
                        "its header 'new_pos,old_pos' puts the columns in the other order: a row is old,new");
  const std::string other = ::testing::TempDir() + "cmd_check_shift_map_other.csv";
  std::ofstream(other) << "src,dst\n" << rows;
  expect_one_line_error(check_shift_map("f32_correct", {"--shift-map", other}), 2,
                        "its first line 'src,dst' is neither a row of numbers nor the header old,new");
  for (const std::string& f : {named, swapped, other}) std::remove(f.c_str());
}

}  // namespace
}  // namespace rope
