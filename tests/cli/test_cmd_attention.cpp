// `rope attention` in-process: every number it prints checked against a computation
// written out here independently of src/rope/analysis/teaching/attention.cpp, exit codes, one-line errors and files.
#include "rope/cli/cli.hpp"

#include <array>
#include <complex>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/attention_draws.hpp"
#include "support/attention_reference.hpp"
#include "support/cli_harness.hpp"
#include "support/reference_data.hpp"
#include "rope/analysis/teaching/attention.hpp"
#include "rope/core/random.hpp"
#include "rope/io/csv.hpp"
#include "support/shared.hpp"

namespace rope {
namespace {

using test::expect_one_line_error;
using test::png_size;
using test::Result;
using test::rope_cli;

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

using test::kEps;

// ---------------------------------------------------------------------------------------------
// Helpers, copied from test_cli.cpp.

class CmdAttention : public test::TempDirTest {};

using test::attention_draws::draws;
using test::attention_draws::Draws;
using test::attention_draws::hf_half;
using test::attention_draws::scores;

Eigen::MatrixXd softmax(const Eigen::MatrixXd& s, bool causal) { return test::independent_softmax(s, causal); }

/// The n × n matrix printed after the line `title` (a header line "i\j 0 1 …", then one line per row),
/// from the `occurrence`-th such title on.
Eigen::MatrixXd printed_matrix(const std::string& out, const std::string& title, int n, int occurrence = 0) {
  std::size_t at = 0;
  for (int k = 0; k <= occurrence; ++k) {
    at = out.find(title + "\n", k == 0 ? 0 : at + 1);
    if (at == std::string::npos) throw std::runtime_error("no '" + title + "' in the output");
  }
  std::istringstream in(out.substr(at));
  std::string line;
  std::getline(in, line);  // title
  std::getline(in, line);  // i\j 0 1 …
  Eigen::MatrixXd m(n, n);
  for (int i = 0; i < n; ++i) {
    std::getline(in, line);
    std::istringstream cells(line);
    int index = -1;
    cells >> index;
    if (index != i) throw std::runtime_error("row " + std::to_string(i) + " missing: " + line);
    for (int j = 0; j < n; ++j) cells >> m(i, j);
  }
  return m;
}

/// The numbers of the shift-table row of `encoding`: max |Δ s|, max |Δ|/S, tolerance (NaN for "0 (exact)"),
/// max |Δ A|.
std::array<double, 4> shift_row(const std::string& out, const std::string& encoding) {
  const std::size_t at = out.find("\n  " + encoding + " ", out.find("max |Δ s_ij|"));
  if (at == std::string::npos) throw std::runtime_error("no shift row for " + encoding);
  std::istringstream in(out.substr(at + 3 + encoding.size()));
  std::array<double, 4> v{};
  std::string tol;
  in >> v[0] >> v[1] >> tol;
  if (tol == "0") {
    std::string exact;
    in >> exact;  // "(exact)"
    v[2] = NAN;
  } else {
    v[2] = std::stod(tol);
  }
  in >> v[3];
  return v;
}

using test::expect_sci;

// ---------------------------------------------------------------------------------------------
// rope attention

TEST_F(CmdAttention, HelpHasExamples) {
  for (const char* cmd : {"attention", "encodings"}) {
    const Result r = rope_cli({cmd, "--help"});
    EXPECT_EQ(r.code, 0) << cmd;
    EXPECT_THAT(r.out, HasSubstr("Example:")) << cmd;
  }
}

// 6 decimals printed: |printed − exact| <= 5e-7 (plus the rounding of the last digit, far below). One test per
// encoding, without and with --causal.
class CmdAttentionPrintedMatrix : public ::testing::TestWithParam<std::tuple<std::string, bool>> {};

TEST_P(CmdAttentionPrintedMatrix, MatchesAnIndependentComputation) {
  const auto& [encoding, causal] = GetParam();
  const Draws x = draws(6, 8, kDefaultSeed);
  std::vector<std::string> args{"attention", "--tokens", "6", "--dim", "8", "--encoding", encoding};
  if (causal) args.push_back("--causal");
  const Result r = rope_cli(args);
  ASSERT_EQ(r.code, 0) << r.err;
  const Eigen::MatrixXd expected = softmax(scores(x, encoding), causal);
  const Eigen::MatrixXd got = printed_matrix(r.out, "attention A_ij", 6);
  EXPECT_LE((got - expected).cwiseAbs().maxCoeff(), 5.0000001e-7) << encoding << " causal " << causal;
  if (causal) {
    EXPECT_THAT(r.out, HasSubstr("\n   0  1.000000         0         0         0         0         0\n"));
  }
}

INSTANTIATE_TEST_SUITE_P(EncodingsAndMasks, CmdAttentionPrintedMatrix,
                         ::testing::Combine(::testing::Values("rope", "sinusoidal", "alibi", "none"),
                                            ::testing::Bool()),
                         [](const auto& info) {
                           return std::get<0>(info.param) + (std::get<1>(info.param) ? "_causal" : "_full");
                         });

TEST_F(CmdAttention, AlibiPrintsItsBiasAndSlopes) {
  // The bias −m·|i − j| for head 1 of 8 (m = 1/2) and head 3 of 8 (m = 1/8), printed in shortest form:
  // exact. The slopes of 8 heads are 1/2 … 1/256 (Press et al. §3).
  for (const auto& [head, slope] : {std::pair{"1", 0.5}, std::pair{"3", 0.125}}) {
    const Result r = rope_cli({"attention", "-n", "4", "-d", "8", "-e", "alibi", "--head", head});
    ASSERT_EQ(r.code, 0) << r.err;
    const Eigen::MatrixXd bias = printed_matrix(r.out, "ALiBi bias −m·|i − j|, added to q_i·k_j/√d", 4);
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < 4; ++j) EXPECT_EQ(bias(i, j), -slope * std::abs(i - j)) << i << "," << j;
    }
    const Eigen::MatrixXd a = printed_matrix(r.out, "attention A_ij", 4);
    EXPECT_LE((a - softmax(scores(draws(4, 8, kDefaultSeed), "alibi", 0, slope), false)).cwiseAbs().maxCoeff(),
              5.0000001e-7);
    EXPECT_THAT(r.out, HasSubstr(fmt::format("ALiBi, m = {} (head {} of 8)", slope, head)));
  }
  const Result r = rope_cli({"attention", "-e", "alibi"});
  EXPECT_THAT(
      r.out,
      HasSubstr(
          "the slopes of the 8 heads (Press et al. §3): 0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625"));
  const Result r12 = rope_cli({"attention", "-e", "alibi", "--heads", "12", "--head", "9"});
  // 2^−0.5 and 2^−3.5, correctly rounded (Python: 2**-0.5, 2**-3.5); the paper's code, which multiplies,
  // gives 0.08838834764831849 for the last.
  EXPECT_THAT(r12.out, HasSubstr("ALiBi, m = 0.7071067811865476 (head 9 of 12)"));
  EXPECT_THAT(
      r12.out,
      HasSubstr("the slopes of the 12 heads (Press et al. §3): 0.5, 0.25, 0.125, 0.0625, …, 0.08838834764831845"));
  // Long shortest forms: the bias is printed with 6 decimals instead, −0.707107·|i − j|.
  const Eigen::MatrixXd bias = printed_matrix(r12.out, "ALiBi bias −m·|i − j|, added to q_i·k_j/√d", 8);
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 8; ++j)
      EXPECT_NEAR(bias(i, j), -std::sqrt(0.5) * std::abs(i - j), 5.0000001e-7) << i << "," << j;
  }
}

TEST_F(CmdAttention, RopeShiftIsRoundingAndSinusoidalIsNot) {
  // rope attention --tokens 6 --dim 8 --shift 100. RoPE: the printed change is at most the printed
  // tolerance 8·ε·(d + M) with M = |i| + |j| + |i + C| + |j + C| <= 2·5 + 2·105 = 220. Sinusoidal: the
  // printed changes equal an independent computation to the 3 printed digits.
  const Draws x = draws(6, 8, kDefaultSeed);
  const double tolerance = 8 * kEps * (8 + 220);
  const Result rope = rope_cli({"attention", "--tokens", "6", "--dim", "8", "--shift", "100"});
  ASSERT_EQ(rope.code, 0) << rope.err;
  EXPECT_THAT(rope.out, HasSubstr("(positions 0 … 5 → 100 … 105)"));
  EXPECT_THAT(rope.out, HasSubstr("here M <= 220"));
  const std::array<double, 4> r = shift_row(rope.out, "rope");
  EXPECT_EQ(fmt::format("{:.2e}", r[2]), fmt::format("{:.2e}", tolerance));
  EXPECT_LE(r[1], tolerance);
  EXPECT_LE(r[0], 1e-13);  // scores are O(3): rounding level
  EXPECT_LE(r[3], 1e-13);
  EXPECT_THAT(rope.out, HasSubstr("invariant: rounding only\n"));
  const Result wide = rope_cli({"attention", "--tokens", "6", "--dim", "8", "--shift", "100", "--wide"});
  EXPECT_THAT(wide.out, HasSubstr("  rope             2.66e-15    5.45e-16    4.05e-13      4.44e-16  "
                                  "invariant: rounding only, within the tolerance\n"));

  const Result sin =
      rope_cli({"attention", "--tokens", "6", "--dim", "8", "--shift", "100", "--encoding", "sinusoidal"});
  ASSERT_EQ(sin.code, 0) << sin.err;
  const Eigen::MatrixXd s0 = scores(x, "sinusoidal"), s1 = scores(x, "sinusoidal", 100);
  const Eigen::MatrixXd change = (s1 - s0).cwiseAbs();
  Eigen::MatrixXd rel(6, 6);
  for (int i = 0; i < 6; ++i) {
    for (int j = 0; j < 6; ++j) rel(i, j) = change(i, j) / (x.q.row(i).norm() * x.k.row(j).norm() / std::sqrt(8.0));
  }
  const std::array<double, 4> v = shift_row(sin.out, "sinusoidal");
  expect_sci(v[0], change.maxCoeff(), "max |Δ s|");
  expect_sci(v[1], rel.maxCoeff(), "max |Δ|/S");
  EXPECT_EQ(fmt::format("{:.2e}", v[2]), fmt::format("{:.2e}", tolerance));
  expect_sci(v[3], (softmax(s1, false) - softmax(s0, false)).cwiseAbs().maxCoeff(), "max |Δ A|");
  EXPECT_GT(v[1], 1e10 * tolerance);
  EXPECT_THAT(sin.out, HasSubstr("changed: leaks absolute position"));
}

TEST_F(CmdAttention, CompareShowsEveryEncodingWithTheSameDraws) {
  // --compare: four matrices from the same q, k, and a shift table; ALiBi and none exactly 0.
  const Draws x = draws(5, 8, 7);
  const Result r =
      rope_cli({"attention", "-n", "5", "-d", "8", "--seed", "7", "--compare", "--shift", "-3", "--causal"});
  ASSERT_EQ(r.code, 0) << r.err;
  const char* order[] = {"rope", "sinusoidal", "alibi", "none"};
  for (int e = 0; e < 4; ++e) {
    const Eigen::MatrixXd got = printed_matrix(r.out, "attention A_ij", 5, e);
    EXPECT_LE((got - softmax(scores(x, order[e]), true)).cwiseAbs().maxCoeff(), 5.0000001e-7) << order[e];
  }
  for (const char* exact : {"alibi", "none"}) {
    const std::array<double, 4> v = shift_row(r.out, exact);
    EXPECT_EQ(v[0], 0.0) << exact;
    EXPECT_EQ(v[1], 0.0) << exact;
    EXPECT_TRUE(std::isnan(v[2])) << exact;
    EXPECT_EQ(v[3], 0.0) << exact;
  }
  EXPECT_THAT(r.out, HasSubstr("invariant: trivially, position-blind"));
  EXPECT_THAT(r.out, HasSubstr("(positions 0 … 4 → -3 … 1)"));
  // M for C = −3, 5 tokens, causal (j <= i): the largest |i| + |j| + |i − 3| + |j − 3| is 4 + 4 + 1 + 1 = 10
  // at i = j = 4, or 0 + 0 + 3 + 3 = 6 at i = j = 0.
  EXPECT_THAT(r.out, HasSubstr("here M <= 10"));
}

TEST_F(CmdAttention, CsvHasOneRowPerQueryThatSumsToOne) {
  // --csv -: only the CSV, a header and N rows of N shortest-form numbers; they read back to the weights of the
  // independent computation within 1e-14 (see test_attention.cpp), and each row sums to 1 within 8·ε·N.
  const Draws x = draws(5, 4, 3);
  const Result r = rope_cli({"attention", "-n", "5", "-d", "4", "--seed", "3", "--csv", "-"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Eigen::MatrixXd expected = softmax(scores(x, "rope"), false);
  std::istringstream in(r.out);
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  EXPECT_EQ(line, "key_0,key_1,key_2,key_3,key_4");  // the header names the keys (columns)
  int rows = 0;
  while (std::getline(in, line)) {
    const auto cells = test::split(line, ',');
    ASSERT_EQ(cells.size(), 5u) << line;
    double sum = 0;
    for (int j = 0; j < 5; ++j) {
      EXPECT_NEAR(std::stod(cells[j]), expected(rows, j), 1e-14);
      sum += std::stod(cells[j]);
    }
    EXPECT_NEAR(sum, 1.0, 8 * kEps * 5);
    ++rows;
  }
  EXPECT_EQ(rows, 5);
  // To a file, the table is still printed.
  const Result file = rope_cli({"attention", "-n", "5", "-d", "4", "--seed", "3", "--csv", path("a.csv")});
  EXPECT_EQ(file.code, 0);
  EXPECT_EQ(read(path("a.csv")), r.out);
  EXPECT_THAT(file.out, HasSubstr("attention A_ij"));
}

TEST_F(CmdAttention, CompareWritesOneFilePerEncoding) {
  const Result r = rope_cli({"attention", "-n", "6", "-d", "8", "--compare", "--csv", path("a.csv"), "--png",
                             path("a.png"), "--width", "400", "--height", "300"});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* e : {"rope", "sinusoidal", "alibi", "none"}) {
    EXPECT_TRUE(fs::exists(path(fmt::format("a_{}.csv", e)))) << e;
    EXPECT_EQ(png_size(read(path(fmt::format("a_{}.png", e)))), (std::pair<std::uint32_t, std::uint32_t>{400, 300}))
        << e;
  }
  EXPECT_EQ(png_size(read(path("a_alibi_bias.png"))), (std::pair<std::uint32_t, std::uint32_t>{400, 300}));
  EXPECT_FALSE(fs::exists(path("a.png")));
  EXPECT_FALSE(fs::exists(path("a.csv")));
  EXPECT_THAT(r.out, HasSubstr("wrote " + path("a_rope.png") + "\n"));
  // One encoding: FILE itself; ALiBi's bias beside it.
  const Result alibi = rope_cli({"attention", "-n", "6", "-d", "8", "-e", "alibi", "--png", path("b.png")});
  ASSERT_EQ(alibi.code, 0) << alibi.err;
  EXPECT_NE(png_size(read(path("b.png"))).first, 0u);
  EXPECT_NE(png_size(read(path("b_alibi_bias.png"))).first, 0u);
}

// --compare draws every heatmap of A on one colour range, 0 … the largest weight of all encodings, so
// the same colour is the same weight in every figure (the colour bar says so); one figure alone keeps
// its own range.
TEST_F(CmdAttention, CompareSharesOneColourScale) {
  const Result r = rope_cli({"attention", "-n", "6", "-d", "8", "--compare", "--csv", path("a.csv"), "--png",
                             path("a.png"), "--keep-script", path("a.gp")});
  ASSERT_EQ(r.code, 0) << r.err;
  double top = 0.0;
  for (const char* e : {"rope", "sinusoidal", "alibi", "none"}) {
    std::istringstream csv(read(path(fmt::format("a_{}.csv", e))));
    std::string line;
    std::getline(csv, line);  // header
    while (std::getline(csv, line)) {
      std::istringstream cells(line);
      for (std::string cell; std::getline(cells, cell, ',');) top = std::max(top, std::stod(cell));
    }
  }
  for (const char* e : {"rope", "sinusoidal", "alibi", "none"}) {
    const std::string script = read(path(fmt::format("a_{}.gp", e)));
    EXPECT_THAT(script, HasSubstr(fmt::format("set cbrange [0:{}]", format_number(top)))) << e;
    EXPECT_THAT(script, HasSubstr("one scale for every encoding")) << e;
  }
  const Result one =
      rope_cli({"attention", "-n", "6", "-d", "8", "--png", path("b.png"), "--keep-script", path("b.gp")});
  ASSERT_EQ(one.code, 0) << one.err;
  EXPECT_THAT(read(path("b.gp")), Not(HasSubstr("one scale")));
}

TEST_F(CmdAttention, ManyTokensAreNotPrinted) {
  const Result r = rope_cli({"attention", "-n", "17", "-d", "4", "--shift", "3"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("attention A_ij")));
  EXPECT_THAT(r.out, HasSubstr("(the 17×17 matrix A: --csv FILE, or --png FILE for a heatmap)"));
  // With a figure asked for, no advice to ask for one (issue 51; the lesson page's attention step too).
  const Result drawn = rope_cli({"attention", "-n", "17", "-d", "4", "--svg", path("a.svg")});
  ASSERT_EQ(drawn.code, 0) << drawn.err;
  EXPECT_THAT(drawn.out, HasSubstr("(the 17×17 matrix A: --csv FILE)\n"));
  EXPECT_THAT(drawn.out, Not(HasSubstr("--png FILE for a heatmap")));
}

TEST_F(CmdAttention, BadInputExitsTwoWithOneLine) {
  expect_one_line_error(rope_cli({"attention", "--tokens", "0"}), 2, "--tokens must be between 1 and 4096 (got 0)");
  expect_one_line_error(rope_cli({"attention", "--tokens", "4097"}), 2, "(got 4097)");
  expect_one_line_error(rope_cli({"attention", "--tokens", "6x"}), 2, "--tokens must be a decimal integer (got '6x')");
  expect_one_line_error(rope_cli({"attention", "--dim", "7"}), 2, "--dim must be even and between 2 and 1024 (got 7)");
  expect_one_line_error(rope_cli({"attention", "--dim", "2048"}), 2, "(got 2048)");
  expect_one_line_error(rope_cli({"attention", "--encoding", "t5"}), 2,
                        "encoding must be 'rope', 'sinusoidal', 'alibi' or 'none' (got 't5')");
  expect_one_line_error(rope_cli({"attention", "--encoding", "alibi", "--base", "500"}), 2,
                        "--base applies to --encoding rope and sinusoidal (got --encoding alibi)");
  expect_one_line_error(rope_cli({"attention", "--base", "1"}), 2, "base must be a finite number > 1 (got 1)");
  expect_one_line_error(rope_cli({"attention", "--heads", "4"}), 2, "--heads and --head apply to --encoding alibi");
  expect_one_line_error(rope_cli({"attention", "-e", "alibi", "--head", "9"}), 2,
                        "--head must be between 1 and --heads = 8 (got 9)");
  expect_one_line_error(rope_cli({"attention", "-e", "alibi", "--heads", "0"}), 2,
                        "--heads must be between 1 and 1024 (got 0)");
  expect_one_line_error(rope_cli({"attention", "--compare", "--encoding", "rope"}), 2,
                        "--encoding excludes --compare (see 'rope attention --help')");
  expect_one_line_error(rope_cli({"attention", "--shift", "2000000000"}), 2, "--shift must be between");
  expect_one_line_error(rope_cli({"attention", "--shift", "1.5"}), 2, "--shift must be a decimal integer (got '1.5')");
  expect_one_line_error(rope_cli({"attention", "--compare", "--csv", "-"}), 2, "give --csv FILE, not '-'");
  expect_one_line_error(rope_cli({"attention", "--tokens", "513", "--png", path("a.png")}), 2,
                        "a figure shows at most 512 tokens (got --tokens 513)");
  expect_one_line_error(rope_cli({"attention", "--title", "x"}), 2, "--title needs a figure");
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(CmdAttention, ModelRotatesAsTheModelDoes) {
  // Issue 13: --model gives the model's head (gpt-oss-20b: head_dim 64, rotate_half, yarn a = 1.3466 in
  // cos and sin, so scores carry a²). The attention matrix against HF's formulas written out here with
  // presets.py's θ_i and a: 1e-12 (softmax of scores of size ~10, each rounded to ~1e-15).
  const auto [theta, a] = test::preset_reference("gpt-oss-20b");
  const int n = 5, d = 64;
  const Draws x = draws(n, d, kDefaultSeed);
  Eigen::MatrixXd s(n, n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      s(i, j) = hf_half(x.q.row(i).transpose(), theta, a, i).dot(hf_half(x.k.row(j).transpose(), theta, a, j)) /
                std::sqrt(64.0);
    }
  }
  const Eigen::MatrixXd want = softmax(s, false);
  const Result r = rope_cli({"attention", "--model", "gpt-oss-20b", "--tokens", "5", "--csv", "-"});
  ASSERT_EQ(r.code, 0) << r.err;
  test::attention_draws::expect_csv_near(r.out, want, 1e-12);
  const Result table = rope_cli({"attention", "--model", "gpt-oss-20b", "--tokens", "4", "--shift", "100"});
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr("rope attention: 4 tokens at positions 0 … 3, d = 64"));
  EXPECT_THAT(table.out, HasSubstr("RoPE of gpt-oss-20b, base = 150000"));
  EXPECT_THAT(
      test::unwrapped(table.out),
      HasSubstr(
          "RoPE of gpt-oss-20b: head_dim 64, channels 0 … 63 rotate (d = 64); half layout (model family gpt_oss)"));
  EXPECT_THAT(test::unwrapped(table.out), HasSubstr("scores × a² = "));
  EXPECT_THAT(table.out, HasSubstr("invariant: rounding only"));
  // longrope switches to its long factors beyond L0 = 4096 (seq_len = max position + 1): by design, not a bug.
  EXPECT_THAT(rope_cli({"attention", "--model", "phi-3-mini-128k", "--tokens", "4", "--shift", "5000"}).out,
              HasSubstr("changed, by design: seq_len 4 → 5004"));
  EXPECT_THAT(rope_cli({"attention", "--model", "phi-3-mini-128k", "--tokens", "4", "--shift", "5000", "--wide"}).out,
              HasSubstr("changed: the frequencies depend on seq_len (4 → 5004), as in the model"));
  expect_one_line_error(rope_cli({"attention", "--model", "gpt-oss-20b", "--q", "1,0;0,1", "--k", "1,0;0,1"}), 2,
                        "--q and --k have 2 numbers, but the model's head dimension d is 64");
  std::string v = "1";  // the user's vectors, of the model's head_dim 64: they set N, the model sets d
  for (int i = 1; i < 64; ++i) v += i % 2 ? ",0" : ",1";
  const Result user = rope_cli({"attention", "--model", "gpt-oss-20b", "--q", v + ";" + v, "--k", v + ";" + v});
  EXPECT_THAT(user.out, HasSubstr("rope attention: 2 tokens at positions 0 … 1, d = 64\n  q_i, k_j from --q and --k"));
  expect_one_line_error(
      rope_cli({"attention", "--model", "gpt-oss-20b", "--compare"}), 2,
      "--model, --config and the scaling options describe RoPE: use them with --encoding rope (got --compare)");
  expect_one_line_error(rope_cli({"attention", "--model", "gpt-oss-20b", "--encoding", "alibi"}), 2,
                        "(got --encoding alibi)");
}

TEST_F(CmdAttention, UnwritableOutputExitsThreeAndLeavesNothing) {
  expect_one_line_error(rope_cli({"attention", "--csv", path("missing/a.csv")}), 3, "cannot write");
  expect_one_line_error(rope_cli({"attention", "--png", path("missing/a.png")}), 3, "a.png");
  EXPECT_TRUE(fs::is_empty(dir_));
}

// --json goes through the report (report/attention_report.hpp attention_value): each encoding's A_00 and matrix
// (up to 16 tokens) as the CSV holds them, the shift rows as the table prints them, and the verdict as the exit code.
TEST(CmdAttentionJson, IsTheReportsValue) {
  const Result r = rope_cli({"attention", "--tokens", "6", "--dim", "8", "--shift", "100", "--compare", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["tokens"], 6);
  EXPECT_EQ(j["seed"], 2104);
  EXPECT_EQ(j["passed"], true);
  ASSERT_EQ(j["encodings"].size(), 4u);
  ASSERT_EQ(j["shift_test"].size(), 4u);
  EXPECT_EQ(j["shift_test"][0]["verdict"], "invariant: rounding only");
  EXPECT_EQ(j["shift_test"][2]["max_abs_change"], 0.0);
  const Result csv = rope_cli({"attention", "--tokens", "6", "--dim", "8", "--csv", "-"});
  ASSERT_EQ(csv.code, 0) << csv.err;
  std::istringstream lines(csv.out);
  std::string header, first;
  std::getline(lines, header);
  std::getline(lines, first);
  const std::vector<double> row0 = j["encodings"][0]["weights"][0];
  EXPECT_DOUBLE_EQ(row0[0], std::stod(first.substr(0, first.find(','))));
  EXPECT_EQ(j["encodings"][0]["a00"], row0[0]);
  const Result big = rope_cli({"attention", "--tokens", "17", "--dim", "8", "--json"});
  ASSERT_EQ(big.code, 0) << big.err;
  EXPECT_FALSE(nlohmann::json::parse(big.out)["encodings"][0].contains("weights"));
}

}  // namespace
}  // namespace rope
