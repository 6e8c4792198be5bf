// `rope attention` and `rope encodings` in-process: every number they print checked against a computation
// written out here independently of src/rope/analysis/attention.cpp, exit codes, one-line errors and files.
#include "rope/cli/cli.hpp"

#include <array>
#include <complex>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sstream>

#include "support/attention_reference.hpp"
#include "support/cli_harness.hpp"
#include "support/reference_data.hpp"
#include "rope/analysis/attention.hpp"
#include "rope/core/random.hpp"

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

constexpr double kEps = std::numeric_limits<double>::epsilon();

// ---------------------------------------------------------------------------------------------
// Helpers, copied from test_cli.cpp.



class CmdAttention : public test::TempDirTest {};

// ---------------------------------------------------------------------------------------------
// The independent computation: q_i, k_j from rope::Random in the documented order (q rows, then k rows),
// RoPE as complex numbers, sinusoidal channel by channel, ALiBi as a subtraction, softmax in long double.

struct Draws {
  Eigen::MatrixXd q, k;
};

Draws draws(int n, int d, std::uint64_t seed) {
  Random rng(seed);
  Draws r{Eigen::MatrixXd(n, d), Eigen::MatrixXd(n, d)};
  for (Eigen::MatrixXd* m : {&r.q, &r.k}) {
    for (int i = 0; i < n; ++i) {
      for (int c = 0; c < d; ++c) (*m)(i, c) = rng.normal();
    }
  }
  return r;
}

/// s_ij for positions first + i. `encoding`: "rope", "sinusoidal", "alibi", "none".
Eigen::MatrixXd scores(const Draws& x, const std::string& encoding, double first = 0, double slope = 0.5,
                       double base = 10000) {
  const Eigen::Index n = x.q.rows();
  const Eigen::VectorXd p = Eigen::VectorXd::LinSpaced(n, first, first + static_cast<double>(n - 1));
  return test::independent_scores(x.q, x.k, p, parse_encoding(encoding), base, slope);
}

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

/// |printed − exact| <= half a unit of the last printed digit of "%.2e" (3 significant digits), plus ε.
void expect_sci(double printed, double exact, const std::string& what) {
  EXPECT_NEAR(printed, exact, 0.005 * std::abs(exact) + 1e-300) << what;
}

// ---------------------------------------------------------------------------------------------
// rope attention

TEST_F(CmdAttention, HelpHasExamples) {
  for (const char* cmd : {"attention", "encodings"}) {
    const Result r = rope_cli({cmd, "--help"});
    EXPECT_EQ(r.code, 0) << cmd;
    EXPECT_THAT(r.out, HasSubstr("Example:")) << cmd;
  }
}

TEST_F(CmdAttention, PrintedMatrixMatchesAnIndependentComputation) {
  // 6 decimals printed: |printed − exact| <= 5e-7 (plus the rounding of the last digit, far below).
  const Draws x = draws(6, 8, kDefaultSeed);
  for (const std::string encoding : {"rope", "sinusoidal", "alibi", "none"}) {
    for (bool causal : {false, true}) {
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
  }
}

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
    EXPECT_LE((a - softmax(scores(draws(4, 8, kDefaultSeed), "alibi", 0, slope), false)).cwiseAbs().maxCoeff(), 5.0000001e-7);
    EXPECT_THAT(r.out, HasSubstr(fmt::format("ALiBi, m = {} (head {} of 8)", slope, head)));
  }
  const Result r = rope_cli({"attention", "-e", "alibi"});
  EXPECT_THAT(r.out, HasSubstr("the slopes of the 8 heads (Press et al. §3): 0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625"));
  const Result r12 = rope_cli({"attention", "-e", "alibi", "--heads", "12", "--head", "9"});
  // 2^−0.5 and 2^−3.5, correctly rounded (Python: 2**-0.5, 2**-3.5); the paper's code, which multiplies,
  // gives 0.08838834764831849 for the last.
  EXPECT_THAT(r12.out, HasSubstr("ALiBi, m = 0.7071067811865476 (head 9 of 12)"));
  EXPECT_THAT(r12.out, HasSubstr("the slopes of the 12 heads (Press et al. §3): 0.5, 0.25, 0.125, 0.0625, …, 0.08838834764831845"));
  // Long shortest forms: the bias is printed with 6 decimals instead, −0.707107·|i − j|.
  const Eigen::MatrixXd bias = printed_matrix(r12.out, "ALiBi bias −m·|i − j|, added to q_i·k_j/√d", 8);
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 8; ++j) EXPECT_NEAR(bias(i, j), -std::sqrt(0.5) * std::abs(i - j), 5.0000001e-7) << i << "," << j;
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
  EXPECT_THAT(rope.out, HasSubstr("invariant: rounding only, within the tolerance"));

  const Result sin = rope_cli({"attention", "--tokens", "6", "--dim", "8", "--shift", "100", "--encoding", "sinusoidal"});
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
  const Result r = rope_cli({"attention", "-n", "5", "-d", "8", "--seed", "7", "--compare", "--shift", "-3", "--causal"});
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
  // --csv -: only the CSV, N rows of N shortest-form numbers; they read back to the weights of the
  // independent computation within 1e-14 (see test_attention.cpp), and each row sums to 1 within 8·ε·N.
  const Draws x = draws(5, 4, 3);
  const Result r = rope_cli({"attention", "-n", "5", "-d", "4", "--seed", "3", "--csv", "-"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Eigen::MatrixXd expected = softmax(scores(x, "rope"), false);
  std::istringstream in(r.out);
  std::string line;
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
  const Result r = rope_cli({"attention", "-n", "6", "-d", "8", "--compare", "--csv", path("a.csv"), "--png", path("a.png"),
                             "--width", "400", "--height", "300"});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* e : {"rope", "sinusoidal", "alibi", "none"}) {
    EXPECT_TRUE(fs::exists(path(fmt::format("a_{}.csv", e)))) << e;
    EXPECT_EQ(png_size(read(path(fmt::format("a_{}.png", e)))), (std::pair<std::uint32_t, std::uint32_t>{400, 300})) << e;
  }
  EXPECT_EQ(png_size(read(path("a_alibi_bias.png"))), (std::pair<std::uint32_t, std::uint32_t>{400, 300}));
  EXPECT_FALSE(fs::exists(path("a.png")));
  EXPECT_FALSE(fs::exists(path("a.csv")));
  EXPECT_THAT(r.out, HasSubstr("figures: " + path("a_rope.png")));
  // One encoding: FILE itself; ALiBi's bias beside it.
  const Result alibi = rope_cli({"attention", "-n", "6", "-d", "8", "-e", "alibi", "--png", path("b.png")});
  ASSERT_EQ(alibi.code, 0) << alibi.err;
  EXPECT_NE(png_size(read(path("b.png"))).first, 0u);
  EXPECT_NE(png_size(read(path("b_alibi_bias.png"))).first, 0u);
}

TEST_F(CmdAttention, ManyTokensAreNotPrinted) {
  const Result r = rope_cli({"attention", "-n", "17", "-d", "4", "--shift", "3"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("attention A_ij")));
  EXPECT_THAT(r.out, HasSubstr("(the 17×17 matrix A: --csv FILE, or --png FILE for a heatmap)"));
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
  expect_one_line_error(rope_cli({"attention", "-e", "alibi", "--head", "9"}), 2, "--head must be between 1 and --heads = 8 (got 9)");
  expect_one_line_error(rope_cli({"attention", "-e", "alibi", "--heads", "0"}), 2, "--heads must be between 1 and 1024 (got 0)");
  expect_one_line_error(rope_cli({"attention", "--compare", "--encoding", "rope"}), 2, "--compare draws every encoding");
  expect_one_line_error(rope_cli({"attention", "--shift", "2000000000"}), 2, "--shift must be between");
  expect_one_line_error(rope_cli({"attention", "--shift", "1.5"}), 2, "--shift must be a decimal integer (got '1.5')");
  expect_one_line_error(rope_cli({"attention", "--compare", "--csv", "-"}), 2, "give --csv FILE, not '-'");
  expect_one_line_error(rope_cli({"attention", "--tokens", "513", "--png", path("a.png")}), 2,
                        "a figure shows at most 512 tokens (got --tokens 513)");
  expect_one_line_error(rope_cli({"attention", "--title", "x"}), 2, "--title needs a figure");
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(CmdAttention, UnwritableOutputExitsThreeAndLeavesNothing) {
  expect_one_line_error(rope_cli({"attention", "--csv", path("missing/a.csv")}), 3, "cannot write");
  expect_one_line_error(rope_cli({"attention", "--png", path("missing/a.png")}), 3, "a.png");
  EXPECT_TRUE(fs::is_empty(dir_));
}

// ---------------------------------------------------------------------------------------------
// rope encodings

/// The first number after `label` in `out` (after the first occurrence of `after`, if given).
double number_after(const std::string& out, const std::string& label, const std::string& after = "") {
  const std::size_t start = after.empty() ? 0 : out.find(after);
  const std::size_t at = out.find(label, start == std::string::npos ? 0 : start);
  if (at == std::string::npos) throw std::runtime_error("no '" + label + "' in the output");
  std::istringstream in(out.substr(at + label.size()));
  double v = NAN;
  in >> v;
  return v;
}

/// The numbers after `label` on its line (the cells of a table row).
std::vector<std::string> cells_after(const std::string& out, const std::string& label) {
  const std::size_t at = out.find(label);
  if (at == std::string::npos) throw std::runtime_error("no '" + label + "' in the output");
  std::istringstream line(out.substr(at + label.size(), out.find('\n', at) - at - label.size()));
  std::vector<std::string> cells;
  for (std::string cell; line >> cell;) cells.push_back(cell);
  return cells;
}

TEST_F(CmdAttention, EncodingsShiftTestMatchesAnIndependentComputation) {
  // Defaults: N = 16, d = 64, C = 100, seed 2104; learned E[t] ~ N(0, I) and T5's r_b from Random(seed + 1),
  // E's rows 0 … N − 1 + C first. Printed to 3 digits: expect_sci.
  const Result r = rope_cli({"encodings"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Draws x = draws(16, 64, kDefaultSeed);
  const Eigen::MatrixXd sin0 = scores(x, "sinusoidal"), sin1 = scores(x, "sinusoidal", 100);
  expect_sci(number_after(r.out, "     sinusoidal "), (sin1 - sin0).cwiseAbs().maxCoeff(), "sinusoidal");
  Random rng(kDefaultSeed + 1);
  Eigen::MatrixXd e(116, 64);
  for (int t = 0; t < 116; ++t) {
    for (int c = 0; c < 64; ++c) e(t, c) = rng.normal();
  }
  double learned = 0;
  for (int i = 0; i < 16; ++i) {
    for (int j = 0; j < 16; ++j) {
      const double before = (x.q.row(i) + e.row(i)).dot(x.k.row(j) + e.row(j)) / 8;
      const double after = (x.q.row(i) + e.row(i + 100)).dot(x.k.row(j) + e.row(j + 100)) / 8;
      learned = std::max(learned, std::abs(after - before));
    }
  }
  expect_sci(number_after(r.out, "     learned "), learned, "learned");
  EXPECT_EQ(number_after(r.out, "     T5 bias "), 0.0);
  EXPECT_EQ(number_after(r.out, "     ALiBi "), 0.0);
  EXPECT_LE(number_after(r.out, "     RoPE "), 1e-12);
  // RoPE's tolerance 8·ε·(d + M), M = 2·15 + 2·115 = 260.
  EXPECT_THAT(r.out, HasSubstr(fmt::format("<= 8·ε·(d + M) = {:.2e} (M8), (M13)", 8 * kEps * (64 + 260))));
}

TEST_F(CmdAttention, EncodingsT5BucketsAreHuggingFaces) {
  // Hugging Face T5Attention._relative_position_bucket, 32 buckets, max_distance 128, bidirectional, run in
  // Python: the first |j − i| of each bucket, and the buckets for j <= i and j > i.
  const Result r = rope_cli({"encodings"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(cells_after(r.out, "|j − i| from"),
            (std::vector<std::string>{"0", "1", "2", "3", "4", "5", "6", "7", "8", "12", "16", "23", "32", "46", "64", "91"}));
  EXPECT_EQ(cells_after(r.out, "     j <= i"),
            (std::vector<std::string>{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15"}));
  EXPECT_EQ(cells_after(r.out, "     j > i"), (std::vector<std::string>{"-", "17", "18", "19", "20", "21", "22", "23", "24",
                                                                        "25", "26", "27", "28", "29", "30", "31"}));
}

TEST_F(CmdAttention, EncodingsDecayRowsMatchIndependentFormulas) {
  // d = 64, base 1e4, distances 0, 10, 100, 1000. f(m) by the O(d²) double sum of (M11) as RoFormer writes
  // it; the all-ones score 2·Σ cos(mθ_i) (M14); p_0·p_m = Σ cos(mθ_i); ALiBi −m·dist exactly; the random
  // pairs of (M15) redrawn (q_a, q_b, k_a, k_b per pair, as decay.cpp draws them) and rotated as complex
  // numbers. Printed to 4 decimals (2 for the random ones): half a unit of the last digit.
  const Result r = rope_cli({"encodings"});
  ASSERT_EQ(r.code, 0) << r.err;
  const double distances[] = {0, 10, 100, 1000};
  const auto alibi_1 = cells_after(r.out, "ALiBi bias, m = 0.5 ");
  const auto alibi_8 = cells_after(r.out, "ALiBi bias, m = 0.00390625 ");
  const auto bound = cells_after(r.out, "RoPE bound f(m), (M11)");
  const auto random = cells_after(r.out, "RoPE <R_m q, k>, 1000 random");
  const auto ones = cells_after(r.out, "RoPE score of q = k = 1, (M14)");
  const auto pp = cells_after(r.out, "sinusoidal p_0·p_m");
  ASSERT_EQ(random.size(), 12u);  // "mean ± sd" × 4
  Random rng(kDefaultSeed);
  Eigen::MatrixXd draws_(1000, 4 * 32);
  for (int s = 0; s < 1000; ++s) {
    for (int c = 0; c < 4 * 32; ++c) draws_(s, c) = rng.normal();
  }
  for (int k = 0; k < 4; ++k) {
    const double m = distances[k];
    EXPECT_EQ(std::stod(alibi_1[k]), -0.5 * m);
    EXPECT_EQ(std::stod(alibi_8[k]), -m / 256);
    double f = 0, b = 0;
    for (int j = 0; j < 32; ++j) {
      std::complex<double> inner = 0;
      for (int i = 0; i <= j; ++i) inner += std::polar(1.0, m * std::pow(1e4, -2.0 * i / 64));
      f += std::abs(inner) / 32;
      b += std::cos(m * std::pow(1e4, -2.0 * j / 64));
    }
    EXPECT_NEAR(std::stod(bound[k]), f, 5.0001e-5) << m;
    EXPECT_NEAR(std::stod(ones[k]), 2 * b, 5.0001e-5) << m;
    EXPECT_NEAR(std::stod(pp[k]), b, 5.0001e-5) << m;
    Eigen::VectorXd score(1000);
    for (int s = 0; s < 1000; ++s) {
      double sum = 0;
      for (int i = 0; i < 32; ++i) {
        const std::complex<double> zq(draws_(s, 4 * i), draws_(s, 4 * i + 1)), zk(draws_(s, 4 * i + 2), draws_(s, 4 * i + 3));
        sum += (zq * std::polar(1.0, m * std::pow(1e4, -2.0 * i / 64)) * std::conj(zk)).real();
      }
      score[s] = sum;
    }
    const double mean = score.mean();
    const double sd = std::sqrt((score.array() - mean).square().sum() / 999);
    EXPECT_NEAR(std::stod(random[3 * k]), mean, 0.0050001) << m;
    EXPECT_EQ(random[3 * k + 1], "±");
    EXPECT_NEAR(std::stod(random[3 * k + 2]), sd, 0.0050001) << m;
  }
  EXPECT_THAT(r.out, HasSubstr("sd √d = 8.00 at every"));
}

TEST_F(CmdAttention, EncodingsCountsAndExtrapolationMatchHandArithmetic) {
  // 8 heads × d = 64 = d_model 512; L = 512: learned L·d_model = 262144; T5 32 buckets × 8 heads = 256;
  // QKᵀ N²·d = 512²·64 = 16777216; RoPE 6·N·d = 196608 (1.2%); N² = 262144 (1.6%). Pairs with
  // λ_i = 2π·10^(4·2i/64) > 512: i >= 16 (λ_15 = 471.2, λ_16 = 628.3).
  const Result r = rope_cli({"encodings"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("a model of 8 heads (d_model = 512)"));
  EXPECT_EQ(number_after(r.out, "     learned ", "3. Parameters"), 262144);
  EXPECT_EQ(number_after(r.out, "     T5 bias ", "3. Parameters"), 256);
  EXPECT_THAT(r.out, HasSubstr("N²·d = 16777216 multiply-adds"));
  EXPECT_THAT(r.out, HasSubstr("6·N·d = 196608 operations (M9), 1.2% of QKᵀ"));
  EXPECT_THAT(r.out, HasSubstr("N² = 262144 additions, 1.6% of QKᵀ"));
  EXPECT_THAT(r.out, HasSubstr("rows 0 … 511: position 512 has no embedding"));
  int first = 0;
  while (6.283185307179586 * std::pow(1e4, 2.0 * first / 64) <= 512) ++first;
  EXPECT_EQ(first, 16);
  EXPECT_THAT(r.out, HasSubstr("pairs 16 … 31 of 32 never complete a turn (M16)"));
  // Other sizes: 12 heads of 64 (BERT-base's d_model 768), L = 4096.
  const Result bert = rope_cli({"encodings", "--heads", "12", "--context", "4096"});
  ASSERT_EQ(bert.code, 0) << bert.err;
  EXPECT_EQ(number_after(bert.out, "     learned ", "3. Parameters"), 4096.0 * 768);
  EXPECT_EQ(number_after(bert.out, "     T5 bias ", "3. Parameters"), 32.0 * 12);
}

TEST_F(CmdAttention, EncodingsRejectsBadInput) {
  expect_one_line_error(rope_cli({"encodings", "--shift", "-1"}), 2, "--shift must be between 0 and 10000 (got -1)");
  expect_one_line_error(rope_cli({"encodings", "--context", "100"}), 2,
                        "--tokens + --shift must be <= --context: the learned table has rows 0 … 99 only (got 16 + 100 = 116)");
  expect_one_line_error(rope_cli({"encodings", "--heads", "0"}), 2, "--heads must be between 1 and 1024 (got 0)");
  expect_one_line_error(rope_cli({"encodings", "--dim", "3"}), 2, "--dim must be even");
  expect_one_line_error(rope_cli({"encodings", "--context", "0"}), 2, "--context must be between 1 and 10000000 (got 0)");
}

}  // namespace
}  // namespace rope
