#include "rope/analysis/check/angle_table.hpp"

#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <vector>

#include "rope/core/frequencies.hpp"

namespace rope {
namespace {

// Every position against cos/sin of p·θ_i in long double (64-bit significand; θ_i is the double the
// table gets, so p·θ_i is exact up to 2^-64 relative). The bound: each of the L levels rounds its
// angle j·128^l·θ_i once (ε/2 of an angle at most |p|·θ_i), its cos/sin (ε/2) and the complex product
// (two products and a sum of numbers <= 1: 2ε), so |error| <= ε·(|p|·θ_i + 3L); the test allows
// 2ε·(|p|·θ_i + 4L). A wrong digit or level gives an O(1) error.
TEST(AngleTable, MatchesLongDoubleAtEveryKindOfPosition) {
  const double eps = std::numeric_limits<double>::epsilon();
  for (double base : {1e4, 5e5}) {
    const Eigen::VectorXd theta = frequencies(128, base);
    const AngleTable table(theta, 2e12);
    EXPECT_EQ(table.levels(), 6);  // 128^6 = 2^42 >= 2e12 > 2^35
    const std::vector<std::int64_t> positions = {0,
                                                 1,
                                                 2,
                                                 127,
                                                 128,
                                                 129,
                                                 4095,
                                                 8191,
                                                 16384,
                                                 1048579,
                                                 (1LL << 35) + 12345,
                                                 1999999999999LL,
                                                 -1,
                                                 -5,
                                                 -(1LL << 30) - 7};
    std::vector<double> c(64), s(64);
    for (std::int64_t p : positions) {
      table.at(p, c.data(), s.data());
      for (int i = 0; i < 64; ++i) {
        const long double angle = static_cast<long double>(p) * static_cast<long double>(theta[i]);
        const double bound = 2 * eps * (std::abs(static_cast<double>(p)) * theta[i] + 4 * table.levels());
        EXPECT_NEAR(c[i], static_cast<double>(std::cos(angle)), bound) << "p = " << p << ", i = " << i;
        EXPECT_NEAR(s[i], static_cast<double>(std::sin(angle)), bound) << "p = " << p << ", i = " << i;
      }
    }
  }
}

TEST(AngleTable, OneLevelIsTheDirectValueBitForBit) {
  const Eigen::VectorXd theta = frequencies(8, 1e4);
  const AngleTable table(theta, 100);
  EXPECT_EQ(table.levels(), 1);
  std::vector<double> c(4), s(4);
  table.at(77, c.data(), s.data());
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(c[i], std::cos(77.0 * theta[i]));
    EXPECT_EQ(s[i], std::sin(77.0 * theta[i]));
  }
  table.at(-77, c.data(), s.data());  // cos even, sin odd
  EXPECT_EQ(s[1], -std::sin(77.0 * theta[1]));
}

}  // namespace
}  // namespace rope
