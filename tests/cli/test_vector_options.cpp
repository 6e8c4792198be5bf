// The user's own vectors (--q, --k of rope attention and rope layouts) and --show-vectors: the parser's
// rules, and the printed scores recomputed by hand from the printed vectors.
#include "rope/cli/vector_options.hpp"

#include <cmath>
#include <fmt/format.h>
#include <fstream>
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <regex>
#include <string>
#include <vector>

#include "rope/core/error.hpp"
#include "support/cli_harness.hpp"

namespace rope {
namespace {

using test::expect_one_line_error;
using test::rope_cli;
using ::testing::HasSubstr;

class VectorOptions : public test::TempDirTest {};

/// The numbers of "  name = [a, b,\n       c]" in `out` (the list may continue on further lines).
std::vector<double> printed_vector(const std::string& out, const std::string& name) {
  const std::size_t start = out.find("  " + name + " = [");
  EXPECT_NE(start, std::string::npos) << name << " not printed in:\n" << out;
  if (start == std::string::npos) return {};
  const std::size_t open = out.find('[', start), close = out.find(']', start);
  std::string list = out.substr(open + 1, close - open - 1);
  std::vector<double> values;
  const std::regex number(R"([-+0-9.eE]+)");
  for (std::sregex_iterator it(list.begin(), list.end(), number), end; it != end; ++it)
    values.push_back(std::stod(it->str()));
  return values;
}

TEST_F(VectorOptions, ParsesCommaListsSemicolonRowsAndCsvFiles) {
  const Eigen::MatrixXd one = cli::parse_vectors_argument("1, 0.5,-2,4", "--q");
  ASSERT_EQ(one.rows(), 1);
  EXPECT_EQ(one(0, 2), -2.0);
  const Eigen::MatrixXd two = cli::parse_vectors_argument("1,0;0,1", "--q");
  EXPECT_EQ(two.rows(), 2);
  EXPECT_EQ(two(1, 1), 1.0);
  std::ofstream(path("rows.csv")) << "# a trained head\n1,2\n3,4\n";
  EXPECT_EQ(cli::parse_vectors_argument("@" + path("rows.csv"), "--k"),
            (Eigen::MatrixXd(2, 2) << 1, 2, 3, 4).finished());
  std::ofstream(path("column.txt")) << "1\n2\n3\n4\n";  // one number per line: one vector
  EXPECT_EQ(cli::parse_vectors_argument("@" + path("column.txt"), "--k"),
            (Eigen::MatrixXd(1, 4) << 1, 2, 3, 4).finished());
  EXPECT_THROW(cli::parse_vectors_argument("1,0;0", "--q"), InvalidArgument);
  EXPECT_THROW(cli::parse_vectors_argument("1,,2", "--q"), InvalidArgument);
  EXPECT_THROW(cli::parse_vectors_argument("1,nan", "--q"), InvalidArgument);
  EXPECT_THROW(cli::parse_vectors_argument("@" + path("missing.csv"), "--q"), IoError);
}

TEST_F(VectorOptions, BadVectorsAreOneLineErrorsNamingTheRule) {
  expect_one_line_error(rope_cli({"layouts", "--q", "1,0,0,0"}), 2, "give both --q and --k, or neither (got only --q)");
  expect_one_line_error(rope_cli({"layouts", "--q", "1,0,0", "--k", "0,1,0"}), 2,
                        "--q: the dimension d must be even, 2 … 1024 (got 3 numbers per vector)");
  expect_one_line_error(rope_cli({"layouts", "--q", "1,0,0,0", "--k", "0,1"}), 2,
                        "--k must have as many numbers per vector as --q (4, got 2)");
  expect_one_line_error(rope_cli({"layouts", "--q", "1,x", "--k", "1,2"}), 2,
                        "--q item 2 must be a decimal number (got 'x')");
  expect_one_line_error(rope_cli({"layouts", "--q", "1,0", "--k", "0,1", "--dim", "8"}), 2,
                        "--dim 8 does not match the 2 numbers per vector of --q and --k");
  expect_one_line_error(rope_cli({"layouts", "--q", "1,0;0,1", "--k", "1,0;0,1"}), 2,
                        "rope layouts takes one query and one key (got 2 vectors each)");
  expect_one_line_error(rope_cli({"layouts", "--q", "1,0", "--k", "0,1", "--model", "llama-3.1-8b"}), 2,
                        "--q and --k have 2 numbers, but the model's rotary dimension d is 128");
  expect_one_line_error(rope_cli({"attention", "--q", "1,0;0,1", "--k", "1,0;0,1", "--tokens", "3"}), 2,
                        "--tokens 3 does not match the 2 vectors of --q and --k");
  expect_one_line_error(rope_cli({"attention", "--q", "1,0;0,1", "--k", "1,0"}), 2,
                        "--k must have as many vectors as --q (2, got 1)");
}

// Can a student recompute the layouts score −2.4373386188206663 by hand? From the printed q and k, with
// θ_i = 10000^(−2i/8) and the pairs (2i, 2i+1) (M1), (M5): ⟨R_m q, R_n k⟩ = qᵀ R_{n−m} k (M8) is, pair by
// pair, cos φ_i (q_a k_a + q_b k_b) + sin φ_i (q_b k_a − q_a k_b) with φ_i = (n − m)θ_i.
TEST_F(VectorOptions, LayoutsScoreRecomputedFromThePrintedVectors) {
  // --digits 0: the score with every digit (6 by default, report/digits.hpp); the vectors are always in full.
  const test::Result r = rope_cli({"layouts", "--dim", "8", "--show-vectors", "--digits", "0"});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::vector<double> q = printed_vector(r.out, "q"), k = printed_vector(r.out, "k");
  ASSERT_EQ(q.size(), 8u);
  ASSERT_EQ(k.size(), 8u);
  double score = 0.0;
  for (int i = 0; i < 4; ++i) {
    const double phi = (12.0 - 5.0) * std::pow(10000.0, -2.0 * i / 8.0);
    const double qa = q[2 * i], qb = q[2 * i + 1], ka = k[2 * i], kb = k[2 * i + 1];
    score += std::cos(phi) * (qa * ka + qb * kb) + std::sin(phi) * (qb * ka - qa * kb);
  }
  // Printed with 17 significant digits; four terms of size ~1 in double differ by a few ulps from the
  // library's order of operations: 1e-13 leaves a factor 100 over that.
  EXPECT_NEAR(score, -2.4373386188206663, 1e-13);
  EXPECT_THAT(r.out, HasSubstr("(a) Meta's interleaved kernel          = -2.4373386188206663"));
  // The same vectors given back with --q and --k give the same score.
  std::string q_text, k_text;
  for (int c = 0; c < 8; ++c)
    q_text += fmt::format("{}{:.17g}", c ? "," : "", q[c]), k_text += fmt::format("{}{:.17g}", c ? "," : "", k[c]);
  const test::Result again = rope_cli({"layouts", "--q", q_text, "--k", k_text, "--digits", "0"});
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_THAT(again.out, HasSubstr("(a) Meta's interleaved kernel          = -2.4373386188206663"));
  EXPECT_THAT(again.out, HasSubstr("q and k from --q and --k"));
}

// Attention of the user's vectors, by hand: q_0 = k_0 = (1, 0), q_1 = k_1 = (0, 1) at positions 0 and 1,
// θ_0 = 1: s_01 = ⟨q_0, R(1) k_1⟩/√2 = −sin 1/√2, s_00 = 1/√2, so A_00 = 1/(1 + e^(s_01 − s_00)).
TEST_F(VectorOptions, AttentionOfTheUsersVectorsByHand) {
  const test::Result r = rope_cli({"attention", "--q", "1,0;0,1", "--k", "1,0;0,1", "--show-vectors"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("2 tokens at positions 0 … 1, d = 2"));
  EXPECT_THAT(r.out, HasSubstr("  q_0 = [1, 0]\n  q_1 = [0, 1]\n  k_0 = [1, 0]\n  k_1 = [0, 1]\n"));
  const double a00 = 1.0 / (1.0 + std::exp((-std::sin(1.0) - 1.0) / std::sqrt(2.0)));
  EXPECT_THAT(r.out, HasSubstr(fmt::format("   0  {:.6f}  {:.6f}\n", a00, 1.0 - a00)));
  // Random draws printed in full: the first score recomputed from them (d = 2, θ_0 = 1).
  const test::Result drawn = rope_cli({"attention", "--tokens", "2", "--dim", "2", "--show-vectors"});
  const std::vector<double> q0 = printed_vector(drawn.out, "q_0"), k0 = printed_vector(drawn.out, "k_0"),
                            k1 = printed_vector(drawn.out, "k_1");
  ASSERT_EQ(q0.size(), 2u);
  const double s00 = (q0[0] * k0[0] + q0[1] * k0[1]) / std::sqrt(2.0);
  const double s01 =
      (std::cos(1.0) * (q0[0] * k1[0] + q0[1] * k1[1]) + std::sin(1.0) * (q0[1] * k1[0] - q0[0] * k1[1])) /
      std::sqrt(2.0);
  EXPECT_THAT(drawn.out, HasSubstr(fmt::format("   0  {:.6f}  {:.6f}\n", 1.0 / (1.0 + std::exp(s01 - s00)),
                                               1.0 / (1.0 + std::exp(s00 - s01)))));
}

}  // namespace
}  // namespace rope
