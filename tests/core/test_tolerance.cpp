#include "rope/core/tolerance.hpp"

#include <cmath>
#include <gtest/gtest.h>
#include <limits>

namespace rope {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

Check check(double difference, double scale, double tolerance) {
  Check c;
  c.difference = difference;
  c.scale = scale;
  c.tolerance = tolerance;
  return c;
}

TEST(Tolerance, RelativeToleranceIsKappaEpsilonDPlusM) {
  // (M13) written out: 8·ε·(d + M), exactly.
  EXPECT_EQ(relative_tolerance(machine_epsilon<double>(), 128, 8192), 8 * 0x1p-52 * (128 + 8192));
  EXPECT_EQ(relative_tolerance(machine_epsilon<float>(), 2, 0), 8 * 0x1p-23 * 2);
  EXPECT_EQ(machine_epsilon<double>(), 0x1p-52);
  EXPECT_EQ(machine_epsilon<float>(), 0x1p-23);
}

TEST(Tolerance, DefaultCheckPasses) {
  // Nothing compared yet: |Δ| = 0 against a tolerance of 0 with S = 1.
  const Check c;
  EXPECT_EQ(c.difference, 0.0);
  EXPECT_EQ(c.scale, 1.0);
  EXPECT_EQ(c.tolerance, 0.0);
  EXPECT_TRUE(c.passed());
  EXPECT_EQ(c.relative_error(), 0.0);
}

TEST(Tolerance, PassesUpToAndIncludingTheBound) {
  // |Δ| <= tolerance·S: the bound itself passes (<=, not <), the next double above it fails.
  const double scale = 3.7;
  const double tolerance = 1e-13;
  const double bound = tolerance * scale;
  EXPECT_TRUE(check(bound, scale, tolerance).passed());
  EXPECT_TRUE(check(std::nextafter(bound, 0.0), scale, tolerance).passed());
  EXPECT_FALSE(check(std::nextafter(bound, kInf), scale, tolerance).passed());
  EXPECT_TRUE(check(0.0, scale, tolerance).passed());
}

TEST(Tolerance, TheRuleIsOnTheProductNotTheQuotient) {
  // |Δ| <= tolerance·S and |Δ|/S <= tolerance are the same in exact arithmetic; in doubles they can
  // differ in the last bit at the bound. The rule is the product, as explain and layouts had it: find
  // a case where the two disagree and check that passed() follows the product.
  int disagreements = 0;
  for (int i = 1; i < 2000 && disagreements < 3; ++i) {
    const double scale = 1.0 + i * 0.0137;
    const double tolerance = 1e-13 * (1.0 + i * 0.00071);
    for (double difference = std::nextafter(tolerance * scale, 0.0), k = 0; k < 3;
         difference = std::nextafter(difference, kInf), ++k) {
      const bool by_product = difference <= tolerance * scale;
      const bool by_quotient = difference / scale <= tolerance;
      EXPECT_EQ(check(difference, scale, tolerance).passed(), by_product) << difference << " " << scale;
      if (by_product != by_quotient) ++disagreements;
    }
  }
  EXPECT_GT(disagreements, 0);  // the cases exist: the test above has looked at some
}

TEST(Tolerance, NanOrInfiniteDifferenceFails) {
  EXPECT_FALSE(check(kNan, 1.0, 1e-12).passed());
  EXPECT_FALSE(check(kNan, 1.0, kInf).passed());
  EXPECT_FALSE(check(kInf, 1.0, 1e-12).passed());
  // An overflow never passes, even where tolerance·S overflows too (a scale of +inf).
  EXPECT_FALSE(check(kInf, kInf, 1e-12).passed());
  EXPECT_TRUE(check(1e300, kInf, 1e-12).passed());  // finite |Δ| against an infinite bound
  EXPECT_TRUE(std::isnan(check(kNan, 1.0, 1e-12).relative_error()));
}

TEST(Tolerance, ZeroScaleDemandsExactAgreement) {
  EXPECT_TRUE(check(0.0, 0.0, 1e-12).passed());
  EXPECT_FALSE(check(1e-300, 0.0, 1e-12).passed());
  EXPECT_FALSE(check(std::numeric_limits<double>::denorm_min(), 0.0, 1.0).passed());
  EXPECT_EQ(check(0.0, 0.0, 1e-12).relative_error(), 0.0);  // not 0/0
  EXPECT_EQ(check(1e-300, 0.0, 1e-12).relative_error(), kInf);
}

TEST(Tolerance, ZeroToleranceDemandsExactAgreement) {
  // verify's layouts row: the two layouts are conjugate by a permutation, no rounding at all.
  EXPECT_TRUE(check(0.0, 1.0, 0.0).passed());
  EXPECT_FALSE(check(std::numeric_limits<double>::denorm_min(), 1.0, 0.0).passed());
  EXPECT_FALSE(check(1e-300, 1.0, 0.0).passed());
}

TEST(Tolerance, RelativeErrorIsDifferenceOverScale) {
  EXPECT_EQ(check(6e-14, 3.0, 1e-13).relative_error(), 6e-14 / 3.0);
  EXPECT_EQ(check(2.5, 1.0, 0.0).relative_error(), 2.5);  // normalised: scale 1
  EXPECT_EQ(check(kInf, 1.0, 0.0).relative_error(), kInf);
}

TEST(Tolerance, NormalisedWorstCaseIsTheRelativeRule) {
  // verify, the bulk identity check and the shift test hold max |Δ|/S with scale 1: passed() is then
  // exactly max |Δ|/S <= tolerance, the rule they had.
  for (double tolerance : {0.0, 1e-300, 1e-13, 0.088388, 1.0}) {
    for (double worst : {0.0, tolerance, std::nextafter(tolerance, kInf), std::nextafter(tolerance, 0.0), kInf}) {
      EXPECT_EQ(check(worst, 1.0, tolerance).passed(), worst <= tolerance) << worst << " " << tolerance;
    }
  }
}

}  // namespace
}  // namespace rope
