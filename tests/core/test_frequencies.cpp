#include "rope/core/frequencies.hpp"

#include <cmath>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/matrix_near.hpp"
#include "support/reference_data.hpp"
#include "rope/core/error.hpp"

namespace rope {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

TEST(Frequencies, FirstPairIsExactlyOneForEveryDimensionAndBase) {
  // θ_0 = base^0 = 1 by definition (M1).
  for (int d : {2, 4, 64, 128, 4096}) {
    for (double base : {1.5, 1e4, 5e5, 1e6}) EXPECT_EQ(frequencies(d, base)[0], 1.0) << d << " " << base;
  }
}

TEST(Frequencies, MatchHandDerivableValues) {
  // d = 4: θ = {10000^0, 10000^(-1/2)} = {1, 0.01}; pow is within an ulp of the true value.
  const Eigen::VectorXd t4 = frequencies(4, 1e4);
  ASSERT_EQ(t4.size(), 2);
  EXPECT_DOUBLE_EQ(t4[1], 0.01);
  // Computed from (M1); HF's golden inv_freq[1] = 0.86596, inv_freq[63] = 1.1548e-4,
  // tests/utils/test_modeling_rope_utils.py): d = 128, base 1e4.
  const Eigen::VectorXd t = frequencies(128, 1e4);
  ASSERT_EQ(t.size(), 64);
  EXPECT_DOUBLE_EQ(t[1], 0.8659643233600653);
  EXPECT_DOUBLE_EQ(t[2], 0.7498942093324559);  // 10000^(-1/32): the seeds' "≈ 0.95" is wrong
  EXPECT_DOUBLE_EQ(t[63], 1.1547819846894582e-4);
  // The last pair is base^(−(d−2)/d), not 1/base.
  for (double base : {1e4, 5e5}) EXPECT_DOUBLE_EQ(frequencies(64, base)[31], std::pow(base, -62.0 / 64.0));
}

TEST(Frequencies, DimensionTwoIsThePlainRotationFrequency) { EXPECT_EQ(frequencies(2, 1e4), Eigen::VectorXd::Ones(1)); }

TEST(Frequencies, DecreaseStrictlyWithPairIndex) {
  const Eigen::VectorXd t = frequencies(128, 5e5);
  for (int i = 1; i < t.size(); ++i) EXPECT_LT(t[i], t[i - 1]) << i;
}

// tests/reference/frequencies.py computes base ** (-2.0*i/d) in NumPy float64; both sides are one
// pow call, so they agree to a few ulp (4e-16 relative allowed: 2 ulp). One case per reference file.
struct FrequenciesReferenceCase {
  const char* name;
  const char* file;
  int d;
  double base;
};

class FrequenciesNumpyReference : public ::testing::TestWithParam<FrequenciesReferenceCase> {};

TEST_P(FrequenciesNumpyReference, MatchesEveryPair) {
  const auto& [name, file, d, base] = GetParam();
  const auto ref = test::read_reference(file);
  ASSERT_EQ(ref.header, (std::vector<std::string>{"pair", "exponent", "theta", "wavelength"}));
  const Eigen::VectorXd theta = frequencies(d, base);
  ASSERT_EQ(theta.size(), static_cast<Eigen::Index>(ref.rows.size()));
  for (int i = 0; i < d / 2; ++i) EXPECT_EQ(frequency_exponent(d, i), ref.column(1)[i]) << file << " pair " << i;
  const Eigen::VectorXd theta_ref = ref.column(2);
  const Eigen::VectorXd lambda_ref = ref.column(3);
  const Eigen::VectorXd lambda = wavelengths(theta);
  for (int i = 0; i < d / 2; ++i) {
    EXPECT_NEAR(theta[i], theta_ref[i], 4.5e-16 * theta_ref[i]) << file << " pair " << i;
    EXPECT_NEAR(lambda[i], lambda_ref[i], 4.5e-16 * lambda_ref[i]) << file << " pair " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Files, FrequenciesNumpyReference,
    ::testing::Values(FrequenciesReferenceCase{"d128_base1e4", "frequencies_d128_base10000.csv", 128, 1e4},
                      FrequenciesReferenceCase{"d128_base5e5", "frequencies_d128_base500000.csv", 128, 5e5},
                      FrequenciesReferenceCase{"d8_base1e4", "frequencies_d8_base10000.csv", 8, 1e4}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(Frequencies, WavelengthsMatchKnownValues) {
  // Computed from (M2): λ_0 = 2π, λ_1 = 7.2557, λ_63 = 54410.14 (d=128, base 1e4).
  const Eigen::VectorXd lambda = wavelengths(frequencies(128, 1e4));
  EXPECT_DOUBLE_EQ(lambda[0], 2 * M_PI);
  EXPECT_NEAR(lambda[1], 7.2557, 5e-5);
  EXPECT_NEAR(lambda[63], 54410.14, 5e-3);
  EXPECT_NEAR(wavelengths(frequencies(128, 5e5))[63], 2559195.5, 0.05);
}

TEST(Frequencies, FirstPairBeyondContextGivesTheCriticalDimension) {
  // Liu et al. 2023 (arXiv:2310.05209), OpenLMLab/scaling-rope README: d_extra = 2⌈(d/2)·log_base(T/2π)⌉,
  // LLaMA2 d = 128, base 1e4: T = 4096 → 92 (the README's example); 2048 → 82, 8192 → 100,
  // 16384 → 110, 32768 → 120. The first pair with λ_i > T is d_extra / 2.
  const Eigen::VectorXd lambda = wavelengths(frequencies(128, 1e4));
  const std::pair<double, Eigen::Index> table[] = {{2048, 41}, {4096, 46}, {8192, 50}, {16384, 55}, {32768, 60}};
  for (const auto& [T, pair] : table) EXPECT_EQ(first_pair_beyond(lambda, T), pair) << T;
  EXPECT_EQ(first_pair_beyond(lambda, 1e9), 64);  // every pair turns within a billion positions
  EXPECT_EQ(first_pair_beyond(lambda, 1), 0);
}

TEST(Frequencies, ExponentOfPairZeroIsPositiveZero) {
  EXPECT_FALSE(std::signbit(frequency_exponent(128, 0)));
  EXPECT_EQ(frequency_exponent(128, 1), -1.0 / 64.0);
}

TEST(Frequencies, RejectBadDimension) {
  EXPECT_THAT([] { frequencies(7, 1e4); },
              ThrowsMessage<InvalidArgument>(HasSubstr("must be even and between 2 and 65536 (got 7)")));
  EXPECT_THAT([] { frequencies(0, 1e4); }, ThrowsMessage<InvalidArgument>(HasSubstr("(got 0)")));
  EXPECT_THAT([] { frequencies(-4, 1e4); }, ThrowsMessage<InvalidArgument>(HasSubstr("(got -4)")));
  EXPECT_THAT([] { frequencies(kMaxDim + 2, 1e4); }, ThrowsMessage<InvalidArgument>(HasSubstr("65538")));
}

TEST(Frequencies, RejectBadBase) {
  for (double base : {1.0, 0.5, 0.0, -10.0, std::nan(""), HUGE_VAL}) {
    EXPECT_THAT([base] { frequencies(8, base); },
                ThrowsMessage<InvalidArgument>(HasSubstr("base must be a finite number > 1")))
        << base;
  }
}

}  // namespace
}  // namespace rope
