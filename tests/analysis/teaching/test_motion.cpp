#include "rope/analysis/teaching/motion.hpp"

#include <cmath>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"

namespace rope::motion {
namespace {

TEST(Motion, SweepsEndExactlyAtTheirEnds) {
  EXPECT_THAT(linear_sweep(0.0, 4.0, 5), ::testing::ElementsAre(0.0, 1.0, 2.0, 3.0, 4.0));
  // 10^(k/3)·1: 1, 10, 100, 1000 (exp/log rounding: 4 ulp of the value, hence 1e-12 relative).
  const std::vector<double> g = geometric_sweep(1.0, 1000.0, 4);
  ASSERT_EQ(g.size(), 4u);
  EXPECT_EQ(g.front(), 1.0);
  EXPECT_NEAR(g[1], 10.0, 1e-12 * 10);
  EXPECT_NEAR(g[2], 100.0, 1e-12 * 100);
  EXPECT_EQ(g.back(), 1000.0);
  EXPECT_THAT(integer_sweep(10, 4), ::testing::ElementsAre(0, 3, 7, 10));  // round(10/3), round(20/3)
  EXPECT_THROW(linear_sweep(0, 1, 1), InvalidArgument);
  EXPECT_THROW(geometric_sweep(0.0, 10.0, 3), InvalidArgument);
}

TEST(Motion, IntegerPositionsOfAGeometricSweepNeverRepeat) {
  // 36 frames over 1 … 4096 rounded alone start 1, 1, 2, 2, 3, 3: six frames for three positions.
  const std::vector<long> m = geometric_integer_sweep(1, 4096, 36);
  ASSERT_EQ(m.size(), 36u);
  EXPECT_EQ(m.front(), 1);
  EXPECT_EQ(m.back(), 4096);
  for (std::size_t k = 1; k < m.size(); ++k) EXPECT_GT(m[k], m[k - 1]) << k;
  EXPECT_THAT(std::vector<long>(m.begin(), m.begin() + 10), ::testing::ElementsAre(1, 2, 3, 4, 5, 6, 7, 8, 9, 10));
  EXPECT_EQ(m[35 - 5], 1248);  // round(4096^(30/35)) = round(1248.3): the far end is still geometric
  // No room for distinct positions (3 positions, 5 frames): rounded, in order.
  EXPECT_THAT(geometric_integer_sweep(1, 3, 5), ::testing::ElementsAre(1, 1, 2, 2, 3));
}

TEST(Motion, FrameAngleIsPositionTimesTheta) {
  // d = 8, base 10000: θ_i = 10^(−i), so at m = 7 the angles are 7, 0.7, 0.07, 0.007 rad (M1), by hand.
  const Eigen::VectorXd theta = frequencies(8, 1e4);
  const Eigen::MatrixXd a = turn_angles(theta, {0.0, 7.0});
  EXPECT_EQ(a.row(0).norm(), 0.0);
  const double expected[] = {7.0, 0.7, 0.07, 0.007};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(a(1, i), expected[i], 1e-15 * 8) << i;  // θ_i from pow: a few ulp
}

TEST(Motion, CompletedTurnIsLambdaAtMostM) {
  // λ_i = 2π·10^i: 6.28, 62.8, 628, 6283; at m = 100 pairs 0 and 1 have turned once or more.
  const Eigen::VectorXd theta = frequencies(8, 1e4);
  EXPECT_THAT(completed_turn(theta, 100.0), ::testing::ElementsAre(true, true, false, false));
  EXPECT_THAT(completed_turn(theta, 6.0), ::testing::ElementsAre(false, false, false, false));
  EXPECT_THAT(completed_turn(theta, 7000.0), ::testing::ElementsAre(true, true, true, true));
}

TEST(Motion, PlaneFramesTurnBothVectorsAndKeepTheAngle) {
  // q = (1, 0), k = (0, 1), M = 0, N = 0, θ = π/2: at frame f both turn by f·π/2, so q' = (cos, sin)
  // of f·π/2 and the angle from q' to k' stays π/2, the score 0 (by hand).
  const Eigen::VectorXd pairs = Eigen::Vector2d(1.0, 0.5);
  const std::vector<PlaneFrame> frames = plane_frames({1, 0}, {0, 1}, 0.0, 0.0, kTwoPi / 4, pairs, 4);
  ASSERT_EQ(frames.size(), 4u);
  const Eigen::Vector2d q_expected[] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
  for (int f = 0; f < 4; ++f) {
    EXPECT_EQ(frames[f].shift, f);
    // cos and sin of multiples of π/2 are within 2 ulp of 0 or ±1.
    EXPECT_NEAR((frames[f].q_rotated - q_expected[f]).norm(), 0.0, 1e-15) << f;
    EXPECT_NEAR(frames[f].angle_between, kTwoPi / 4, 1e-15) << f;
    EXPECT_NEAR(frames[f].score, 0.0, 1e-15) << f;
    EXPECT_DOUBLE_EQ(frames[f].hand_angles[0], f * 1.0);  // (M + f)·θ_i with θ = (1, 0.5)
    EXPECT_DOUBLE_EQ(frames[f].hand_angles[1], f * 0.5);
  }
}

TEST(Motion, RopeWeightsStillSinusoidalMove) {
  // The defining property (M8): RoPE's weights do not change with a shift of every position, an
  // additive encoding's do. Tolerance: the (M13) rounding bound at positions below 200 is about
  // 1e-13 of the weights, which are <= 1.
  const QueriesKeys qk = random_queries_keys(6, 8, 42);
  const Eigen::VectorXd p = token_positions(6);
  AttentionSettings rope_settings;
  AttentionSettings sin_settings;
  sin_settings.encoding = Encoding::Sinusoidal;
  const std::vector<long> shifts = integer_sweep(100, 3);
  const auto r = shifted_weights(qk.q, qk.k, p, rope_settings, shifts);
  const auto s = shifted_weights(qk.q, qk.k, p, sin_settings, shifts);
  ASSERT_EQ(r.size(), 3u);
  for (int f = 1; f < 3; ++f) {
    EXPECT_LT((r[f] - r[0]).cwiseAbs().maxCoeff(), 1e-12) << f;
    EXPECT_GT((s[f] - s[0]).cwiseAbs().maxCoeff(), 1e-3) << f;
  }
}

}  // namespace
}  // namespace rope::motion
