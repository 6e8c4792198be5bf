#include "rope/analysis/verify/verify.hpp"

#include <cmath>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "rope/core/error.hpp"

namespace rope {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

TEST(Verify, DefaultSuitePassesWithHeadlineErrorBelowOneBillionth) {
  const VerifyReport report = verify(VerifySettings{});
  ASSERT_EQ(report.identities.size(), 7u);
  for (const auto& r : report.identities) {
    EXPECT_TRUE(r.check.passed()) << r.name << ": " << r.check.relative_error() << " > " << r.check.tolerance;
    EXPECT_GT(r.samples, 0) << r.name;
  }
  EXPECT_TRUE(report.all_passed());
  EXPECT_EQ(report.identities[0].name, "relative position");
  EXPECT_EQ(report.identities[0].samples, 1000);
  EXPECT_LT(report.identities[0].max_abs_error, 1e-9);  // far below any tolerance of (M13)
  // The layouts differ by a permutation only: exactly zero, whatever the draw.
  EXPECT_EQ(report.identities[6].max_abs_error, 0.0);
}

TEST(Verify, SinusoidalContrastFailsAsExpected) {
  // (M12): shifting both positions moves ⟨q + p_m, k + p_n⟩ by O(1), far above rounding.
  const VerifyReport report = verify(VerifySettings{});
  EXPECT_TRUE(report.contrast.expected_to_fail);
  EXPECT_FALSE(report.contrast.check.passed());
  EXPECT_GT(report.contrast.check.relative_error(), 1e-3);
}

TEST(Verify, PassesAcrossDimensionsBasesLayoutsAndLongPositions) {
  for (int d : {2, 4, 64, 128}) {
    for (double base : {1e4, 5e5}) {
      for (Layout layout : {Layout::Interleaved, Layout::Half}) {
        VerifySettings s;
        s.dim = d;
        s.base = base;
        s.layout = layout;
        s.trials = 50;
        s.max_position = 131072;
        const VerifyReport report = verify(s);
        for (const auto& r : report.identities)
          EXPECT_TRUE(r.check.passed()) << "d=" << d << " base=" << base << " " << r.name;
      }
    }
  }
}

TEST(Verify, SameSeedSameResultOtherSeedOtherDraws) {
  VerifySettings s;
  s.trials = 20;
  const VerifyReport a = verify(s);
  const VerifyReport b = verify(s);
  for (std::size_t i = 0; i < a.identities.size(); ++i) {
    EXPECT_EQ(a.identities[i].max_abs_error, b.identities[i].max_abs_error) << a.identities[i].name;
  }
  s.seed = 99;
  EXPECT_NE(verify(s).contrast.max_abs_error, a.contrast.max_abs_error);
}

TEST(Verify, ToleranceGrowsWithPositions) {
  VerifySettings near, far;
  near.trials = far.trials = 5;
  far.max_position = 1e6;
  EXPECT_GT(verify(far).identities[0].check.tolerance, 100 * verify(near).identities[0].check.tolerance);
}

TEST(Verify, ARowFailsWhenItsErrorExceedsItsTolerance) {
  IdentityResult r;
  r.check.tolerance = 1e-12;
  r.check.difference = 2e-12;
  EXPECT_FALSE(r.check.passed());
  VerifyReport report;
  report.identities = {IdentityResult{}, r};
  EXPECT_FALSE(report.all_passed());
  IdentityResult exact;  // tolerance 0: must agree exactly
  exact.check.difference = 1e-300;
  EXPECT_FALSE(exact.check.passed());
}

TEST(Verify, DenseIdentitiesUseEveryDrawForSmallDimensions) {
  EXPECT_EQ(dense_samples(128, 1000), 1000);  // 2^33 / (3·128³) = 1365 >= 1000
  EXPECT_EQ(dense_samples(256, 1000), 170);   // 2^33 / (3·256³) = 170.7
  EXPECT_EQ(dense_samples(4096, 1000), 1);
}

TEST(Verify, RejectsBadSettings) {
  VerifySettings s;
  s.dim = 7;
  EXPECT_THAT([&] { verify(s); }, ThrowsMessage<InvalidArgument>(HasSubstr("(got 7)")));
  s = VerifySettings{};
  s.trials = 0;
  EXPECT_THAT([&] { verify(s); }, ThrowsMessage<InvalidArgument>(HasSubstr("trials must be between 1 and")));
  s = VerifySettings{};
  s.max_position = 0.5;
  EXPECT_THAT([&] { verify(s); }, ThrowsMessage<InvalidArgument>(HasSubstr("max-position must be an integer")));
  s = VerifySettings{};
  s.base = 1.0;
  EXPECT_THROW(verify(s), InvalidArgument);
}

TEST(Verify, TrialsTimesDimensionIsBounded) {
  // 10^9 trials at d = 4096 were allowed and ran for 8–25 hours (issue 37, item 8).
  VerifySettings s;
  s.dim = 4096;
  s.trials = 1'000'000'000;
  EXPECT_THAT([&] { verify(s); }, ThrowsMessage<InvalidArgument>(HasSubstr(
                                      "trials must be at most 31250000 for d = 4096 in f64 (trials × d × 1 is at most "
                                      "1.28e+11; got 1000000000)")));
  s.trials = 31'250'001;
  EXPECT_THROW(verify(s), InvalidArgument);
  s.dim = 128;
  s.dtype = DType::F16;  // emulated rounding: 48 times the work of a float64 trial
  s.trials = 20'833'334;
  EXPECT_THAT([&] { verify(s); }, ThrowsMessage<InvalidArgument>(HasSubstr("at most 20833333 for d = 128 in f16")));
  s.dtype = DType::F64;
  s.trials = kMaxTrials;  // the documented 10^9 float64 trials at d = 128 stay allowed: checked, not run
  EXPECT_LE(static_cast<double>(s.trials) * s.dim * verify_trial_cost(s.dtype), kMaxVerifyWork);
}

}  // namespace
}  // namespace rope

// --dtype (docs/precision.md (P10), (P11)).
namespace rope {
namespace {

// These tests describe the cast-inputs pipeline (everything in the type, (P3)), which was the only one
// before --strategy; the default strategy angle-f32 has its own tests (test_verify_fast.cpp).
VerifySettings in(DType dtype, double max_position, long trials = 300) {
  VerifySettings s;
  s.dtype = dtype;
  s.strategy = Strategy::CastInputs;
  s.max_position = max_position;
  s.trials = trials;
  return s;
}

TEST(VerifyDType, Float64IsTheDefaultBitForBit) {
  VerifySettings plain;
  plain.trials = 200;
  const VerifyReport a = verify(plain);
  const VerifyReport b = verify(in(DType::F64, 4096, 200));
  for (std::size_t i = 0; i < a.identities.size(); ++i) {
    EXPECT_EQ(a.identities[i].max_abs_error, b.identities[i].max_abs_error);
    EXPECT_EQ(a.identities[i].check.tolerance, b.identities[i].check.tolerance);
  }
}

TEST(VerifyDType, ToleranceModel) {
  // (M13) for float64 and float32: 8·ε·(d + M).
  EXPECT_EQ(dtype_tolerance(DType::F64, 128, 8192), 8 * 0x1p-52 * (128 + 8192));
  EXPECT_EQ(dtype_tolerance(DType::F32, 128, 8192), 8 * 0x1p-23 * (128 + 8192));
  // (P10) for the 16-bit types: the d sums accumulate in float32, only M is in the type.
  EXPECT_DOUBLE_EQ(dtype_tolerance(DType::BF16, 128, 4), 8 * (0x1p-23 * 128 + 0x1p-7 * 4));
  EXPECT_DOUBLE_EQ(dtype_tolerance(DType::F16, 64, 10, 2), 2 * (0x1p-23 * 64 + 0x1p-10 * 10));
  EXPECT_DOUBLE_EQ(score_tolerance_cap(128), 0.08838834764831845);
}

TEST(VerifyDType, Float32PassesWithItsOwnTolerance) {
  const VerifyReport r = verify(in(DType::F32, 4096));
  EXPECT_TRUE(r.all_passed());
  // And the float32 errors are far above float64's tolerance: ε must be that of the type used.
  EXPECT_GT(r.identities[0].check.relative_error(), dtype_tolerance(DType::F64, 128, 8192) * 1e3);
  EXPECT_FALSE(r.identities[0].capped);
}

TEST(VerifyDType, TooSmallToleranceFails) {
  VerifySettings s = in(DType::F32, 4096);
  s.safety = 0.001;  // 8000× tighter than κ = 8: below what float32 rounding gives
  const VerifyReport r = verify(s);
  EXPECT_FALSE(r.all_passed());
  EXPECT_FALSE(r.identities[0].check.passed());  // relative position
  EXPECT_TRUE(r.identities[6].check.passed());   // layouts: exact in any type
}

TEST(VerifyDType, Bfloat16BreaksWherePositionsNoLongerFit) {
  // Positions up to 4: bfloat16's three digits suffice, every identity passes.
  EXPECT_TRUE(verify(in(DType::BF16, 4)).all_passed());
  // Positions up to 4096: the angle is lost (257 is already 256), the scores are wrong by more than
  // their typical size; the capped tolerance fails them.
  const VerifyReport r = verify(in(DType::BF16, 4096));
  EXPECT_FALSE(r.all_passed());
  EXPECT_TRUE(r.identities[0].capped);
  EXPECT_FALSE(r.identities[0].check.passed());
  EXPECT_GT(r.identities[0].check.relative_error(), score_tolerance_cap(128));
  EXPECT_TRUE(r.identities[6].check.passed());
  // float16 as well, once positions pass 2048.
  EXPECT_FALSE(verify(in(DType::F16, 4096)).all_passed());
  EXPECT_TRUE(verify(in(DType::F16, 32)).all_passed());
}

TEST(VerifyDType, OverflowIsAFailureNotANan) {
  // float16 positions above 65519 are infinite: NaN scores must count as an infinite error.
  const VerifyReport r = verify(in(DType::F16, 100000, 20));
  EXPECT_FALSE(r.all_passed());
  EXPECT_TRUE(std::isinf(r.identities[0].check.relative_error()));
}

}  // namespace
}  // namespace rope
