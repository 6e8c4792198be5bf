// --lang zh on every command (apps/rope/cli/lang.hpp): every human-readable line is in Chinese, the
// machine-readable outputs (CSV, JSON) are the same bytes as in English, and the numbers are the same.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <regex>
#include <set>
#include <sstream>

#include "support/cli_harness.hpp"
#include "rope/models/model_config.hpp"
#include "support/shared.hpp"

namespace rope::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

/// A word of English prose: two or more letters, nothing else. Identifiers (rope_theta, --dim, R_m,
/// Llama-3.1, x0) are not words, so they may stand in Chinese text.
bool is_english_word(std::string token) {
  const std::string strip = ",.;:()[]\"'!?";
  while (!token.empty() && strip.find(token.front()) != std::string::npos) token.erase(token.begin());
  while (!token.empty() && strip.find(token.back()) != std::string::npos) token.pop_back();
  if (token.size() < 2 || token == "et" || token == "al") return false;  // "Press et al." is a citation
  return std::all_of(token.begin(), token.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); });
}

/// The first run of three or more English words in a row (split at spaces), or "" if there is none.
/// Three words make a phrase that should have been translated; names like "Hugging Face" or
/// "Press et al." (two words, or a word and an abbreviation) do not.
std::string first_english_phrase(const std::string& text) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::vector<std::string> run;
    for (std::string w; words >> w;) {
      if (is_english_word(w)) {
        run.push_back(w);
        if (run.size() >= 3) return line;
      } else {
        run.clear();
      }
    }
  }
  return "";
}

bool has_chinese(const std::string& text) {
  // UTF-8 lead bytes 0xE4 … 0xE9 start the CJK Unified Ideographs U+4E00 … U+9FFF.
  return std::any_of(text.begin(), text.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u >= 0xE4 && u <= 0xE9;
  });
}

/// The example dumps of data/dumps/ (tests/reference/make_dumps.py).
using test::kDumps;
/// 128 positions 0: check's warning that every layout agrees there.
const std::string kZeros = [] {
  std::string s = "0";
  for (int i = 1; i < 128; ++i) s += ",0";
  return s;
}();

/// Every command and the options that change what it says; each is run in both languages.
std::vector<std::vector<std::string>> every_command() {
  std::vector<std::vector<std::string>> runs = {
      {"frequencies", "--dim", "8"},
      {"frequencies", "--dim", "8", "--position", "3"},
      {"frequencies", "--model", "llama-3.1-8b"},
      {"frequencies", "--dim", "8", "--scaling", "yarn", "--factor", "4", "--original-max-position", "2048",
       "--max-position-embeddings", "4096", "--beta-fast", "1", "--beta-slow", "2"},
      {"frequencies", "--dim", "8", "--scaling", "dynamic", "--factor", "2", "--max-position-embeddings", "2048"},
      {"frequencies", "--dim", "4", "--scaling", "longrope", "--original-max-position", "2048", "--factor", "4",
       "--short-factor", "1,2", "--long-factor", "3,4"},
      {"matrix", "--dim", "4", "--position", "1"},
      {"matrix", "--dim", "4", "--relative", "2", "5"},
      {"matrix", "--dim", "4", "--position", "1", "--scaling", "linear", "--factor", "2"},
      {"apply", "--position", "1", "--vector", "1,0,0,1"},
      {"apply", "--position", "1", "--vector", "1,0,0,1", "--layout", "half", "--scaling", "linear", "--factor", "2"},
      {"verify", "--trials", "20"},
      {"verify", "--trials", "30", "--dim", "512"},
      {"verify", "--trials", "20", "--model", "llama-3.1-8b"},
      {"decay", "--dim", "16", "--max-distance", "100", "--points", "11"},
      {"decay", "--dim", "16", "--max-distance", "100", "--points", "11", "--kind", "ones", "--normalize"},
      {"decay", "--dim", "16", "--max-distance", "100", "--points", "11", "--kind", "random", "--samples", "20"},
      {"decay", "--dim", "16", "--max-distance", "100", "--points", "11", "--rerope", "20", "--leaky-k", "4",
       "--log-x"},
      {"decay", "--model", "llama-3.1-8b", "--max-distance", "100", "--points", "11"},
      {"wavelengths", "--dim", "16", "--context", "100", "--context", "1"},
      {"wavelengths", "--model", "phi-3-mini-128k"},
      {"inspect", "--list"},
      {"layouts", "--dim", "8"},
      {"layouts", "--dim", "8", "--scaling", "ntk", "--factor", "2"},
      {"attention", "--tokens", "4", "--dim", "8", "--shift", "3", "--causal"},
      {"attention", "--tokens", "4", "--dim", "8", "--compare", "--shift", "2"},
      {"attention", "--tokens", "40", "--dim", "8", "--encoding", "alibi"},
      {"encodings"},
      {"encodings", "--context", "16", "--tokens", "4", "--shift", "2"},
      {"explain"},
      {"precision", "--max-position", "70000", "--points", "5", "--samples", "2"},
      {"verify", "--trials", "20", "--dtype", "bf16"},
      {"verify", "--trials", "20", "--dtype", "f32"},
      {"bound", "--context", "1024", "--base-range", "4000,7000"},
      {"bound", "--context", "300", "--base-range", "2,3"},
      {"extrapolation", "--dim", "128", "--base", "10000", "--train-length", "4096", "--tune-length", "16384"},
      {"extrapolation", "--dim", "128", "--base", "10000", "--train-length", "4096", "--tune-base", "500000"},
      {"bench", "--seq", "2", "--points", "100", "--repeat", "1"},
      {"check", "--before", kDumps + "q.npy", "--after", kDumps + "q_rope.npy"},
      {"check", "--before", kDumps + "q.npy", "--after", kDumps + "q_rope_interleaved.npy", "--positions", "0:128"},
      {"check", "--before", kDumps + "q.npy", "--after", kDumps + "q_rope_yarn_no_factor.npy", "--scaling", "yarn",
       "--factor", "4", "--original-max-position", "2048"},
      {"check", "--before", kDumps + "q.npy", "--after", kDumps + "q.npy", "--positions", kZeros},
      {"identify", "--before", kDumps + "q.npy", "--after", kDumps + "q_rope_yarn.npy"},
      // Multi-axis RoPE (docs/multi-axis.md).
      {"positions", "--text", "2", "--image", "1x4x4", "--video", "2x2x2", "--text", "1", "--tokens-per-second", "2"},
      {"sections"},
      {"sections", "--model", "qwen2-vl-7b"},
      {"frequencies", "--model", "qwen3-vl-8b"},
      {"matrix", "--model", "qwen2-vl-7b", "--position", "7,2,3", "--digits", "1"},
      {"verify", "--trials", "20", "--model", "qwen3-vl-8b"},
  };
  // Every preset: its notes, origins and warnings come from the config reader and the scaling code.
  for (const auto& preset : list_presets()) runs.push_back({"inspect", "--model", preset.name});
  return runs;
}

std::string joined(const std::vector<std::string>& args) {
  std::string s = "rope";
  for (const auto& a : args) s += " " + a;
  return s;
}

std::vector<std::string> with_lang(std::vector<std::string> args, const std::string& lang) {
  args.push_back("--lang");
  args.push_back(lang);
  return args;
}

TEST(Lang, TheDetectorFindsEnglishProseAndLetsIdentifiersThrough) {
  EXPECT_NE(first_english_phrase("rope verify: d = 128\nall 7 checks passed here\n"), "");
  EXPECT_EQ(first_english_phrase("全部 7 项检验通过 rope_theta: 500000 (rope_parameters.rope_theta)\n"), "");
  EXPECT_EQ(first_english_phrase("维度对 --dim 128 --base 10000 (Press et al. 2021, Fig. 1)\n"), "");
  EXPECT_EQ(first_english_phrase("相邻配对 interleaved 排列,Hugging Face 的 rotate_half\n"), "");
  // The English output of a command is full of prose, so the test below can fail.
  EXPECT_NE(first_english_phrase(rope_cli({"verify", "--trials", "5"}).out), "");
}

TEST(Lang, EveryCommandSpeaksChineseWithNoEnglishSentenceLeft) {
  std::set<std::string> explicit_en;  // the commands whose first run was repeated with --lang en
  for (const auto& args : every_command()) {
    SCOPED_TRACE(joined(args));
    const Result en = rope_cli(args);
    const Result zh = rope_cli(with_lang(args, "zh"));
    ASSERT_LE(en.code, 1) << en.err;  // 1: a check failed, as it should (verify --dtype bf16)
    ASSERT_EQ(zh.code, en.code) << zh.err;
    EXPECT_TRUE(has_chinese(zh.out));
    EXPECT_NE(zh.out, en.out);
    EXPECT_EQ(first_english_phrase(zh.out), "") << zh.out;
    // en is the default: once per command (bench's times change from run to run).
    if (args.front() != "bench" && explicit_en.insert(args.front()).second) {
      EXPECT_EQ(rope_cli(with_lang(args, "en")).out, en.out);
    }
  }
}

/// The commands of `rope --help` (the lines under its four groups, "Learn:" …).
std::vector<std::string> every_command_name() {
  std::istringstream lines(rope_cli({"--help"}).out);
  std::vector<std::string> names;
  bool listing = false;
  for (std::string line; std::getline(lines, line);) {
    if (line == "Learn:" || line == "Compute:" || line == "Check a model:" || line == "Figures:")
      listing = true;
    else if (listing && line.rfind("  ", 0) == 0 && line[2] != ' ')
      names.push_back(line.substr(2, line.find_first_of(", ", 2) - 2));
    else if (listing && line.rfind("  ", 0) == 0)
      continue;  // a description's next line
    else
      listing = false;
  }
  return names;
}

TEST(Lang, EveryHelpAndEveryErrorIsChineseWithLangZh) {
  const std::vector<std::string> names = every_command_name();
  ASSERT_GE(names.size(), 18u);
  const Result top = rope_cli({"--help", "--lang", "zh"});
  EXPECT_EQ(first_english_phrase(top.out), "") << top.out;
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    const Result help = rope_cli({name, "--help", "--lang", "zh"});
    ASSERT_EQ(help.code, 0) << help.err;
    EXPECT_TRUE(has_chinese(help.out));
    EXPECT_EQ(first_english_phrase(help.out), "") << help.out;
    // an unknown option, a bad number: the same exit code, the message in Chinese
    const Result bad = rope_cli({name, "--no-such-option", "--lang", "zh"});
    EXPECT_EQ(bad.code, 2);
    EXPECT_TRUE(has_chinese(bad.err)) << bad.err;
    EXPECT_EQ(first_english_phrase(bad.err), "") << bad.err;
  }
}

TEST(Lang, ChineseKeepsTheNumbers) {
  // The same numbers appear, in the same order: only the words around them change.
  const std::regex number(R"(-?\d+(\.\d+)?(e[-+]\d+)?)");
  for (const auto& args : std::vector<std::vector<std::string>>{{"frequencies", "--dim", "8"},
                                                                {"apply", "--position", "1", "--vector", "1,0,0,1"},
                                                                {"matrix", "--dim", "4", "--position", "1"}}) {
    SCOPED_TRACE(joined(args));
    const auto numbers = [&](const std::string& text) {
      std::vector<std::string> found;
      for (auto it = std::sregex_iterator(text.begin(), text.end(), number); it != std::sregex_iterator(); ++it) {
        found.push_back(it->str());
      }
      return found;
    };
    const auto en = numbers(rope_cli(args).out);
    const auto zh = numbers(rope_cli(with_lang(args, "zh")).out);
    EXPECT_EQ(zh, en);
  }
}

TEST(Lang, CsvAndJsonStayEnglish) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"frequencies", "--dim", "8", "--json"},
           {"frequencies", "--model", "llama-3.1-8b", "--json"},
           {"frequencies", "--dim", "8", "--csv", "-"},
           {"verify", "--trials", "5", "--json"},
           {"verify", "--trials", "5", "--csv", "-"},
           {"decay", "--dim", "8", "--points", "5", "--csv", "-"},
           {"inspect", "--model", "phi-3-mini-128k", "--json"},
           {"inspect", "--list", "--json"},
           {"apply", "--position", "1", "--vector", "1,0", "--csv", "-"},
           {"layouts", "--dim", "4", "--csv", "-"},
       }) {
    SCOPED_TRACE(joined(args));
    const Result en = rope_cli(args);
    ASSERT_EQ(en.code, 0) << en.err;
    EXPECT_EQ(rope_cli(with_lang(args, "zh")).out, en.out);
  }
}

TEST(Lang, InspectTranslatesTheReadersNotesAndTheScalingWarnings) {
  const Result r = rope_cli({"inspect", "--model", "phi-3-mini-128k", "--lang", "zh"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("从顶层读取（Phi-3 的写法）"));
  EXPECT_THAT(r.out, HasSubstr("说明："));
  const Result w = rope_cli({"frequencies", "--dim", "8", "--scaling", "linear", "--factor", "0.5", "--lang", "zh"});
  EXPECT_THAT(w.out, HasSubstr("警告：factor 0.5 < 1 是压缩上下文而不是扩展"));
  const Result l = rope_cli({"inspect", "--list", "--lang", "zh"});
  EXPECT_THAT(l.out, HasSubstr("47 个模型预设"));
  EXPECT_THAT(l.out, HasSubstr("Llama 3.1 8B:llama3 缩放 f=8"));
}

TEST(Lang, VerifyNamesItsIdentitiesInChineseAndKeepsTheEnglishNamesInCsv) {
  const Result zh = rope_cli({"verify", "--trials", "5", "--lang", "zh", "--wide"});
  ASSERT_EQ(zh.code, 0) << zh.err;
  for (const char* name : {"相对位置", "正交性", "复合", "模长不变", "平移不变", "三种算法", "两种排列",
                           "正弦编码（对照）", "逐元素 = 矩阵 = 复数"}) {
    EXPECT_THAT(zh.out, HasSubstr(name));
  }
  const Result csv = rope_cli({"verify", "--trials", "5", "--lang", "zh", "--csv", "-"});
  EXPECT_THAT(csv.out, HasSubstr("\"shift invariance\""));
  EXPECT_THAT(csv.out, Not(HasSubstr("平移不变")));
}

TEST(Lang, VisionTowersSpeakChinese) {
  // --vision and --tower vision (docs/multi-axis.md §6) in every command that prints them.
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"sections", "--vision", "pixtral", "--dim", "16"},
           {"frequencies", "--vision", "llama4", "--dim", "16"},
           {"apply", "--vision", "llama4", "--position", "2,3", "--vector", "1,0,0,1,1,0,0,1"},
           {"matrix", "--vision", "pixtral", "--dim", "8", "--position", "2,3", "--digits", "2"},
           {"verify", "--vision", "llama4", "--dim", "16", "--trials", "10"},
           {"inspect", "--model", "qwen2.5-vl-7b"},
           {"inspect", "--model", "qwen2.5-vl-7b", "--tower", "vision"}}) {
    SCOPED_TRACE(joined(args));
    const Result zh = rope_cli(with_lang(args, "zh"));
    ASSERT_EQ(zh.code, 0) << zh.err;
    EXPECT_TRUE(has_chinese(zh.out));
    EXPECT_EQ(first_english_phrase(zh.out), "") << zh.out;
  }
}

// WRONG BEHAVIOUR, left for the lead (src/rope/models/hf/hf_config_vision.cpp, vision_tower's `add`): the origin
// line of the grid is English in the Chinese output,
//   rope inspect --model llama-4-scout-17b-16e --tower vision --lang zh
//   →  "patches per side: 24 (vision_config.image_size / vision_config.patch_size)"
// where every other origin line there is a key name (head_dim, rope_theta); it should be Chinese (e.g.
// "每边块数: 24 (...)"). Enable when fixed.
TEST(Lang, VisionTowerGridOriginIsChinese) {
  const Result zh = rope_cli({"inspect", "--model", "llama-4-scout-17b-16e", "--tower", "vision", "--lang", "zh"});
  ASSERT_EQ(zh.code, 0) << zh.err;
  EXPECT_EQ(first_english_phrase(zh.out), "") << zh.out;
}

TEST(Lang, EveryCommandTakesLangWithoutAFigureAndRejectsOtherLanguages) {
  for (const std::string command :
       {"frequencies", "matrix", "apply", "verify", "decay", "wavelengths", "inspect", "attention", "encodings",
        "layouts", "explain", "precision", "bound", "extrapolation", "bench", "positions", "sections"}) {
    SCOPED_TRACE(command);
    const Result help = rope_cli({command, "--help"});
    EXPECT_THAT(help.out, HasSubstr("--lang"));
  }
  expect_one_line_error(rope_cli({"verify", "--lang", "fr"}), 2, "--lang must be 'en' or 'zh' (got 'fr')");
  expect_one_line_error(rope_cli({"decay", "--lang", "EN"}), 2, "--lang must be 'en' or 'zh' (got 'EN')");
}

}  // namespace
}  // namespace rope::test
