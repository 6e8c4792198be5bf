#include "rope/analysis/calculators/bound.hpp"
#include "rope/analysis/calculators/bound_sweep.hpp"

#include <cmath>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <limits>

#include "support/reference_data.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "support/shared.hpp"

namespace rope {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

using test::kEps;

/// How far the block form (C3) may be from the direct form (C1) at m: the direct form rounds m·θ_i
/// (error ≤ ε/2·m·θ_i rad per term, and cos moves at most as much), the block form rounds m0·θ_i and
/// k·θ_i likewise, and each sums d terms of size ≤ 1: 2ε·(m·Σθ_i + d) covers both with room.
double tolerance(const Eigen::VectorXd& theta, long m) {
  return 2 * kEps * (static_cast<double>(m) * theta.sum() + 2.0 * static_cast<double>(theta.size()));
}

TEST(Bound, StableVectorsOfKnownValues) {
  // Criterion of Men et al. 2024 (arXiv:2405.14591), computed by exhaustive scans, d = 128: min_{0≤m≤L} B(m), its
  // argmin and the verdict, printed to 5 decimals.
  struct Row {
    double base;
    long L;
    double min;
    long at;
  };
  const Row rows[] = {{4200, 1024, -1.85745, 1008}, {4300, 1024, 0.24898, 1009}, {4350, 1024, -0.16569, 951},
                      {6030, 1024, 0.25326, 903},   {10000, 1024, 4.27780, 963}, {10000, 4096, -8.36293, 4060}};
  for (const Row& r : rows) {
    const Eigen::VectorXd theta = frequencies(128, r.base);
    const BoundMinimum fast = bound_minimum(theta, r.L);
    const BoundMinimum direct = bound_minimum_direct(theta, r.L);
    EXPECT_NEAR(fast.value, r.min, 1e-5) << r.base << " " << r.L;  // 5 decimals quoted
    EXPECT_EQ(fast.at, r.at) << r.base << " " << r.L;
    EXPECT_NEAR(direct.value, r.min, 1e-5) << r.base << " " << r.L;
    EXPECT_EQ(direct.at, r.at) << r.base << " " << r.L;
    EXPECT_EQ(fast.passes(), r.min >= 0) << r.base << " " << r.L;
  }
}

TEST(Bound, PassSetIsNotMonotone) {
  // Exhaustive scans: L = 1024 passes at base 4300 and fails at the larger base 4350.
  EXPECT_TRUE(bound_minimum(frequencies(128, 4300), 1024).passes());
  EXPECT_FALSE(bound_minimum(frequencies(128, 4350), 1024).passes());
}

TEST(Bound, DirectSumByHand) {
  // B(0) = d/2; one pair: B(m) = cos m; d = 4, base 100: θ = (1, 0.1).
  EXPECT_EQ(bound_sum_direct(frequencies(128, 1e4), 0), 64.0);
  EXPECT_EQ(bound_sum_direct(frequencies(2, 1e4), 3), std::cos(3.0));
  EXPECT_DOUBLE_EQ(bound_sum_direct(frequencies(4, 100), 5), std::cos(5.0) + std::cos(0.5));
}

TEST(Bound, BlockSumsEqualDirectSumsAtEveryM) {
  // Every m up to 100 000 (3 125 blocks), four bases across the range the criterion needs.
  for (const double base : {500.0, 1e4, 6.46e7, 1e9}) {
    const Eigen::VectorXd theta = frequencies(128, base);
    const long L = 100'000;
    const Eigen::VectorXd fast = bound_sums(theta, L);
    ASSERT_EQ(fast.size(), L + 1);
    double worst = 0;
    for (long m = 0; m <= L; ++m) {
      const double diff = std::abs(fast[m] - bound_sum_direct(theta, m));
      worst = std::max(worst, diff / tolerance(theta, m));
      ASSERT_LE(diff, tolerance(theta, m)) << "base " << base << " m " << m;
    }
    EXPECT_EQ(fast[0], 64.0);  // cos 0 = 1 exactly, sin 0 = 0
  }
}

TEST(Bound, BlockSumsOtherDimensionsAndShortContexts) {
  // L below, at and just above a block boundary; d = 2 (one pair) and d = 6.
  for (const int d : {2, 6, 128}) {
    for (const long L : {0L, 1L, 30L, 31L, 32L, 33L, 95L, 1000L}) {
      const Eigen::VectorXd theta = frequencies(d, 777.0);
      const Eigen::VectorXd fast = bound_sums(theta, L);
      ASSERT_EQ(fast.size(), L + 1);
      for (long m = 0; m <= L; ++m)
        EXPECT_NEAR(fast[m], bound_sum_direct(theta, m), tolerance(theta, m)) << d << " " << m;
    }
  }
}

TEST(Bound, PrunedMinimumEqualsMinimumOfEveryValue) {
  // The lower bound (C4) may skip blocks but never the one holding the minimum: the pruned minimum
  // is bit-for-bit the minimum of bound_sums (same block arithmetic), with the same first argmin.
  for (const int d : {2, 8, 64, 128}) {
    for (const double base : {3.0, 100.0, 4300.0, 4350.0, 1e4, 2.5e5, 1e8}) {
      for (const long L : {0L, 5L, 31L, 32L, 1024L, 4095L, 20000L}) {
        const Eigen::VectorXd theta = frequencies(d, base);
        const Eigen::VectorXd all = bound_sums(theta, L);
        Eigen::Index at = 0;
        const double value = all.minCoeff(&at);
        const BoundMinimum pruned = bound_minimum(theta, L);
        EXPECT_EQ(pruned.value, value) << d << " " << base << " " << L;
        EXPECT_EQ(pruned.at, at) << d << " " << base << " " << L;
      }
    }
  }
}

TEST(Bound, MinimumMatchesDirectReference) {
  // Against the one-cos-per-term reference: values within the tolerance at the argmin; the argmins
  // agree unless two values are within rounding of each other (then the other one is as small).
  for (const double base : {1e3, 4.3e3, 1.16e4, 8.41e4, 3e5}) {
    for (const long L : {1000L, 8192L, 30000L}) {
      const Eigen::VectorXd theta = frequencies(128, base);
      const BoundMinimum fast = bound_minimum(theta, L);
      const BoundMinimum direct = bound_minimum_direct(theta, L);
      EXPECT_NEAR(fast.value, direct.value, tolerance(theta, L)) << base << " " << L;
      if (fast.at != direct.at) {
        EXPECT_NEAR(bound_sum_direct(theta, fast.at), direct.value, 2 * tolerance(theta, L)) << base << " " << L;
      }
    }
  }
}

TEST(Bound, MatchesNumpyMinima) {
  // tests/reference/bound.py, one np.cos per term: min B to the tolerance of the block form at L (the
  // reference rounds m·θ_i as bound_sum_direct does), argmin exactly unless the two smallest values
  // are within rounding of each other.
  const auto ref = test::read_reference("bound_minima.csv");
  ASSERT_EQ(ref.rows.size(), 96u);
  for (const auto& row : ref.rows) {
    const int d = std::stoi(row[0]);
    const double base = std::stod(row[1]);
    const long L = std::stol(row[2]);
    const Eigen::VectorXd theta = frequencies(d, base);
    const BoundMinimum got = bound_minimum(theta, L);
    EXPECT_NEAR(got.value, std::stod(row[3]), tolerance(theta, L)) << d << " " << base << " " << L;
    if (got.at != std::stol(row[4])) {
      EXPECT_NEAR(bound_sum_direct(theta, got.at), std::stod(row[3]), 2 * tolerance(theta, L))
          << d << " " << base << " " << L;
    }
  }
}

TEST(Bound, BaseGridIsPowersOfTenToTheKOverP) {
  const std::vector<double> g = base_grid(10, 100, 4);
  ASSERT_EQ(g.size(), 5u);  // k = 4 … 8: both ends included
  EXPECT_EQ(g.front(), 10.0);
  EXPECT_EQ(g.back(), 100.0);
  EXPECT_DOUBLE_EQ(g[1], std::pow(10.0, 1.25));
  EXPECT_EQ(base_grid(4000, 5000, 400).size(), 39u);  // k = 1441 (4004.05) … 1479 (4983.1)
  EXPECT_EQ(base_grid(4000, 5000, 400).front(), std::pow(10.0, 1441 / 400.0));
}

TEST(Bound, BaseGridRejectsBadInput) {
  EXPECT_THAT([] { base_grid(1, 10, 10); }, ThrowsMessage<InvalidArgument>(HasSubstr("1 < LO < HI")));
  EXPECT_THAT([] { base_grid(10, 10, 10); }, ThrowsMessage<InvalidArgument>(HasSubstr("1 < LO < HI")));
  EXPECT_THAT([] { base_grid(10, INFINITY, 10); }, ThrowsMessage<InvalidArgument>(HasSubstr("finite")));
  EXPECT_THAT([] { base_grid(10, 100, 0); }, ThrowsMessage<InvalidArgument>(HasSubstr("between 1 and 10000")));
  EXPECT_THAT([] { base_grid(101, 105, 10); }, ThrowsMessage<InvalidArgument>(HasSubstr("holds no grid point")));
  EXPECT_THAT([] { base_grid(2, 1e300, 100); }, ThrowsMessage<InvalidArgument>(HasSubstr("more than 20000")));
}

TEST(Bound, RejectsBadContext) {
  const Eigen::VectorXd theta = frequencies(8, 1e4);
  EXPECT_THAT([&] { bound_minimum(theta, -1); }, ThrowsMessage<InvalidArgument>(HasSubstr("between 0 and 10000000")));
  EXPECT_THAT([&] { bound_sums(theta, kMaxBoundContext + 1); },
              ThrowsMessage<InvalidArgument>(HasSubstr("between 0 and 10000000")));
  EXPECT_THAT([] { scan_bound(7, 100, 10, 100, 10); }, ThrowsMessage<InvalidArgument>(HasSubstr("even")));
}

/// |log10(found) − log10(quoted)| within one grid step plus half a unit in the quoted value's third
/// significant digit (≤ 0.5 % of a mantissa ≥ 1: 0.0022 decades).
void expect_within_grid_step(double found, double quoted, int per_decade, const char* what) {
  EXPECT_LE(std::abs(std::log10(found) - std::log10(quoted)), 1.0 / per_decade + 0.0022)
      << what << ": found " << found << ", expected " << quoted;
}

TEST(Bound, ReproducesComputedMinimalBases) {
  // Exhaustive scans (400 bases per decade), "smallest passing base on a log grid" and "always passes above", d = 128,
  // with the default grid (400 per decade below L = 65536, 100 from there) and default range.
  struct Row {
    long L;
    double smallest;
    double always;
  };
  // The 512k row (6.46e7, 2.75e8) is docs/calculators.md's example `rope bound --context 524288`, which
  // docs.examples runs in Release: its scan costs about 100 s under the sanitizers, 0.4 s in Release.
  for (const Row& r : {Row{1024, 4.32e3, 6.03e3}, Row{8192, 8.41e4, 3.96e5}}) {
    const auto [lo, hi] = default_base_range(r.L);
    const BoundScan scan = scan_bound(128, r.L, lo, hi, default_per_decade(r.L));
    ASSERT_TRUE(scan.smallest_passing && scan.always_passes_from) << r.L;
    expect_within_grid_step(*scan.smallest_passing, r.smallest, scan.per_decade, "smallest passing");
    expect_within_grid_step(*scan.always_passes_from, r.always, scan.per_decade, "always passes from");
    // The scan's verdicts are the minima themselves.
    for (std::size_t b = 0; b < scan.bases.size(); ++b) {
      if (scan.bases[b] < *scan.smallest_passing) {
        EXPECT_FALSE(scan.minimum[b].passes()) << scan.bases[b];
      }
      if (scan.bases[b] >= *scan.always_passes_from) {
        EXPECT_TRUE(scan.minimum[b].passes()) << scan.bases[b];
      }
    }
  }
}

TEST(Bound, PassIntervalsOf2048) {
  // Exhaustive scans: L = 2048 has 8 separate pass intervals between 1.16e4 and 2.28e4, and every
  // base passes from 2.28e4 on: 8 + 1 intervals up to 1e5.
  const BoundScan scan = scan_bound(128, 2048, 5e3, 1e5, 400);
  ASSERT_EQ(scan.pass_intervals.size(), 9u);
  for (std::size_t i = 0; i + 1 < scan.pass_intervals.size(); ++i) {
    EXPECT_GE(scan.pass_intervals[i].first, 1.16e4 * 0.995);
    EXPECT_LT(scan.pass_intervals[i].second, 2.28e4);
  }
  expect_within_grid_step(scan.pass_intervals.front().first, 1.16e4, 400, "first pass");
  expect_within_grid_step(scan.pass_intervals.back().first, 2.28e4, 400, "always passes from");
  EXPECT_EQ(scan.pass_intervals.back().second, scan.bases.back());
  // Each interval is a maximal run of passing grid bases.
  std::size_t passing = 0;
  for (const auto& m : scan.minimum) passing += m.passes() ? 1 : 0;
  std::size_t in_intervals = 0;
  for (std::size_t b = 0; b < scan.bases.size(); ++b) {
    for (const auto& [first, last] : scan.pass_intervals) {
      if (scan.bases[b] >= first && scan.bases[b] <= last) {
        EXPECT_TRUE(scan.minimum[b].passes()) << scan.bases[b];
        ++in_intervals;
      }
    }
  }
  EXPECT_EQ(in_intervals, passing);
}

TEST(Bound, ScanWithoutPassOrWithFailingTop) {
  // d = 2: B(m) = cos m < 0 at m = 2, whatever the base: nothing passes.
  const BoundScan none = scan_bound(2, 100, 10, 1000, 10);
  EXPECT_TRUE(none.pass_intervals.empty());
  EXPECT_FALSE(none.smallest_passing);
  EXPECT_FALSE(none.always_passes_from);
  // L = 1024 between 4300 and 4350 (exhaustive scans): passes at 4300, fails at the top.
  const BoundScan top = scan_bound(128, 1024, 4300, 4350, 4000);
  ASSERT_TRUE(top.smallest_passing);
  EXPECT_FALSE(top.minimum.back().passes());
  EXPECT_FALSE(top.always_passes_from);
}

}  // namespace
}  // namespace rope
