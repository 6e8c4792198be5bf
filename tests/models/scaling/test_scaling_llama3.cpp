#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/models/scaling/scaling.hpp"
#include "models/scaling/scaling_test_util.hpp"

// Llama 3.1 (S11): rope/models/scaling/scaling_llama3.cpp. Sources: tests/models/scaling/scaling_test_util.hpp.

namespace rope {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;
using namespace scaling_test;

/// A double x near L0 / want for which L0 / x == want exactly (NaN if none within 64 ulps).
double exact_divisor(long L0, double want) {
  const double numerator = static_cast<double>(L0);
  double up = numerator / want, down = up;
  for (int step = 0; step < 64; ++step) {
    if (numerator / up == want) return up;
    if (numerator / down == want) return down;
    up = std::nextafter(up, HUGE_VAL);
    down = std::nextafter(down, 0.0);
  }
  return std::nan("");
}

TEST(Scaling, Llama3MatchesHfGoldenVector) {
  // docs/scaling.md §11 (HF test test_llama3_rope_numerically): factor 10, L0 2048, low/high 1/4: inv[31] = 0.010730
  // (0.0107302483), inv[40] = 3.4539e-4 (3.453924383e-4), inv[41..] = default/10, attention 1.
  const RopeParameters p = rope_parameters(llama3_config(10.0, 2048, 1.0, 4.0));
  const Eigen::VectorXd theta = frequencies(128, 1e4);
  EXPECT_TRUE(RelNear(p.inv_freq[31], 0.0107302483, 1e-9));
  EXPECT_TRUE(RelNear(p.inv_freq[40], 3.453924383e-4, 1e-9));
  for (int j = 41; j < 64; ++j) EXPECT_TRUE(RelNear(p.inv_freq[j], theta[j] / 10.0, 1e-15)) << j;
  EXPECT_EQ(p.attention_factor, 1.0);
  EXPECT_EQ(p.original_max_position, 2048);
  // HF check 2: θ_j/f <= inv_j <= θ_j for every pair.
  for (int j = 0; j < 64; ++j) {
    EXPECT_GE(p.inv_freq[j], theta[j] / 10.0 * (1 - 1e-15)) << j;
    EXPECT_LE(p.inv_freq[j], theta[j] * (1 + 1e-15)) << j;
  }
  // HF check 2: high_freq_factor 1000 makes no pair high-frequency, so every pair is scaled.
  const RopeParameters all = rope_parameters(llama3_config(10.0, 2048, 1.0, 1000.0));
  for (int j = 0; j < 64; ++j) EXPECT_LT(all.inv_freq[j], theta[j]) << j;
}

TEST(Scaling, Llama31Has29Kept6Blended29DividedPairs) {
  // docs/scaling.md §11 (HF _compute_llama3_parameters; Meta f = 8, lf = 1, hf = 4, L0 = 8192; d = 128, base 5e5):
  // j = 0…28 kept, 29…34 blended with inv_j/θ_j = 0.82817, 0.64374, 0.49351, 0.37112, 0.27143,
  // 0.19021 (5 decimals), 35…63 divided by 8.
  RopeConfig c = llama3_config(8.0, 8192, 1.0, 4.0);
  c.base = 5e5;
  c.max_position_embeddings = 131072;
  const RopeParameters p = rope_parameters(c);
  const Eigen::VectorXd theta = frequencies(128, 5e5);
  const double ratios[] = {0.82817, 0.64374, 0.49351, 0.37112, 0.27143, 0.19021};
  std::map<Band, int> counts;
  for (int j = 0; j < 64; ++j) {
    const Band b = p.bands[static_cast<std::size_t>(j)];
    ++counts[b];
    if (j <= 28) {
      EXPECT_EQ(b, Band::Kept) << j;
      EXPECT_EQ(p.inv_freq[j], theta[j]) << j;
    } else if (j <= 34) {
      EXPECT_EQ(b, Band::Ramped) << j;
      EXPECT_NEAR(p.inv_freq[j] / theta[j], ratios[j - 29], 5e-6) << j;
    } else {
      EXPECT_EQ(b, Band::Interpolated) << j;
      EXPECT_EQ(p.inv_freq[j], theta[j] / 8.0) << j;
    }
  }
  EXPECT_EQ(counts[Band::Kept], 29);
  EXPECT_EQ(counts[Band::Ramped], 6);
  EXPECT_EQ(counts[Band::Interpolated], 29);
  EXPECT_TRUE(p.warnings.empty());
}

TEST(Scaling, Llama3BoundariesAreInclusiveAsInHf) {
  // HF: is_medium_freq = ~(λ < L0/hf) * ~(λ > L0/lf), so λ = L0/hf and λ = L0/lf are both blended
  // (docs/scaling.md llama3). Pair 0 has λ_0 = 2π exactly; choose hf, then lf, so that the boundary is exactly 2π.
  const long L0 = 8192;
  const double at_2pi = exact_divisor(L0, kTwoPi);
  ASSERT_TRUE(std::isfinite(at_2pi));
  ASSERT_EQ(static_cast<double>(L0) / at_2pi, kTwoPi);
  // λ_0 = L0/hf: blended with s = (L0/λ_0 − lf)/(hf − lf) = 1, i.e. θ_0.
  RopeParameters p = rope_parameters(llama3_config(8.0, L0, 1.0, at_2pi));
  EXPECT_EQ(p.bands[0], Band::Ramped);
  EXPECT_TRUE(RelNear(p.inv_freq[0], 1.0, 1e-12));
  // λ_0 = L0/lf: blended with s = 0, i.e. θ_0/f.
  p = rope_parameters(llama3_config(8.0, L0, at_2pi, 2.0 * at_2pi));
  EXPECT_EQ(p.bands[0], Band::Ramped);
  EXPECT_TRUE(RelNear(p.inv_freq[0], 1.0 / 8.0, 1e-12));
}

TEST(Scaling, Llama3NeedsAllFourParameters) {
  // HF _validate_llama3_rope_parameters: factor, original_max_position_embeddings, low_freq_factor,
  // high_freq_factor are required keys (KeyError); there are no defaults (docs/scaling.md).
  RopeConfig c = llama3_config(8.0, 8192, 1.0, 4.0);
  c.original_max_position_embeddings.reset();
  EXPECT_THAT([&] { rope_parameters(c); },
              ThrowsMessage<InvalidArgument>(HasSubstr("llama3 needs original_max_position_embeddings")));
  c = llama3_config(8.0, 8192, 1.0, 4.0);
  c.factor.reset();
  EXPECT_THAT([&] { rope_parameters(c); }, ThrowsMessage<InvalidArgument>(HasSubstr("llama3 needs factor")));
  c = llama3_config(8.0, 8192, 1.0, 4.0);
  c.low_freq_factor.reset();
  EXPECT_THAT([&] { rope_parameters(c); }, ThrowsMessage<InvalidArgument>(HasSubstr("llama3 needs low_freq_factor")));
  c = llama3_config(8.0, 8192, 1.0, 4.0);
  c.high_freq_factor.reset();
  EXPECT_THAT([&] { rope_parameters(c); }, ThrowsMessage<InvalidArgument>(HasSubstr("llama3 needs high_freq_factor")));
  // L0 / 0 is a ZeroDivisionError in HF.
  EXPECT_THAT([] { rope_parameters(llama3_config(8.0, 8192, 0.0, 4.0)); },
              ThrowsMessage<InvalidArgument>(HasSubstr("llama3 low_freq_factor must be > 0 (got 0)")));
}

}  // namespace
}  // namespace rope
