#include "rope/core/random_lanes.hpp"

#include <cmath>
#include <gtest/gtest.h>
#include <vector>

#include "rope/core/random.hpp"

namespace rope {
namespace {

constexpr int L = RandomLanes::kLanes;

Random scalar_lane(const RandomLanes& r, int j) {
  const auto s = r.lane_state(j);
  const std::uint64_t state[4] = {s[0], s[1], s[2], s[3]};
  return Random::from_state(state);
}

TEST(RandomLanes, EachLaneIsTheScalarGenerator) {
  RandomLanes lanes(5);
  std::vector<Random> scalar;
  for (int j = 0; j < L; ++j) scalar.push_back(scalar_lane(lanes, j));
  for (int step = 0; step < 100; ++step) {
    double u[L];
    lanes.fill_uniform_step(u);
    for (int j = 0; j < L; ++j) ASSERT_EQ(u[j], scalar[j].uniform()) << "lane " << j << " step " << step;
  }
  std::uint64_t k[L];
  lanes.below_step(4096, k);
  for (int j = 0; j < L; ++j) EXPECT_EQ(k[j], scalar[j].below(4096));
}

TEST(RandomLanes, LanesDifferAndSeedsDiffer) {
  RandomLanes a(1), b(2);
  for (int j = 1; j < L; ++j) EXPECT_NE(a.lane_state(j), a.lane_state(0));
  EXPECT_NE(a.lane_state(0), b.lane_state(0));
}

TEST(RandomLanes, NormalsAreTheScalarBoxMullerOfTheSameUniforms) {
  // The fast path (branch-free log and sin/cos) against Random::normal (std::log, std::sin, std::cos)
  // fed the same uniforms: a few ulp apart; values up to ~8, so 1e-14 absolute.
  RandomLanes lanes(7);
  std::vector<Random> scalar;
  for (int j = 0; j < L; ++j) scalar.push_back(scalar_lane(lanes, j));
  const std::size_t blocks = 3000;
  std::vector<double> out(2 * L * blocks);
  lanes.fill_normal_blocks(out.data(), blocks);
  double worst = 0;
  for (std::size_t b = 0; b < blocks; ++b) {
    for (int j = 0; j < L; ++j) {
      const double first = scalar[j].normal(), second = scalar[j].normal();
      worst = std::max({worst, std::abs(out[2 * (b * L + j)] - first), std::abs(out[2 * (b * L + j) + 1] - second)});
    }
  }
  EXPECT_LT(worst, 1e-14);
  EXPECT_GT(worst, 0.0);  // a different computation; exact equality would mean the test compares nothing
}

TEST(RandomLanes, AnyCountIsAPrefixOfWholeBlocks) {
  std::vector<double> whole(2 * L * 3), part(37);
  RandomLanes(11).fill_normal(whole.data(), whole.size());
  RandomLanes(11).fill_normal(part.data(), part.size());
  for (std::size_t i = 0; i < part.size(); ++i) EXPECT_EQ(part[i], whole[i]) << i;
}

TEST(RandomLanes, NormalMoments) {
  // 2^20 draws: the sample mean has sd 1/1024 and the sample variance sd √2/1024; 5 sd bounds.
  std::vector<double> v(1 << 20);
  RandomLanes(3).fill_normal(v.data(), v.size());
  double sum = 0, sum2 = 0, sum4 = 0;
  for (double x : v) {
    sum += x;
    sum2 += x * x;
    sum4 += x * x * x * x;
  }
  const double n = static_cast<double>(v.size());
  EXPECT_NEAR(sum / n, 0.0, 5.0 / 1024);
  EXPECT_NEAR(sum2 / n, 1.0, 5.0 * std::sqrt(2.0) / 1024);
  EXPECT_NEAR(sum4 / n, 3.0, 0.05);  // E x⁴ = 3; sd of the estimate √96/1024 ≈ 0.0096
}

TEST(RandomLanes, BranchlessLogMatchesStdLog) {
  std::vector<double> xs = {
      0x1.0p-53,       1e-300, 1e-10, 0.25, 0.5, 0.70710678118654752, 0.7071067811865476, 0.9, 0.999999,
      1.0 - 0x1.0p-53, 1.0,    1.5,   2.0,  1e10};
  Random rng(1);
  for (int i = 0; i < 100000; ++i) xs.push_back(1.0 - rng.uniform());
  for (double x : xs) {
    const double expected = std::log(x);
    EXPECT_NEAR(detail::log_branchless(x), expected, 2e-16 + 1e-15 * std::abs(expected)) << x;
  }
}

TEST(RandomLanes, SinCosOfTurnsMatchStd) {
  std::vector<double> ts;
  for (int k = 0; k < 8; ++k) ts.push_back(k / 8.0);  // quadrant boundaries and midpoints
  ts.push_back(1.0 - 0x1.0p-53);
  Random rng(2);
  for (int i = 0; i < 100000; ++i) ts.push_back(rng.uniform());
  const double two_pi = 6.283185307179586476925286766559;
  for (double t : ts) {
    double s, c;
    detail::sincos_turns(t, s, c);
    // std::sin(2πt) rounds the angle first (≤ ulp(2π)/2 ≈ 4.4e-16), the fast path rounds t − k/4
    // times 2π: both are within ~1e-15 of the exact value.
    EXPECT_NEAR(s, std::sin(two_pi * t), 1.5e-15) << t;
    EXPECT_NEAR(c, std::cos(two_pi * t), 1.5e-15) << t;
  }
}

}  // namespace
}  // namespace rope
