// `rope encodings` in-process: the numbers behind each claim of its table checked against computations
// written out here (independently of src/rope/analysis), and its one-line errors.
#include "rope/cli/cli.hpp"

#include <array>
#include <complex>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sstream>

#include "cli/attention_draws.hpp"
#include "support/attention_reference.hpp"
#include "support/cli_harness.hpp"
#include "support/reference_data.hpp"
#include "rope/analysis/teaching/attention.hpp"
#include "rope/core/random.hpp"
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

class CmdEncodings : public test::TempDirTest {};

using test::attention_draws::draws;
using test::attention_draws::Draws;
using test::attention_draws::scores;

using test::expect_sci;

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

TEST_F(CmdEncodings, ShiftTestMatchesAnIndependentComputation) {
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

/// The sentence of the pairs that never complete a turn within L, by their count (d = 64: λ_30 ≈ 35300,
/// λ_31 ≈ 47100), in both languages.
struct TurnCase {
  std::string context;
  std::string lang;
  std::string said;
};

class EncodingsTurns : public ::testing::TestWithParam<TurnCase> {};

TEST_P(EncodingsTurns, TheSentenceCountsThePairs) {
  const Result r = rope_cli({"encodings", "--context", GetParam().context, "--lang", GetParam().lang});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(GetParam().said));
  EXPECT_THAT(r.out, Not(HasSubstr("31 … 31")));
}

INSTANTIATE_TEST_SUITE_P(Counts, EncodingsTurns,
                         ::testing::Values(TurnCase{"40000", "en", "pair 31 of 32 never completes a turn (M16)"},
                                           TurnCase{"40000", "zh", "32 对中的第 31 对转不满一圈"},
                                           TurnCase{"30000", "en", "pairs 30 … 31 of 32 never complete a turn (M16)"},
                                           TurnCase{"30000", "zh", "32 对中的第 30 … 31 对转不满一圈"}));

TEST_F(CmdEncodings, T5BucketsAreHuggingFaces) {
  // Hugging Face T5Attention._relative_position_bucket, 32 buckets, max_distance 128, bidirectional, run in
  // Python: the first |j − i| of each bucket, and the buckets for j <= i and j > i.
  const Result r = rope_cli({"encodings"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(cells_after(r.out, "|j − i| from"), (std::vector<std::string>{"0", "1", "2", "3", "4", "5", "6", "7", "8",
                                                                          "12", "16", "23", "32", "46", "64", "91"}));
  EXPECT_EQ(cells_after(r.out, "     j <= i"), (std::vector<std::string>{"0", "1", "2", "3", "4", "5", "6", "7", "8",
                                                                         "9", "10", "11", "12", "13", "14", "15"}));
  EXPECT_EQ(cells_after(r.out, "     j > i"),
            (std::vector<std::string>{"-", "17", "18", "19", "20", "21", "22", "23", "24", "25", "26", "27", "28", "29",
                                      "30", "31"}));
}

TEST_F(CmdEncodings, DecayRowsMatchIndependentFormulas) {
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
        const std::complex<double> zq(draws_(s, 4 * i), draws_(s, 4 * i + 1)),
            zk(draws_(s, 4 * i + 2), draws_(s, 4 * i + 3));
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

TEST_F(CmdEncodings, CountsAndExtrapolationMatchHandArithmetic) {
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

TEST_F(CmdEncodings, RejectsBadInput) {
  expect_one_line_error(rope_cli({"encodings", "--shift", "-1"}), 2, "--shift must be between 0 and 10000 (got -1)");
  expect_one_line_error(
      rope_cli({"encodings", "--context", "100"}), 2,
      "--tokens + --shift must be <= --context: the learned table has rows 0 … 99 only (got 16 + 100 = 116)");
  expect_one_line_error(rope_cli({"encodings", "--heads", "0"}), 2, "--heads must be between 1 and 1024 (got 0)");
  expect_one_line_error(rope_cli({"encodings", "--dim", "3"}), 2, "--dim must be even");
  expect_one_line_error(rope_cli({"encodings", "--context", "0"}), 2,
                        "--context must be between 1 and 10000000 (got 0)");
}

// The shift test's work grows as tokens² × d (issue 52, item 7): 4096 tokens at d = 1024 ran for minutes;
// now refused before anything is drawn, the limit 2^32 exactly (4096² × 256 passes the check).
TEST_F(CmdEncodings, WorkIsBounded) {
  expect_one_line_error(
      rope_cli({"encodings", "--tokens", "4096", "--dim", "1024", "--context", "5000"}), 2,
      "--tokens² × --dim must be at most 2^32 (got 4096² × 1024 = 1.71799e+10): the shift test computes every score "
      "of five encodings twice; lower the tokens or the dimension");
  expect_one_line_error(rope_cli({"encodings", "--tokens", "4096", "--dim", "258", "--context", "5000"}), 2,
                        "(got 4096² × 258 = ");
}

}  // namespace
}  // namespace rope
