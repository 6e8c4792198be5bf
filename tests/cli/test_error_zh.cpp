// Error messages in Chinese (apps/rope/cli/error_zh.hpp): every message of docs/errors.md (the
// hardening sweep's corpus: what rope prints for every bad value of every option) has a Chinese template,
// and the Chinese keeps the values, paths and option names of the English.
#include <fmt/args.h>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sstream>

#include "rope/cli/error_zh.hpp"
#include "rope/core/message.hpp"
#include "support/cli_harness.hpp"

namespace rope::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

/// The messages of docs/errors.md's tables: the last cell of each row that starts "rope: ", without
/// "rope: " and the Markdown escape of '|'.
std::vector<std::string> documented_messages() {
  std::ifstream in(std::string(ROPE_REFERENCE_DIR) + "/../../docs/errors.md");
  std::vector<std::string> messages;
  for (std::string line; std::getline(in, line);) {
    const std::size_t at = line.rfind("| rope: ");
    if (line.rfind("| ", 0) != 0 || at == std::string::npos || line.size() < at + 10) continue;
    std::string message = line.substr(at + 8, line.size() - at - 8 - 2);  // drop " |"
    for (std::size_t p = message.find("\\|"); p != std::string::npos; p = message.find("\\|", p + 1)) {
      message.erase(p, 1);
    }
    messages.push_back(message);
  }
  return messages;
}

/// English left in a translated message: three words of letters in a row, once quoted values
/// ('...'), option names (--dim) and identifiers are taken out.
std::string english_left(const std::string& message) {
  // no std::regex: messages hold values of 100 000 characters, too long for its recursion
  std::string text;
  bool quoted = false;
  for (char c : message) {
    if (c == '\'') {
      quoted = !quoted;
      text += ' ';
    } else if (!quoted) {
      text += c;
    }
  }
  std::istringstream words(text);
  int run = 0;
  std::string phrase;
  for (std::string w; words >> w;) {
    while (!w.empty() && std::string("(,;:.)").find(w.back()) != std::string::npos) w.pop_back();
    if (!w.empty() && w.front() == '(') w.erase(w.begin());
    const bool word = w.size() >= 2 && std::all_of(w.begin(), w.end(), [](char c) {
                        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
                      });
    run = word ? run + 1 : 0;
    phrase = word ? phrase + " " + w : "";
    if (run >= 3) return phrase;
  }
  return "";
}

TEST(ErrorZh, TheDetectorFindsEnglish) {
  EXPECT_NE(english_left("--dim must be a decimal integer (got 'x')"), "");
  EXPECT_EQ(english_left("--dim 必须是十进制整数（实际为 'not a number at all'）"), "");
}

TEST(ErrorZh, EveryDocumentedMessageHasItsChinese) {
  const std::vector<std::string> messages = documented_messages();
  ASSERT_GT(messages.size(), 600u);  // the page was found and read
  std::vector<std::string> missing;
  for (const std::string& english : messages) {
    const std::optional<std::string> zh = cli::error_zh_exact(english);
    if (!zh || !english_left(*zh).empty()) {
      if (std::find(missing.begin(), missing.end(), english) == missing.end()) missing.push_back(english);
    }
  }
  std::string list;
  for (const std::string& m : missing) list += "  " + m + "\n";
  EXPECT_TRUE(missing.empty()) << missing.size()
                               << " messages of docs/errors.md have no Chinese (or keep English words): add an "
                                  "entry to po/zh_CN.po, e.g. msgctxt \"error\" msgid \"{0} must be ... (got "
                                  "{1})\" msgstr \"{0} 必须…（实际为 {1}）\":\n"
                               << list;
}

TEST(ErrorZh, TheChineseKeepsTheValuesAndNestsTheReason) {
  EXPECT_EQ(cli::error_zh("--dim must be a decimal integer (got '1?]0;x')"),
            "--dim 必须是十进制整数（实际为 '1?]0;x'）");
  EXPECT_EQ(cli::error_zh("cannot read 'a b.json': No such file or directory"),
            "无法读取 'a b.json'：没有这个文件或目录");
  // An unknown reason stays as the system wrote it; an unknown message stays English.
  EXPECT_EQ(cli::error_zh("cannot read 'x': Stale file handle"), "无法读取 'x'：Stale file handle");
  EXPECT_EQ(cli::error_zh("something new happened"), "something new happened");
  // The template with the most fixed text wins over a more general one.
  EXPECT_EQ(cli::error_zh("layout must be 'interleaved' or 'half' (got 'x')"),
            "layout 必须是 'interleaved' 或 'half'（实际为 'x'）");
}

TEST(ErrorZh, AHostileMessageEndsQuickly) {
  // thousands of the separators the templates search for: the work bound stops the search (kMaxSteps)
  std::string value;
  for (int i = 0; i < 20000; ++i) value += "', '";
  const std::string english = "--layout must be '" + value + "' (got '" + value + "')";
  const std::string zh = cli::error_zh(english);  // Chinese or English; it returns
  EXPECT_GE(zh.size(), value.size());
}

/// A refusal under --lang zh: exit code 2, one line holding `chinese`, and no English phrase left in it
/// (the quoted values, paths and option names aside).
void expect_chinese_error(const Result& r, const std::string& chinese) {
  expect_one_line_error(r, 2, chinese);
  EXPECT_EQ(english_left(r.err.substr(r.err.find(' ') + 1)), "") << r.err;  // after "rope: "
}

class ErrorZhFiles : public TempDirTest {
 protected:
  /// A Qwen2-VL-like config.json with head_dim 128 and `rope_scaling`, written to `name`.
  std::string mrope_config(const std::string& name, const std::string& rope_scaling) {
    std::ofstream(path(name)) << R"({"model_type": "qwen2_vl", "hidden_size": 4096, "num_attention_heads": 32,
        "head_dim": 128, "rope_theta": 1000000, "rope_scaling": )"
                              << rope_scaling << "}";
    return path(name);
  }
  std::string file(const std::string& name, const std::string& text) {
    std::ofstream(path(name), std::ios::binary) << text;
    return path(name);
  }
};

TEST_F(ErrorZhFiles, MropeSectionsOfAConfigFileInChinese) {
  // make_axis_map's rules, as the config reader reports them ("<file>: <path>: <rule>")
  const std::string sum = mrope_config("sum.json", R"({"rope_type": "default", "mrope_section": [16, 24, 25]})");
  for (const std::vector<std::string>& command : {std::vector<std::string>{"sections"},
                                                  {"apply", "--position", "1", "--vector", "1,0"},
                                                  {"positions", "--text", "3"}}) {
    std::vector<std::string> args = command;
    args.insert(args.end(), {"--config", sum, "--lang", "zh"});
    SCOPED_TRACE(command.front());
    expect_chinese_error(rope_cli(args),
                         sum +
                             ": rope_scaling.mrope_section：mrope_section [16, 24, 25] 之和为 65，而不是 "
                             "rotary_dim / 2 = 64：HF 把 cos 和 sin 按分段切分两遍");
  }
  for (const char* sections : {"[]", "[16, 16, 16, 16]", "[16, 16, 16, 8, 8]"}) {
    const std::string config =
        mrope_config("count.json", R"({"rope_type": "default", "mrope_section": )" + std::string(sections) + "}");
    expect_chinese_error(rope_cli({"sections", "--config", config, "--lang", "zh"}), "：应有 1 到 3 个分段");
  }
  const std::string inter =
      mrope_config("inter.json", R"({"rope_type": "default", "mrope_section": [32, 32], "mrope_interleaved": true})");
  expect_chinese_error(rope_cli({"sections", "--config", inter, "--lang", "zh"}),
                       "mrope_section [32, 32]：交错式 M-RoPE 读取 3 个分段（t, h, w）");
  // ERNIE-4.5-VL's (A8): as many pairs of height as of width, every pair one axis.
  for (
      const auto& [sections, zh] : std::vector<std::pair<std::string, std::string>>{
          {"[20, 24, 20]",
           "mrope_section [20, 24, 20]：ERNIE-4.5-VL 的三维 RoPE 读取 3 个分段（h, w, t），其中高度和宽度的对数必须相同"},
          {"[22, 22, 19]",
           "mrope_section [22, 22, 19] 之和为 63，而不是 rotary_dim / 2 = 64：ERNIE-4.5-VL 的代码给每一对恰好分配一个轴"}}) {
    const std::string ernie = file("ernie.json", R"({"model_type": "ernie4_5_vl_moe_text", "head_dim": 128,
        "rope_parameters": {"rope_type": "default", "mrope_section": )" +
                                                     sections + "}}");
    expect_chinese_error(rope_cli({"inspect", "--config", ernie, "--lang", "zh"}),
                         "rope_parameters.mrope_section：" + zh);
  }
  // ERNIE-4.5-VL's rotary class takes rope_type default only (data/families.json accepted_rope_types).
  const std::string yarn = file("ernie_yarn.json", R"({"model_type": "ernie4_5_vl_moe_text", "head_dim": 128,
      "rope_parameters": {"rope_type": "yarn", "factor": 4, "original_max_position_embeddings": 32768}})");
  expect_chinese_error(
      rope_cli({"inspect", "--config", yarn, "--lang", "zh"}),
      "rope_parameters.rope_type：HF 中 model_type ernie4_5_vl_moe_text 的代码拒绝 rope_type 'yarn'：它的"
      "旋转编码类只接受 default，对其他任何类型都抛出 ValueError（transformers 4f2fa85af5eb "
      "models/ernie4_5_vl_moe/modeling_ernie4_5_vl_moe.py:66-69, Ernie4_5_VL_MoeTextRotaryEmbedding.__init__）");
  // the rules nobody reaches through a config (its reader checks the numbers first) translate too
  EXPECT_EQ(cli::error_zh("c.json: rope_scaling.mrope_section: mrope_section [1, 70000]: every section is a whole "
                          "number in 0 … 65536"),
            "c.json: rope_scaling.mrope_section：mrope_section [1, 70000]：每个分段必须是 0 … 65536 中的整数");
  EXPECT_EQ(cli::error_zh("c.json: rope_scaling.mrope_section: M-RoPE needs at least one pair (got 0)"),
            "c.json: rope_scaling.mrope_section：M-RoPE 至少需要一个维度对（实际为 0）");
  EXPECT_EQ(cli::error_zh("c.gguf: rope.dimension_sections: mrope_section [0, 0, 0, 0] adds up to 0"),
            "c.gguf: rope.dimension_sections：mrope_section [0, 0, 0, 0] 之和为 0");
  // get_mscale's refusal named neither the file nor the key (issue 52, item 8): the reader's rule, in Chinese too
  EXPECT_EQ(
      cli::error_zh("c.gguf: deepseek32.rope.scaling.yarn_log_multiplier: 1e+38 / 0.1 is not a finite float32 "
                    "(llama.cpp's loader divides it in float32, src/models/deepseek32.cpp:34-38): "
                    "mscale_all_dim must be at most 3.4028234663852886e+38"),
      "c.gguf: deepseek32.rope.scaling.yarn_log_multiplier：1e+38 / 0.1 不是有限的 float32 数（llama.cpp 的加载器以 "
      "float32 做这一除法，src/models/deepseek32.cpp:34-38）：mscale_all_dim 至多为 3.4028234663852886e+38");
  EXPECT_TRUE(
      cli::error_zh_exact("c.json: x: a 2-D vision map is built from the tower's implementation "
                          "(vision_axis_map), not from sections"));
}

TEST_F(ErrorZhFiles, AxisPositionsLineNumbersInChinese) {
  const std::string dumps = std::string(ROPE_REFERENCE_DIR) + "/../../data/dumps/";
  const std::string config = file("config.json", R"({"model_type": "qwen2_vl", "hidden_size": 128,
      "num_attention_heads": 2, "rope_theta": 10000, "rope_scaling": {"type": "mrope", "mrope_section": [8, 12, 12]}})");
  const auto check = [&](const std::string& positions) {
    return rope_cli({"check", "--before", dumps + "q.npy", "--after", dumps + "q_rope.npy", "--config", config,
                     "--axis-positions", positions, "--lang", "zh"});
  };
  const auto r = check(file("nan.csv", "0,0,0\n1,1,1\n\n2,2,2\n3,3,3\nnan,4,4\n"));
  expect_chinese_error(r, "--axis-positions '" + path("nan.csv") + "' 第 6 行必须是有限数（实际为 'nan'）");
  EXPECT_THAT(r.err, Not(HasSubstr("line")));
  expect_chinese_error(check(file("empty.csv", "0,0,0\n,1,1\n")), "' 第 2 行必须是十进制数（实际为 ''）");
  expect_chinese_error(check(file("control.csv", "0,0,0\n1\x1b,1,1\n")), "' 第 2 行必须是十进制数（实际为 '1\\e'）");
  expect_chinese_error(check(file("huge.csv", "0,0,0\n1e999,1,1\n")), "' 第 2 行超出 double 的范围（实际为 '1e999'）");
}

TEST(ErrorZh, CliElevenCountsInChinese) {
  expect_chinese_error(rope_cli({"apply", "--position", "1", "--position", "2", "--vector", "1,0", "--lang", "zh"}),
                       "--position：最多接受 1 个值，但收到 2 个（见 'rope apply --help'）");
  expect_chinese_error(rope_cli({"inspect", "--model", "a", "--model", "b", "--lang", "zh"}),
                       "--model：最多接受 1 个值，但收到 2 个（见 'rope inspect --help'）");
  expect_chinese_error(rope_cli({"frequencies", "--lang", "zh", "--lang", "zh"}),
                       "--lang：最多接受 1 个值，但收到 2 个（见 'rope frequencies --help'）");
  expect_chinese_error(rope_cli({"matrix", "--relative", "1", "2", "3", "--lang", "zh"}),
                       "--relative：最多接受 2 个值，但收到 3 个（见 'rope matrix --help'）");
  // CLI11's other counts and conversions (CLI/Error.hpp)
  EXPECT_EQ(cli::error_zh("Expected exactly 2 arguments to --relative, got 3"),
            "--relative 需要恰好 2 个参数，实际收到 3 个");
  EXPECT_EQ(cli::error_zh("Expected at least 1 arguments to --x, got 0"), "--x 至少需要 1 个参数，实际收到 0 个");
  EXPECT_EQ(cli::error_zh("--json: too many inputs for a flag"), "--json：开关选项收到的输入过多");
  EXPECT_EQ(cli::error_zh("--json: Should be true/false or a number"), "--json：应为 true/false 或数字");
}

TEST(ErrorZh, InspectWithoutAModelSaysOneOfThree) {
  expect_chinese_error(rope_cli({"inspect", "--lang", "zh"}),
                       "rope inspect 需要以下之一：config.json 文件 FILE、--model NAME 或 --list");
  EXPECT_THAT(rope_cli({"inspect", "--lang", "zh"}).err, Not(HasSubstr("同时")));
}

TEST_F(ErrorZhFiles, JsonParseErrorsInChinese) {
  const auto inspect = [&](const std::string& name, const std::string& text) {
    return rope_cli({"inspect", "--config", file(name, text), "--lang", "zh"});
  };
  expect_chinese_error(inspect("hostname", "vbox\n"),
                       "不是有效的 JSON：第 1 行第 1 列：解析值时出现语法错误——无效的字面量；最后读到：'v'");
  expect_chinese_error(inspect("esc.json", "{\"a\": \"\x1b\"}"),
                       "解析值时出现语法错误——无效的字符串：控制字符 U+001B（ESC）必须转义为 \\u001B；最后读到：");
  expect_chinese_error(inspect("tab.json", "{\"a\": \"\t\"}"), "控制字符 U+0009（HT）必须转义为 \\u0009 或 \\t；");
  expect_chinese_error(inspect("minus.json", R"({"hidden_size": -x})"),
                       "解析值时出现语法错误——无效的数字；'-' 之后应为数字；最后读到：'-x'");
  expect_chinese_error(inspect("eof.json", R"({"a": )"), "输入意外结束");
  expect_chinese_error(inspect("separator.json", R"({"a" 1})"),
                       "解析对象分隔符时出现语法错误——意外的数字字面量；应为':'");
  expect_chinese_error(inspect("array.json", "[1 2]"), "解析数组时出现语法错误——意外的数字字面量；应为']'");
  expect_chinese_error(inspect("object.json", R"({"a": 1 "b"})"),
                       "解析对象时出现语法错误——意外的字符串字面量；应为'}'");
  expect_chinese_error(inspect("quote.json", "{\"a"), "无效的字符串：缺少结尾的引号");
}

TEST_F(ErrorZhFiles, JsonTypeNamesInChinese) {
  const auto inspect = [&](const std::string& name, const std::string& text) {
    return rope_cli({"inspect", "--config", file(name, text), "--lang", "zh"});
  };
  const std::string model = R"({"model_type": "llama", "hidden_size": 128, "num_attention_heads": 2, )";
  expect_chinese_error(inspect("s.json", R"({"model_type": "llama", "hidden_size": "x", "num_attention_heads": 2})"),
                       "hidden_size：应为整数，实际为 字符串");
  expect_chinese_error(inspect("a.json", R"({"model_type": "llama", "hidden_size": 128, "num_attention_heads": [1]})"),
                       "num_attention_heads：应为整数，实际为 数组");
  expect_chinese_error(inspect("b.json", model + R"("rope_scaling": true})"), "rope_scaling：应为对象，实际为 布尔值");
  expect_chinese_error(inspect("n.json", model + R"("rope_scaling": 5})"), "rope_scaling：应为对象，实际为 数");
  expect_chinese_error(inspect("o.json", model + R"("rope_theta": {}})"), "rope_theta：应为数字，实际为 对象");
  expect_chinese_error(inspect("null.json", "null"), "顶层应为 JSON 对象，实际为 空值");
  // a number after "got" stays as it is
  EXPECT_EQ(cli::error_zh("c.json: hidden_size: expected an integer, got 3.5"),
            "c.json: hidden_size：应为整数，实际为 3.5");
}

TEST(ErrorZh, LangZhPrintsTheErrorInChineseWithTheSameExitCode) {
  expect_one_line_error(rope_cli({"frequencies", "--dim", "3", "--lang", "zh"}), 2,
                        "维度 d 必须是偶数，且在 2 到 65536 之间（实际为 3）");
  expect_one_line_error(rope_cli({"frequencies", "--dim", "x", "--lang", "zh"}), 2, "--dim 必须是十进制整数");
  expect_one_line_error(rope_cli({"frequencies", "--bogus", "--lang=zh"}), 2,
                        "多余的参数：--bogus（见 'rope frequencies --help'）");
  expect_one_line_error(rope_cli({"inspect", "/nonexistent/c.json", "--lang", "zh"}), 3, "无法读取");
  expect_one_line_error(rope_cli({"--lang", "zh"}), 2, "多余的参数");
  // English unless asked.
  expect_one_line_error(rope_cli({"frequencies", "--dim", "3"}), 2, "dimension d must be even");
}

/// An error of the library or the command line is shown in Chinese by its key (error_zh(Message)): the
/// catalog's Chinese of its id filled with its values, as they are. The English of each case is what text
/// matching had to take apart; `by_text` is what that gave.
struct KeyedCase {
  const char* name;
  Message message;
  std::string zh;
  std::string by_text;
};

class ErrorZhByKey : public ::testing::TestWithParam<KeyedCase> {};

TEST_P(ErrorZhByKey, TheMessageIsTranslatedFromItsId) {
  const KeyedCase& c = GetParam();
  EXPECT_EQ(cli::error_zh(c.message), c.zh);
  EXPECT_EQ(cli::error_zh(c.message.en), c.by_text);
}

/// A long value of the matcher's worst kind: thousands of "', '" (error_zh.cpp), kept as it is.
std::string hostile() {
  std::string v;
  for (int i = 0; i < 20000; ++i) v += "', '";
  return v;
}

INSTANTIATE_TEST_SUITE_P(
    Keys, ErrorZhByKey,
    ::testing::Values(
        KeyedCase{"flag_as_field", error_msg("{0} must be between {1} and {2} (got {3})", "--tokens", 1, 512, 0),
                  "--tokens 必须在 1 到 512 之间（实际为 0）", "--tokens 必须在 1 到 512 之间（实际为 0）"},
        KeyedCase{
            "hostile_value",
            error_msg("{0} must be '{1}', '{2}' or '{3}' (got '{4}')", "--kind", "bound", "ones", "random", hostile()),
            "--kind 必须是 'bound'、'ones' 或 'random'（实际为 '" + hostile() + "'）",
            "--kind 必须是 'bound'、'ones' 或 'random'（实际为 '" + hostile() + "'）"},
        // a name the library builds in English ("FILE line 3"): the entry with more fixed text that fits the
        // whole English is the catalog's phrasing of it
        KeyedCase{"name_with_words", error_msg("{0} must be a finite number (got {1})", "p.csv line 3", "'nan'"),
                  "p.csv 第 3 行必须是有限数（实际为 'nan'）", "p.csv 第 3 行必须是有限数（实际为 'nan'）"},
        // a nested message, translated by its own id; a system's reason (text) by matching it
        KeyedCase{"nested",
                  error_msg("{0}; did you mean {1}?", error_msg("'{0}' is not one of the choices", "hlf"), "half"),
                  "'hlf' 不是可选值之一；是否应为 half？", "'hlf' 不是可选值之一；是否应为 half？"},
        KeyedCase{"system_reason", error_msg("cannot read '{0}': {1}", "x.json", "No such file or directory"),
                  "无法读取 'x.json'：没有这个文件或目录", "无法读取 'x.json'：没有这个文件或目录"}),
    [](const ::testing::TestParamInfo<KeyedCase>& info) { return std::string(info.param.name); });

TEST(ErrorZh, ARuleOfTheLibraryNamesTheOptionsByTheirKey) {
  // resolve.cpp's rule between --tower and --model/--config, its flags named by option_name: its id holds
  // fields for them (the Python module names them tower, Spec("PRESET"), tests/python/test_errors.py).
  expect_chinese_error(rope_cli({"frequencies", "--tower", "vision", "--lang", "zh"}),
                       "--tower 需要 --model 或 --config（视觉语言模型的配置）");
  expect_chinese_error(rope_cli({"positions", "--lang", "zh"}),
                       "序列为空：请给出 --text N、--image TxHxW 或 --video TxHxW");
}

}  // namespace
}  // namespace rope::test
