#include "rope/core/constants.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fmt/format.h>
#include <gtest/gtest.h>

namespace rope {
namespace {

/// The bits of a double: EXPECT_EQ on doubles already compares exactly, this also tells 0.0 from −0.0
/// and prints the difference in the last bits when it fails.
std::uint64_t bits(double x) {
  std::uint64_t b = 0;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

TEST(Constants, PiIsTheDoubleNearestToPiBitForBit) {
  EXPECT_EQ(bits(kPi), bits(std::acos(-1.0)));
  EXPECT_EQ(bits(kPi), 0x400921FB54442D18u);  // 0x1.921fb54442d18p+1, IEEE 754 binary64
  EXPECT_EQ(bits(pi_v<double>), bits(kPi));
  // The literal that bound.cpp defined before there was one π.
  EXPECT_EQ(bits(kPi), bits(3.141592653589793238462643383279502884));
}

TEST(Constants, TwoPiIsTheDoubleNearestToTwoPi) {
  EXPECT_EQ(bits(kTwoPi), bits(2 * std::acos(-1.0)));
  // The literals that frequencies, random, random_lanes, scaling, extrapolation and explain defined
  // before, so that using kTwoPi changed no printed digit.
  EXPECT_EQ(bits(kTwoPi), bits(6.283185307179586476925286766559));
  EXPECT_EQ(bits(kTwoPi), bits(6.283185307179586));
  EXPECT_EQ(kTwoPi / 2, kPi);
}

TEST(Constants, PiInOtherTypes) {
  // precision.cpp's long double reference (P7) and a float for completeness: each the nearest value.
  EXPECT_EQ(pi_v<long double>, std::acos(-1.0L));
  EXPECT_EQ(pi_v<long double>, 3.141592653589793238462643383279502884L);
  EXPECT_EQ(pi_v<float>, std::acos(-1.0f));
  EXPECT_EQ(static_cast<double>(pi_v<long double>), kPi);
}

TEST(Constants, ToleranceSafetyIsEightAndPrintsAsEight) {
  // κ of (M13); the commands print it with {:g} where they show "8·ε".
  EXPECT_EQ(kToleranceSafety, 8.0);
  EXPECT_EQ(fmt::format("{:g}·ε·(d + M)", kToleranceSafety), "8·ε·(d + M)");
}

}  // namespace
}  // namespace rope
