// Every command given a model with FoPE (Intern-S1-Pro, docs/multi-axis.md §7 "In the commands"): its exit code and
// its first line, or its refusal. A model's numbers are the model's: a command whose numbers are rotations by m·θ_i
// refuses (exit 2, one line naming the model, the coefficients that mix its frequencies and what computes it); the θ
// list is printed with the padded pairs marked; check and diff compute FoPE with --coefficients (tests/cli/
// check_fope.py against tests/reference/fope.py's dumps). The table names every command of kCommands.
#include "rope/cli/cli.hpp"

#include <algorithm>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "rope/cli/commands.hpp"
#include "support/cli_harness.hpp"
#include "support/shared.hpp"

namespace rope {
namespace {

using test::kDumps;
using test::Result;
using test::rope_cli;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

/// One command with --model intern-s1-pro: its other arguments, the exit code, and the start of its first line on
/// standard output (exit 0) or the text its one line on standard error holds (exit 2).
struct FopeCommandCase {
  const char* command;
  std::vector<std::string> args;
  int code;
  const char* says;
};

/// The refusal of a command that computes rotations by m·θ_i (models/fope.hpp fope_refusal).
constexpr const char* kFopeRefused =
    "rope: intern-s1-pro has FoPE (docs/multi-axis.md §7): each pair's cos and sin mix the kept frequencies by the "
    "checkpoint's coefficients cos_coef and sin_coef, so no pair turns by m·θ_i, which is what this computes; rope "
    "check --coefficients FILE, rope diff --coefficients FILE, rope apply --coefficients FILE and rope matrix "
    "--coefficients FILE compute it";

/// The refusal of a command that computes FoPE (check, diff, apply, matrix) given no checkpoint: it names its option.
constexpr const char* kFopeNeedsCoefficients =
    "rope: intern-s1-pro has FoPE: each pair's cos and sin are weighted by the checkpoint's coefficients cos_coef and "
    "sin_coef; give the checkpoint with --coefficients FILE";

/// A command that takes no model (weights takes the preset's name for its first file, and the next one is extra).
constexpr const char* kNoModel = "these arguments were not expected: --model";

const std::vector<FopeCommandCase>& fope_command_cases() {
  // Dumps of d = 128, the model's head_dim: what check and diff say is FoPE's, not the shape's.
  static const std::string q = kDumps + "mrope_q.npy", q_rope = kDumps + "mrope_q_rope.npy";
  static const std::vector<FopeCommandCase> cases{
      {"frequencies", {}, 0, "RoPE frequencies from intern-s1-pro: default scaling, d = 128"},
      {"matrix", {"--position", "3"}, 2, kFopeNeedsCoefficients},
      {"apply", {"--position", "3", "--vector", "1,0"}, 2, kFopeNeedsCoefficients},
      {"verify", {"--trials", "5"}, 2, kFopeRefused},
      {"decay", {}, 2, kFopeRefused},
      {"wavelengths", {}, 0, "RoPE wavelengths λ_i = 2π/θ_i = 2π·base^(2i/d), d = 128"},
      {"inspect", {}, 0, "RoPE of intern-s1-pro (model_type interns1_pro_text)"},
      {"attention", {}, 2, kFopeRefused},
      {"encodings", {}, 2, kNoModel},
      {"layouts", {}, 2, kFopeRefused},
      {"explain", {}, 2, kNoModel},
      {"precision", {}, 2, kNoModel},
      {"bound", {"--context", "1024"}, 2, kNoModel},
      {"extrapolation", {"--train-length", "4096"}, 2, kNoModel},
      {"bench", {}, 2, kNoModel},
      {"permute", {}, 2, kNoModel},
      {"weights", {"a", "b"}, 2, kNoModel},
      {"check", {"--before", q, "--after", q_rope, "--positions", "0:24"}, 2, kFopeNeedsCoefficients},
      {"diff",
       {"--before", q, "--after-a", q_rope, "--after-b", q_rope, "--positions", "0:24"},
       2,
       kFopeNeedsCoefficients},
      // identify finds the RoPE from the dumps and says so.
      {"identify",
       {"--before", q, "--after", q_rope},
       2,
       "rope identify infers the RoPE from the dumps, with no model: leave out --model"},
      {"spectrum", {"--dump", kDumps + "q_spectrum.npy"}, 2, kFopeRefused},
      {"positions", {"--image", "1x2x2"}, 2, "has no M-RoPE position ids rope knows"},
      {"sections", {}, 2, kFopeRefused},
      {"lesson", {}, 2, kNoModel},
  };
  return cases;
}

TEST(FopeCommandTable, NamesEveryCommand) {
  std::set<std::string> named;
  for (const FopeCommandCase& c : fope_command_cases()) named.insert(c.command);
  for (const cli::CommandEntry& e : cli::kCommands) EXPECT_EQ(named.count(std::string(e.name)), 1u) << e.name;
  EXPECT_EQ(named.size(), std::size(cli::kCommands));
}

class FopeCommand : public ::testing::TestWithParam<FopeCommandCase> {};

TEST_P(FopeCommand, SaysWhatItComputesOfTheModel) {
  const FopeCommandCase& c = GetParam();
  std::vector<std::string> args{c.command, "--model", "intern-s1-pro"};
  args.insert(args.end(), c.args.begin(), c.args.end());
  const Result r = rope_cli(args);
  ASSERT_EQ(r.code, c.code) << r.out << r.err;
  if (c.code == 0) {
    EXPECT_THAT(r.out, StartsWith(c.says));
    EXPECT_EQ(r.err, "");
  } else {
    EXPECT_THAT(r.err, HasSubstr(c.says));
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;  // one line
  }
}

INSTANTIATE_TEST_SUITE_P(Commands, FopeCommand, ::testing::ValuesIn(fope_command_cases()),
                         [](const auto& info) { return std::string(info.param.command); });

TEST(FopeCommandText, TheRefusalIsChineseUnderLangZh) {
  const Result r = rope_cli({"decay", "--model", "intern-s1-pro", "--lang", "zh"});
  ASSERT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("intern-s1-pro 使用 FoPE"));
  EXPECT_THAT(r.err, HasSubstr("rope check --coefficients FILE"));
  EXPECT_THAT(r.err, Not(HasSubstr("mix the kept")));
}

TEST(FopeCommandText, FrequenciesMarkThePaddedPairs) {
  // tests/reference/fope.py: θ_44 is kept and θ_45 is the first padded pair (K = 45 of 64).
  const Result text = rope_cli({"frequencies", "--model", "intern-s1-pro"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("  FoPE\n"));
  EXPECT_THAT(text.out, HasSubstr("kept: mixed\n   45"));
  EXPECT_THAT(text.out, HasSubstr("padded: not rotated\n"));
  EXPECT_THAT(text.out, HasSubstr("pairs 0 … 44 mix these 45 θ"));
  EXPECT_THAT(text.out, HasSubstr("pairs 45 … 63 are padded (cos 1, sin 0) and do not rotate"));
  const Result json = rope_cli({"frequencies", "--model", "intern-s1-pro", "--json"});
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["fope"]["kept"], 45);
  EXPECT_EQ(j["fope"]["padded"], 19);
  ASSERT_EQ(j["fope"]["rotated"].size(), 64u);
  EXPECT_EQ(j["fope"]["rotated"][44], true);
  EXPECT_EQ(j["fope"]["rotated"][45], false);
  const Result csv = rope_cli({"frequencies", "--model", "intern-s1-pro", "--csv", "-"});
  EXPECT_THAT(csv.out, StartsWith("pair,theta,wavelength,original_theta,original_wavelength,ratio,band,fope\n0,1,"));
  EXPECT_THAT(csv.out, HasSubstr(",kept\n45,"));
  EXPECT_THAT(csv.out, HasSubstr(",padded\n"));
  const Result zh = rope_cli({"frequencies", "--model", "intern-s1-pro", "--lang", "zh"});
  EXPECT_THAT(zh.out, Not(HasSubstr("padded: not rotated")));
}

TEST(FopeCommandText, WavelengthsMarkThePaddedPairs) {
  const Result text = rope_cli({"wavelengths", "--model", "intern-s1-pro"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("kept: mixed\n   45"));
  EXPECT_THAT(text.out, HasSubstr("pairs 45 … 63 are padded (cos 1, sin 0) and do not rotate"));
  const auto j = nlohmann::json::parse(rope_cli({"wavelengths", "--model", "intern-s1-pro", "--json"}).out);
  EXPECT_EQ(j["fope"]["kept"], 45);
  EXPECT_EQ(j["fope"]["padded"], 19);
}

/// tests/reference/fope.py's sharded checkpoint of Intern-S1-Pro's shape (4 key-value heads, K = 45), written at build
/// time (rope_variant_dumps_67); the numbers against the port are reference.fope's (tests/cli/check_fope.py).
const std::string kFopeCommandsCheckpoint = std::string(ROPE_VARIANT_DUMPS) + "_67/fope/checkpoint";

/// 128 numbers: a head of intern-s1-pro.
std::string fope_commands_vector() {
  std::string v;
  for (int i = 0; i < 128; ++i) v += (i ? "," : "") + std::to_string((i % 7) - 3);
  return v;
}

/// apply and matrix with --coefficients (and --kv-head): what they compute, or the one line that refuses.
struct FopeComputeCase {
  const char* name;
  std::vector<std::string> args;  ///< after the command; "CKPT" is the checkpoint, "X" the vector
  int code;
  const char* says;  ///< the start of standard output (exit 0, 1) or a part of the one line on standard error (2)
};

class FopeCompute : public ::testing::TestWithParam<FopeComputeCase> {};

TEST_P(FopeCompute, ComputesOrRefuses) {
  const FopeComputeCase& c = GetParam();
  std::vector<std::string> args;
  for (const std::string& a : c.args)
    args.push_back(a == "CKPT" ? kFopeCommandsCheckpoint : a == "X" ? fope_commands_vector() : a);
  const Result r = rope_cli(args);
  ASSERT_EQ(r.code, c.code) << r.out << r.err;
  if (c.code != 2) {
    EXPECT_THAT(r.out, StartsWith(c.says));
    EXPECT_EQ(r.err, "");
  } else {
    EXPECT_THAT(r.err, HasSubstr(c.says));
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

INSTANTIATE_TEST_SUITE_P(
    ApplyMatrix, FopeCompute,
    ::testing::Values(
        FopeComputeCase{"apply",
                        {"apply", "--model", "intern-s1-pro", "--coefficients", "CKPT", "--position", "4101",
                         "--vector", "X", "--kv-head", "2"},
                        0,
                        "FoPE at position m = 4101, d = 128, base = 5000000, intern-s1-pro: key-value head 2 of 4"},
        FopeComputeCase{
            "apply_head0",
            {"apply", "--model", "intern-s1-pro", "--coefficients", "CKPT", "--position", "3", "--vector", "X"},
            0,
            "FoPE at position m = 3, d = 128, base = 5000000, intern-s1-pro: key-value head 0 of 4"},
        FopeComputeCase{"matrix",
                        {"matrix", "--model", "intern-s1-pro", "--coefficients", "CKPT", "--position", "7"},
                        0,
                        "FoPE's R_m for d = 128, m = 7, base = 5000000, intern-s1-pro: key-value head 0 of 4"},
        FopeComputeCase{"matrix_relative",
                        {"matrix", "--model", "intern-s1-pro", "--coefficients", "CKPT", "--relative", "3", "4101",
                         "--kv-head", "2", "--digits", "1"},
                        0,
                        "R_mᵀ R_n beside R_(n−m) for FoPE, m = 3, n = 4101, d = 128"},
        FopeComputeCase{"kv_head_past",
                        {"apply", "--model", "intern-s1-pro", "--coefficients", "CKPT", "--position", "3", "--vector",
                         "X", "--kv-head", "4"},
                        2,
                        "rope: --kv-head 4: intern-s1-pro has 4 key-value heads, 0 … 3"},
        FopeComputeCase{
            "kv_head_negative",
            {"matrix", "--model", "intern-s1-pro", "--coefficients", "CKPT", "--position", "3", "--kv-head", "-1"},
            2,
            "rope: --kv-head -1: intern-s1-pro has 4 key-value heads, 0 … 3"},
        FopeComputeCase{"kv_head_without_fope",
                        {"apply", "--position", "3", "--vector", "1,0", "--kv-head", "1"},
                        2,
                        "rope: --kv-head chooses FoPE's key-value head: name a model with FoPE (--model or --config)"},
        FopeComputeCase{"coefficients_plain",
                        {"matrix", "--dim", "4", "--position", "3", "--coefficients", "CKPT"},
                        2,
                        "rope: --coefficients FILE gives FoPE's coefficients: name a model with FoPE"},
        FopeComputeCase{
            "coefficients_other_model",
            {"apply", "--model", "llama-3-8b", "--position", "3", "--vector", "X", "--coefficients", "CKPT"},
            2,
            "gives FoPE's coefficients, and llama-3-8b has no FoPE"},
        FopeComputeCase{"float32",
                        {"apply", "--model", "intern-s1-pro", "--coefficients", "CKPT", "--position", "3", "--vector",
                         "X", "--float32"},
                        2,
                        "rope: FoPE is computed at one position m in float64: give one number with --position and "
                        "leave out --float32"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(FopeCommandText, ApplyReportsEachPairsScaleAndAngle) {
  const std::vector<std::string> args{
      "apply",      "--model", "intern-s1-pro", "--coefficients",       kFopeCommandsCheckpoint,
      "--position", "4101",    "--vector",      fope_commands_vector(), "--kv-head",
      "2"};
  const Result text = rope_cli(args);
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("scale |ζ|"));
  EXPECT_THAT(text.out, HasSubstr("pairs 45 … 63 are padded (cos′ 1, sin′ 0) and pass through"));
  EXPECT_THAT(text.out, HasSubstr("they agree"));
  std::vector<std::string> json_args = args;
  json_args.push_back("--json");
  const auto j = nlohmann::json::parse(rope_cli(json_args).out);
  EXPECT_EQ(j["fope"]["kv_head"], 2);
  EXPECT_EQ(j["fope"]["kept"], 45);
  EXPECT_EQ(j["fope"]["padded"], 19);
  ASSERT_EQ(j["fope"]["scale"].size(), 64u);
  EXPECT_EQ(j["fope"]["scale"][45], 1.0);  // padded: passes through
  EXPECT_EQ(j["fope"]["angle"][63], 0.0);
  EXPECT_NE(j["fope"]["scale"][0], 1.0);  // kept: scaled
  std::vector<std::string> zh_args = args;
  zh_args.insert(zh_args.end(), {"--lang", "zh"});
  const Result zh = rope_cli(zh_args);
  EXPECT_THAT(zh.out, HasSubstr("缩放 |ζ|"));
  EXPECT_THAT(zh.out, Not(HasSubstr("scaled rotation")));
}

TEST(FopeCommandText, MatrixSaysTheRelativePropertyDoesNotHold) {
  const Result r = rope_cli({"matrix", "--model", "intern-s1-pro", "--coefficients", kFopeCommandsCheckpoint,
                             "--relative", "3", "4101", "--kv-head", "2", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["equal"], false);
  EXPECT_GT(j["difference"].get<double>(), 0.1);
  const Result text = rope_cli({"matrix", "--model", "intern-s1-pro", "--coefficients", kFopeCommandsCheckpoint,
                                "--relative", "3", "4101", "--digits", "1"});
  EXPECT_THAT(text.out, HasSubstr("does not hold for FoPE"));
  EXPECT_THAT(text.out, Not(HasSubstr("equal\n")));
}

}  // namespace
}  // namespace rope
