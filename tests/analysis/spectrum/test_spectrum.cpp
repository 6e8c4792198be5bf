// The numbers of rope spectrum (analysis/spectrum/spectrum.hpp) on the library: the power spectrum against the DFT's
// definition summed directly, the frequency entropy of series whose spectrum is known, the flat rule (F4), the bands
// (F5) and the tallies of a small dump read through a fetch, heads and batch rows apart. The whole command against
// NumPy: tests/cli/check_spectrum.py (reference.spectrum).
#include <gtest/gtest.h>
#include <cmath>
#include <complex>
#include <memory>

#include "rope/analysis/spectrum/spectrum.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"

namespace rope {
namespace {

/// |Σ_t x(t) e^{−2πi f t/N}|², summed directly in long double.
std::vector<double> direct_power(const std::vector<double>& x) {
  const auto n = static_cast<long>(x.size());
  std::vector<double> p(x.size());
  for (long f = 0; f < n; ++f) {
    long double re = 0, im = 0;
    for (long t = 0; t < n; ++t) {
      const long double a = -2.0L * pi_v<long double> * static_cast<long double>((f * t) % n) / n;
      re += x[static_cast<std::size_t>(t)] * std::cos(a);
      im += x[static_cast<std::size_t>(t)] * std::sin(a);
    }
    p[static_cast<std::size_t>(f)] = static_cast<double>(re * re + im * im);
  }
  return p;
}

class SpectrumPower : public ::testing::TestWithParam<long> {};

// Lengths with small factors (kissfft's radices) and primes above 64 (Bluestein's chirp).
TEST_P(SpectrumPower, EqualsTheDirectSum) {
  const long n = GetParam();
  std::vector<double> x(static_cast<std::size_t>(n));
  for (long t = 0; t < n; ++t) x[static_cast<std::size_t>(t)] = std::sin(0.37 * t * t + 1.0) + 0.25 * std::cos(3.1 * t);
  const std::vector<double> got = power_spectrum(x), want = direct_power(x);
  double largest = 0;
  for (const double w : want) largest = std::max(largest, w);
  for (long f = 0; f < n; ++f) {
    // The FFT's rounding: a few ε·log2(N) of the largest bin (1e-12 of the largest bin covers N = 1031 by a margin).
    EXPECT_NEAR(got[static_cast<std::size_t>(f)], want[static_cast<std::size_t>(f)], 1e-12 * largest) << "f = " << f;
  }
}

INSTANTIATE_TEST_SUITE_P(Lengths, SpectrumPower, ::testing::Values(1L, 2L, 8L, 12L, 67L, 509L, 512L, 1031L));

// One workspace reused by series of several lengths (a thread's plans, chirp and buffers, issue 77 item 5) gives each
// length's spectrum as a fresh one does.
TEST(SpectrumPower, AReusedWorkspaceGivesEachLengthsSpectrum) {
  const std::shared_ptr<SpectrumWorkspace> ws = make_spectrum_workspace();
  for (const long n : {1031L, 509L, 1031L, 512L, 67L}) {
    std::vector<double> x(static_cast<std::size_t>(n));
    for (long t = 0; t < n; ++t) x[static_cast<std::size_t>(t)] = std::cos(0.11 * t * t) - 0.5 * std::sin(1.7 * t);
    EXPECT_EQ(power_spectrum(x, ws.get()), power_spectrum(x)) << "N = " << n;
  }
}

// The threads of the spectra are bounded by their memory (issue 77 item 5: a prime length T = 4 194 301 held ~0.9 GiB
// of Bluestein's buffers per thread, ~15 GB on 16 cores): one such series at a time within the 1 GiB budget.
TEST(SpectrumThreads, APrimeLengthRunsOnFewerThreads) {
  EXPECT_GT(spectrum_series_bytes(4194301), 800L << 20);
  EXPECT_LE(spectrum_series_bytes(4194301), kSpectrumWorkBudget);
  EXPECT_EQ(spectrum_threads(4194301, 16), 1);
  EXPECT_EQ(spectrum_threads(1048573, 16), 4);  // a prime near 2^20: M = 2^21
  EXPECT_EQ(spectrum_threads(4194304, 16), 3);  // a power of two: no Bluestein, 288 MiB a thread
  EXPECT_EQ(spectrum_threads(8192, 16), 16);
  EXPECT_EQ(spectrum_threads(8192, 0), 1);
}

TEST(SpectrumEntropy, OneFrequencyHasEntropyZero) {
  // s(t) = 2 + cos(2πt/8), T = 64: all of the power in bin f = 8, FE = 0; not flat.
  std::vector<double> s(64);
  for (std::size_t t = 0; t < s.size(); ++t) s[t] = 2 + std::cos(2 * kPi * static_cast<double>(t) / 8);
  const SeriesEntropy e = frequency_entropy(s, DType::F64);
  EXPECT_FALSE(e.flat);
  EXPECT_NEAR(e.entropy, 0.0, 1e-12);
}

TEST(SpectrumEntropy, TwoEqualFrequenciesHaveEntropyLnTwo) {
  std::vector<double> s(64);
  for (std::size_t t = 0; t < s.size(); ++t) {
    const double x = static_cast<double>(t);
    s[t] = 3 + std::cos(2 * kPi * x / 8) + std::sin(2 * kPi * x * 5 / 64);
  }
  EXPECT_NEAR(frequency_entropy(s, DType::F64).entropy, std::log(2.0), 1e-12);
}

TEST(SpectrumEntropy, ImpulseSpreadsEvenlyOverEveryBin) {
  // One spike: |DFT|² of s − mean is the same at every f ≠ 0, so p = 1/⌊T/2⌋ and FE = ln⌊T/2⌋ (T = 32: ln 16).
  std::vector<double> s(32, 1.0);
  s[5] = 2.0;
  EXPECT_NEAR(frequency_entropy(s, DType::F64).entropy, std::log(16.0), 1e-12);
}

TEST(SpectrumEntropy, FlatRuleUsesTheDumpsEpsilon) {
  // A wobble of 1e-9 relative is flat in float32 (8·2^-23 ≈ 9.5e-7) but not in float64 (8·2^-52).
  std::vector<double> s(16, 1.0);
  for (std::size_t t = 0; t < s.size(); t += 2) s[t] += 1e-9;
  EXPECT_TRUE(frequency_entropy(s, DType::F32).flat);
  EXPECT_FALSE(frequency_entropy(s, DType::F64).flat);
  EXPECT_TRUE(frequency_entropy(std::vector<double>(16, 0.0), DType::F64).flat);  // all zeros
  EXPECT_TRUE(frequency_entropy(std::vector<double>{1.0}, DType::F64).flat);      // no frequency
  EXPECT_DOUBLE_EQ(flat_threshold(2.0, DType::F64), 8 * 2.0 * std::numeric_limits<double>::epsilon());
}

struct BandCase {
  const char* name;
  std::vector<double> shares;
  std::vector<bool> flat;
  int first, last, lowest, highest;
};

class SpectrumBandsTable : public ::testing::TestWithParam<BandCase> {};

TEST_P(SpectrumBandsTable, FewestConsecutivePairs) {
  const BandCase& c = GetParam();
  std::vector<PairSpectrum> pairs;
  for (std::size_t j = 0; j < c.shares.size(); ++j) {
    PairSpectrum p;
    p.pair = static_cast<int>(j);
    p.energy_share = c.shares[j];
    p.frequency_entropy = static_cast<double>((j * 7) % 5);  // 0, 2, 4, 1, 3, 0, …
    p.series = 1;
    p.flat_series = c.flat.empty() ? 0 : c.flat[j];
    pairs.push_back(p);
  }
  const SpectrumBands b = spectrum_bands(pairs);
  EXPECT_EQ(b.energy_first, c.first);
  EXPECT_EQ(b.energy_last, c.last);
  EXPECT_EQ(b.lowest_entropy.value_or(-1), c.lowest);
  EXPECT_EQ(b.highest_entropy.value_or(-1), c.highest);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, SpectrumBandsTable,
    ::testing::Values(BandCase{"one_pair", {0.05, 0.92, 0.03}, {}, 1, 1, 0, 2},
                      BandCase{"tail", {0.02, 0.03, 0.05, 0.45, 0.45}, {}, 3, 4, 0, 2},
                      // two windows of two pairs reach 90 %: the one holding more
                      BandCase{"tie_by_share", {0.45, 0.46, 0.04, 0.05}, {}, 0, 1, 0, 2},
                      BandCase{"flat_left_out", {0.25, 0.25, 0.25, 0.25}, {true, false, true, false}, 0, 3, 3, 1},
                      BandCase{"no_energy", {0, 0}, {true, true}, 0, -1, -1, -1}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(SpectrumTallies, HeadsAndBatchRowsApart) {
  // [batch 2, seq 16, heads 2, d 4] half layout: pair 0 = channels (0, 2), pair 1 = (1, 3). Head 0 holds pair 0
  // only, head 1 pair 1 only, with 4× the amplitude in batch row 1: the pooled shares are the energies' sums.
  const long batch = 2, seq = 16, heads = 2, d = 4;
  std::vector<double> x(static_cast<std::size_t>(batch * seq * heads * d), 0.0);
  for (long b = 0; b < batch; ++b) {
    for (long s = 0; s < seq; ++s) {
      const double amp = b == 0 ? 1.0 : 4.0, r = amp * (1 + 0.5 * std::cos(2 * kPi * s / 4));
      x[static_cast<std::size_t>(((b * seq + s) * heads + 0) * d + 0)] = r;      // head 0, pair 0
      x[static_cast<std::size_t>(((b * seq + s) * heads + 1) * d + 3)] = 2 * r;  // head 1, pair 1
    }
  }
  const SpectrumFetch fetch = [&](long s0, long s1, long g0, long g1, std::vector<double>& out) {
    out.clear();
    for (long s = s0; s < s1; ++s) {
      for (long g = g0; g < g1; ++g) {
        const long b = g / heads, h = g % heads;
        for (long c = 0; c < d; ++c) out.push_back(x[static_cast<std::size_t>(((b * seq + s) * heads + h) * d + c)]);
      }
    }
  };
  const SpectrumShape shape{seq, batch, heads, static_cast<int>(d), DType::F64, 5};
  const Eigen::VectorXd theta = Eigen::Vector2d(1.0, 0.01);
  const SpectrumTallies t = spectrum_tallies(shape, {{0, 2}, {1, 3}}, theta, fetch);
  ASSERT_EQ(t.pooled.size(), 2u);
  ASSERT_EQ(t.heads.size(), 2u);
  EXPECT_NEAR(t.pooled[0].energy_share, 0.2, 1e-15);  // 1 + 16 against 4·(1 + 16)
  EXPECT_NEAR(t.pooled[1].energy_share, 0.8, 1e-15);
  EXPECT_NEAR(t.pooled[0].wavelength, kTwoPi, 1e-15);
  EXPECT_NEAR(t.pooled[1].wavelength, 100 * kTwoPi, 1e-12);
  EXPECT_DOUBLE_EQ(t.heads[0][0].energy_share, 1.0);
  EXPECT_DOUBLE_EQ(t.heads[1][1].energy_share, 1.0);
  // Period 4 in 16 indices: one bin, FE 0; the empty pair of each head is flat in both batch rows.
  EXPECT_NEAR(t.heads[0][0].frequency_entropy, 0.0, 1e-12);
  EXPECT_EQ(t.heads[0][1].flat_series, 2);
  EXPECT_TRUE(t.heads[0][1].flat());
  EXPECT_EQ(t.pooled[0].series, 4);
  EXPECT_EQ(t.pooled[0].flat_series, 2);
  EXPECT_FALSE(t.pooled[0].flat());
}

TEST(SpectrumTallies, RefusesMoreNormsThanTheLimit) {
  const SpectrumShape shape{kMaxSpectrumNorms, 1, 1, 4, DType::F64, 1};
  const SpectrumFetch never = [](long, long, long, long, std::vector<double>&) { FAIL() << "read before the limit"; };
  EXPECT_THROW(spectrum_tallies(shape, {{0, 2}, {1, 3}}, Eigen::Vector2d(1, 0.1), never), InvalidArgument);
}

}  // namespace
}  // namespace rope
