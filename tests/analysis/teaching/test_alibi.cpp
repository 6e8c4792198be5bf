#include "rope/analysis/teaching/alibi.hpp"

#include <cmath>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "rope/core/error.hpp"

namespace rope {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

TEST(Alibi, EightHeadsHaveSlopesOneHalfToOne256th) {
  // Press et al. 2021 §3: "For a model with 8 heads, the slopes that we used are the geometric sequence
  // 1/2^1, 1/2^2, …, 1/2^8". Powers of two: exact.
  const std::vector<double> expected = {1.0 / 2, 1.0 / 4, 1.0 / 8, 1.0 / 16, 1.0 / 32, 1.0 / 64, 1.0 / 128, 1.0 / 256};
  EXPECT_EQ(alibi_slopes(8), expected);
}

TEST(Alibi, PowerOfTwoHeadsStartAtTwoToMinusEightOverNWithThatRatio) {
  // §3: "for n heads, our set of slopes is the geometric sequence that starts at 2^(−8/n) and uses that
  // same value as its ratio". exp2 of a multiple of 1/2 or 1/4 is within an ulp: 4e-16 relative.
  for (int n : {1, 2, 4, 16, 32, 64}) {
    const std::vector<double> m = alibi_slopes(n);
    ASSERT_EQ(m.size(), static_cast<std::size_t>(n));
    const double start = std::exp2(-8.0 / n);
    EXPECT_NEAR(m[0], start, 4e-16 * start) << n;
    for (int h = 1; h < n; ++h) EXPECT_NEAR(m[h] / m[h - 1], start, 1e-15) << n << " head " << h;
    EXPECT_EQ(m.back(), 1.0 / 256) << n;  // 2^(−8n/n), exact
  }
}

TEST(Alibi, SixteenHeadsMatchThePapersCodeToAFewUlps) {
  // get_slopes(16) of ofirpress/attention_with_linear_biases (fairseq/models/transformer.py), run in
  // Python: start·ratio^i accumulates rounding (0.5000000000000001, 0.0039062500000000043: 5 ulps), exp2
  // does not; 8 ulps = 8·ε relative.
  const double paper[] = {0.7071067811865476,   0.5000000000000001,   0.35355339059327384,  0.25000000000000006,
                          0.17677669529663692,  0.12500000000000006,  0.08838834764831849,  0.06250000000000004,
                          0.044194173824159244, 0.03125000000000002,  0.022097086912079626, 0.01562500000000001,
                          0.011048543456039816, 0.007812500000000007, 0.005524271728019908, 0.003906250000000004};
  const std::vector<double> m = alibi_slopes(16);
  for (int h = 0; h < 16; ++h) EXPECT_NEAR(m[h], paper[h], 8 * 2.220446049250313e-16 * paper[h]) << h;
  EXPECT_EQ(m[1], 0.5);  // exact here
}

TEST(Alibi, OtherHeadCountsFollowThePapersCode) {
  // get_slopes(n) of the paper's code for n not a power of two: the slopes of the largest power of two
  // c below n, then every other slope of 2c heads (the 1st, 3rd, …). Values printed by that code.
  EXPECT_EQ(alibi_slopes(3), (std::vector<double>{0.0625, 0.00390625, 0.25}));
  EXPECT_EQ(alibi_slopes(5), (std::vector<double>{0.25, 0.0625, 0.015625, 0.00390625, 0.5}));
  EXPECT_EQ(alibi_slopes(6), (std::vector<double>{0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125}));
  const std::vector<double> m12 = alibi_slopes(12);
  ASSERT_EQ(m12.size(), 12u);
  for (int h = 0; h < 8; ++h) EXPECT_EQ(m12[h], std::ldexp(1.0, -(h + 1))) << h;  // 2^−1 … 2^−8
  // 2^−0.5, 2^−1.5, 2^−2.5, 2^−3.5 from get_slopes(16)[0::2][:4]; 1e-15 relative as above.
  const double extra[] = {0.7071067811865476, 0.35355339059327384, 0.17677669529663692, 0.08838834764831849};
  for (int h = 0; h < 4; ++h) EXPECT_NEAR(m12[8 + h], extra[h], 1e-15 * extra[h]) << h;
}

TEST(Alibi, BiasIsMinusSlopeTimesDistance) {
  // b_ij = −m·|p_i − p_j|, by hand for m = 1/2 and positions 0 … 3; +0 on the diagonal.
  Eigen::MatrixXd expected(4, 4);
  expected << 0, -0.5, -1, -1.5,  //
      -0.5, 0, -0.5, -1,          //
      -1, -0.5, 0, -0.5,          //
      -1.5, -1, -0.5, 0;
  const Eigen::VectorXd positions = Eigen::VectorXd::LinSpaced(4, 0, 3);
  const Eigen::MatrixXd bias = alibi_bias(positions, 0.5);
  EXPECT_EQ(bias, expected);
  EXPECT_FALSE(std::signbit(bias(2, 2)));
}

TEST(Alibi, BiasIsExactlyShiftInvariantForIntegerPositions) {
  // (p_i + C) − (p_j + C) = p_i − p_j exactly for integers below 2^53: no tolerance.
  const Eigen::VectorXd positions = Eigen::VectorXd::LinSpaced(10, 0, 9);
  for (double shift : {1.0, 100.0, 1e9, -7.0}) {
    EXPECT_EQ(alibi_bias(positions.array() + shift, 0.25), alibi_bias(positions, 0.25)) << shift;
  }
}

TEST(Alibi, RejectsBadInput) {
  EXPECT_THAT([] { alibi_slopes(0); }, ThrowsMessage<InvalidArgument>(HasSubstr("between 1 and 1024 (got 0)")));
  EXPECT_THROW(alibi_slopes(1025), InvalidArgument);
  const Eigen::VectorXd p = Eigen::VectorXd::LinSpaced(3, 0, 2);
  EXPECT_THAT([&] { alibi_bias(p, -1.0); }, ThrowsMessage<InvalidArgument>(HasSubstr(">= 0 (got -1)")));
  EXPECT_THROW(alibi_bias(p, std::nan("")), InvalidArgument);
  Eigen::VectorXd bad = p;
  bad[1] = INFINITY;
  EXPECT_THROW(alibi_bias(bad, 0.5), InvalidArgument);
}

}  // namespace
}  // namespace rope
