#include "rope/analysis/calculators/extrapolation.hpp"

#include <cmath>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"

namespace rope {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

TEST(Extrapolation, CriticalDimensionTableOfKnownValues) {
  // Liu et al. 2023 (arXiv:2310.05209) and the OpenLMLab/scaling-rope README, d = 128, base 1e4: (d/2)·log term (2
  // decimals) and d_extra; 92 for Llama 2 is the example of the paper's README.
  struct Row {
    double T;
    double x;
    int d_extra;
  };
  for (const Row& r : {Row{2048, 40.21, 82}, Row{4096, 45.03, 92}, Row{8192, 49.84, 100}, Row{16384, 54.66, 110},
                       Row{32768, 59.48, 120}}) {
    const CriticalDimension c = critical_dimension(128, 1e4, r.T);
    EXPECT_NEAR(c.x, r.x, 0.005) << r.T;
    EXPECT_EQ(c.dimension, r.d_extra) << r.T;
    EXPECT_EQ(c.pairs, r.d_extra / 2) << r.T;
    EXPECT_FALSE(c.capped);
  }
}

TEST(Extrapolation, CriticalDimensionIsFirstPairBeyond) {
  // (C6) against (M16), computed from the wavelengths themselves, over lengths that are not exactly
  // a wavelength: T = 7, 8, … (×1.37).
  for (const int d : {8, 64, 128}) {
    for (const double base : {500.0, 1e4, 5e5}) {
      const Eigen::VectorXd lambda = wavelengths(frequencies(d, base));
      for (double T = 7; T < 1e9; T *= 1.37) {
        EXPECT_EQ(critical_dimension(d, base, T).pairs, first_pair_beyond(lambda, T)) << d << " " << base << " " << T;
      }
    }
  }
}

TEST(Extrapolation, CapsAtTheDimension) {
  // d = 8, base 1e4: the slowest wavelength is 2000π ≈ 6283; x = 4·log_1e4(1e6/2π) ≈ 5.2 > 4.
  const CriticalDimension c = critical_dimension(8, 1e4, 1e6);
  EXPECT_TRUE(c.capped);
  EXPECT_EQ(c.dimension, 8);
  EXPECT_GT(c.x, 4.0);
}

TEST(Extrapolation, BoundOfKnownValues) {
  // Computed from (C7) of Liu et al. 2023 (arXiv:2310.05209): T_extra = 2π·β^(92/128), rounded to integers (hence 0.5).
  EXPECT_NEAR(extrapolation_bound(128, 500, 92), 547, 0.5);
  EXPECT_NEAR(extrapolation_bound(128, 1e5, 92), 24656, 0.5);
  EXPECT_NEAR(extrapolation_bound(128, 5e5, 92), 78400, 0.5);
  EXPECT_NEAR(extrapolation_bound(128, 1e6, 92), 129027, 0.5);
  // By hand: d_extra = d gives 2π·β; d_extra = 0 gives 2π.
  EXPECT_DOUBLE_EQ(extrapolation_bound(8, 1e4, 8), 2 * M_PI * 1e4);
  EXPECT_DOUBLE_EQ(extrapolation_bound(8, 1e4, 0), 2 * M_PI);
  // With the pre-training base it is the wavelength of the critical pair (M2).
  const Eigen::VectorXd lambda = wavelengths(frequencies(128, 1e4));
  EXPECT_NEAR(extrapolation_bound(128, 1e4, 92), lambda[46], 1e-12 * lambda[46]);
}

TEST(Extrapolation, CriticalBaseOfKnownValues) {
  // Computed from (C8) of Liu et al. 2023: 4096 → 16384 from base 1e4: β₀ = 71 738 (rounded).
  const double b0 = critical_base(1e4, 4096, 16384);
  EXPECT_NEAR(b0, 71738, 0.5);
  // Its defining property (C8): 2π·β₀^(x/(d/2)) = T_tune with x of (C6), to rounding.
  const CriticalDimension c = critical_dimension(128, 1e4, 4096);
  EXPECT_NEAR(2 * M_PI * std::pow(b0, c.x / 64), 16384, 1e-9 * 16384);
  // Same lengths: the same base.
  EXPECT_NEAR(critical_base(1e4, 4096, 4096), 1e4, 1e-9);
}

TEST(Extrapolation, SmallBaseThresholdsOfKnownValues) {
  // Computed from (C9) of Liu et al. 2023, T_tune = 16384: 10 430 / 5 215 / 2 608 (rounded).
  const SmallBaseThresholds t = small_base_thresholds(16384);
  EXPECT_NEAR(t.quarter, 10430, 0.5);
  EXPECT_NEAR(t.half, 5215, 0.5);
  EXPECT_NEAR(t.full, 2608, 0.5);
  // A period of 2π·β equal to 4T, 2T and T: a quarter, a half and a full turn within T.
  EXPECT_DOUBLE_EQ(2 * M_PI * t.quarter, 4 * 16384.0);
  EXPECT_DOUBLE_EQ(2 * M_PI * t.half, 2 * 16384.0);
  EXPECT_DOUBLE_EQ(2 * M_PI * t.full, 16384.0);
}

TEST(Extrapolation, RejectsBadInput) {
  EXPECT_THAT([] { critical_dimension(128, 1e4, 6.28); },
              ThrowsMessage<InvalidArgument>(HasSubstr("training length T must be > 2π")));
  EXPECT_THAT([] { critical_dimension(128, 1e4, NAN); }, ThrowsMessage<InvalidArgument>(HasSubstr("> 2π")));
  EXPECT_THAT([] { critical_dimension(128, 1e4, 1e16); }, ThrowsMessage<InvalidArgument>(HasSubstr("<= 1e+15")));
  EXPECT_THAT([] { critical_dimension(127, 1e4, 4096); }, ThrowsMessage<InvalidArgument>(HasSubstr("even")));
  EXPECT_THAT([] { critical_dimension(128, 1, 4096); }, ThrowsMessage<InvalidArgument>(HasSubstr("base")));
  EXPECT_THAT([] { extrapolation_bound(128, 1e4, 93); },
              ThrowsMessage<InvalidArgument>(HasSubstr("even and between 0 and d = 128")));
  EXPECT_THAT([] { extrapolation_bound(128, 1e4, 130); }, ThrowsMessage<InvalidArgument>(HasSubstr("between 0 and d")));
  EXPECT_THAT([] { critical_base(1e4, 4096, 5); }, ThrowsMessage<InvalidArgument>(HasSubstr("tuning length T_tune")));
  EXPECT_THAT([] { small_base_thresholds(-1); }, ThrowsMessage<InvalidArgument>(HasSubstr("tuning length")));
}

}  // namespace
}  // namespace rope
