#include "rope/analysis/calculators/decay.hpp"
#include "rope/analysis/calculators/decay_sweep.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <limits>
#include <omp.h>
#include <vector>

#include "support/reference_data.hpp"
#include "rope/core/error.hpp"
#include "rope/core/apply.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/core/random.hpp"

namespace rope {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

TEST(Decay, AtDistanceZeroIsHalfOfPairsPlusOne) {
  // f(0) = (1/(d/2)) Σ_{j} (j + 1) = (d/2 + 1)/2, exactly ((M11), RoFormer §3.4.3): every term is an
  // integer, so the sum is exact.
  EXPECT_EQ(decay_bound(frequencies(64, 1e4), 0.0), 16.5);
  EXPECT_EQ(decay_bound(frequencies(128, 1e4), 0.0), 32.5);
  EXPECT_EQ(decay_bound(frequencies(256, 5e5), 0.0), 64.5);
}

TEST(Decay, MatchesPublishedTable) {
  // Computed by hand from (M11) (RoFormer §3.4.3), d = 128, base 1e4, quoted to 3 decimals (hence 5e-4).
  const Eigen::VectorXd theta = frequencies(128, 1e4);
  const std::pair<double, double> table[] = {{1, 31.538},  {2, 28.956},  {5, 20.845},   {10, 17.954},
                                             {20, 15.242}, {50, 12.629}, {100, 10.227}, {150, 7.588},
                                             {200, 7.245}, {250, 6.548}, {256, 6.543}};
  for (const auto& [m, f] : table) EXPECT_NEAR(decay_bound(theta, m), f, 5e-4) << "m=" << m;
}

TEST(Decay, LinspaceReproducesNumpyBitForBit) {
  // np.arange(0, 257) (rope decay's default, every integer distance) and np.linspace(0, 4096, 200), as
  // written by tests/reference/decay.py.
  const auto ref = test::read_reference("decay_d128_base10000.csv");
  EXPECT_EQ(linspace(256, 257), ref.column(0));
  const auto ref64 = test::read_reference("decay_d64_base500000.csv");
  EXPECT_EQ(linspace(4096, 200), ref64.column(0));
}

// tests/reference/decay.py sums the inner series directly (O(d²), NumPy complex exp); we use a running prefix
// sum (O(d)). Same terms, different association: rounding-level differences only. One case per reference file.
struct DecayReferenceCase {
  const char* name;
  const char* file;
  int d;
  std::vector<double> bases;
};

class DecayNumpyReference : public ::testing::TestWithParam<DecayReferenceCase> {};

TEST_P(DecayNumpyReference, MatchesToOneInATrillion) {
  const DecayReferenceCase& c = GetParam();
  const auto ref = test::read_reference(c.file);
  const Eigen::VectorXd distances = ref.column(0);
  for (std::size_t b = 0; b < c.bases.size(); ++b) {
    const Eigen::VectorXd expected = ref.column(b + 1);
    const Eigen::VectorXd got = decay_bound(frequencies(c.d, c.bases[b]), distances);
    for (Eigen::Index k = 0; k < got.size(); ++k) {
      EXPECT_NEAR(got[k], expected[k], 1e-12 * expected[k]) << c.file << " m=" << distances[k];
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Files, DecayNumpyReference,
                         ::testing::Values(DecayReferenceCase{"d128_base1e4", "decay_d128_base10000.csv", 128, {1e4}},
                                           DecayReferenceCase{"d64_base5e5", "decay_d64_base500000.csv", 64, {5e5}},
                                           DecayReferenceCase{
                                               "d128_bases1e4_1e6", "decay_d128_two_bases.csv", 128, {1e4, 1e6}}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(Decay, OnesScoreMatchesPublishedValues) {
  // Computed by hand from (M14): B(m) = Σ_j cos(m θ_j), d = 128, base 1e4, quoted to 4 decimals; the all-ones
  // score is 2·B(m) (M14), so the tolerance is 2 × 5e-5.
  const Eigen::VectorXd theta = frequencies(128, 1e4);
  EXPECT_EQ(ones_score(theta, 0.0), 128.0);  // exact: 64 terms cos 0 = 1
  const std::pair<double, double> table[] = {{1, 62.0937}, {10, 42.8200}, {100, 30.5435}, {1000, 10.1777}};
  for (const auto& [m, b] : table) EXPECT_NEAR(ones_score(theta, m), 2 * b, 1e-4) << "m=" << m;
}

TEST(Decay, RandomScoresEqualDirectRotationOfTheSameDraws) {
  // (M15) uses A cos + B sin per pair; here the same draws (q_a, q_b, k_a, k_b per pair, in the
  // generator's order) are rotated with apply_rotary instead. Two samples, so mean and sd are exact
  // functions of the two scores; rounding-level agreement (1e-12 on scores of size ~10).
  const int d = 16;
  const std::uint64_t seed = 77;
  const Eigen::VectorXd theta = frequencies(d, 1e4);
  Eigen::VectorXd distances(3);
  distances << 0, 3, 250;
  const RandomScores got = random_scores(theta, distances, 2, seed);
  Random rng(seed);
  Eigen::VectorXd q[2] = {Eigen::VectorXd(d), Eigen::VectorXd(d)};
  Eigen::VectorXd k[2] = {Eigen::VectorXd(d), Eigen::VectorXd(d)};
  for (int s = 0; s < 2; ++s) {
    for (int i = 0; i < d / 2; ++i) {
      q[s][2 * i] = rng.normal();
      q[s][2 * i + 1] = rng.normal();
      k[s][2 * i] = rng.normal();
      k[s][2 * i + 1] = rng.normal();
    }
  }
  for (Eigen::Index j = 0; j < distances.size(); ++j) {
    const double a = apply_rotary(q[0], theta, distances[j], Layout::Interleaved).dot(k[0]);
    const double b = apply_rotary(q[1], theta, distances[j], Layout::Interleaved).dot(k[1]);
    EXPECT_NEAR(got.mean[j], (a + b) / 2, 1e-12);
    EXPECT_NEAR(got.stddev[j], std::abs(a - b) / std::sqrt(2.0), 1e-12);  // sample sd of two values
  }
}

TEST(Decay, RandomScoresHaveMeanZeroAndVarianceD) {
  // For q, k ~ N(0, I_d) and orthogonal R, <R q, k> has mean 0 and variance d (M15). With N = 4000
  // pairs the sample mean has standard error √(d/N) = 0.179 (d = 128): 5 standard errors = 0.89.
  // The sample sd has relative standard error about 1/√(2N)·√(1 + kurtosis excess) ≈ 0.016; allow 8%.
  const Eigen::VectorXd theta = frequencies(128, 1e4);
  const Eigen::VectorXd distances = linspace(1000, 11);
  const RandomScores r = random_scores(theta, distances, 4000, 2104);
  for (Eigen::Index j = 0; j < distances.size(); ++j) {
    EXPECT_NEAR(r.mean[j], 0.0, 0.89) << "m=" << distances[j];
    EXPECT_NEAR(r.stddev[j], std::sqrt(128.0), 0.08 * std::sqrt(128.0)) << "m=" << distances[j];
  }
}

TEST(Decay, RandomScoresRejectBadSampleCounts) {
  const Eigen::VectorXd theta = frequencies(8, 1e4);
  EXPECT_THAT([&] { random_scores(theta, linspace(1, 3), 1, 1); },
              ThrowsMessage<InvalidArgument>(HasSubstr("samples must be >= 2")));
  EXPECT_THAT([&] { random_scores(frequencies(4096, 1e4), linspace(1, 1000000), 100000, 1); },
              ThrowsMessage<InvalidArgument>(HasSubstr("exceeds the limit")));
}

// decay_work's weights per term (decay.hpp) and the bound, at and just over it.
struct DecayWorkCase {
  DecayPath path;
  long points, pairs, samples;
  double work;
};
class DecayWork : public ::testing::TestWithParam<DecayWorkCase> {};
TEST_P(DecayWork, CountsUnitsOfTheRecurrence) {
  const DecayWorkCase& c = GetParam();
  EXPECT_EQ(decay_work(c.path, c.points, c.pairs, c.samples), c.work);
}
INSTANTIATE_TEST_SUITE_P(Paths, DecayWork,
                         ::testing::Values(DecayWorkCase{DecayPath::Recurrence, 1000, 64, 0, 64000.0},
                                           DecayWorkCase{DecayPath::OnesDirect, 1000, 64, 0, 256000.0},
                                           DecayWorkCase{DecayPath::BoundDirect, 1000, 64, 0, 640000.0},
                                           DecayWorkCase{DecayPath::Random, 1000, 64, 1000, 64000.0 * 510}));

TEST(Decay, WorkBeyondTheLimitIsRefusedNamingTheOptions) {
  EXPECT_NO_THROW(check_decay_work(DecayPath::Recurrence, 500'000, 10'000, 0, 1));  // exactly 5e9
  EXPECT_THAT([] { check_decay_work(DecayPath::Recurrence, 500'001, 10'000, 0, 1); },
              ThrowsMessage<InvalidArgument>(HasSubstr("over the limit of 5e+09 (kMaxDecayWork")));
  EXPECT_THAT([] { check_decay_work(DecayPath::BoundDirect, 1000, 64, 0, 20000); },
              ThrowsMessage<InvalidArgument>(HasSubstr("× 20000 curves is 1.28e+10 units")));
}

TEST(Decay, LogspaceIsGeometric) {
  Eigen::VectorXd expected(3);
  expected << 1, 10, 100;
  EXPECT_EQ(logspace(100, 3), expected);  // 10^0, 10^1, 10^2 exactly (pow of exact integers)
  const Eigen::VectorXd x = logspace(1e6, 61);
  for (Eigen::Index k = 1; k < x.size(); ++k) EXPECT_NEAR(x[k] / x[k - 1], std::pow(10.0, 0.1), 1e-13);
  EXPECT_THROW(logspace(1, 10), InvalidArgument);
  EXPECT_THROW(logspace(100, 1), InvalidArgument);
}

TEST(Decay, LinspaceEdgeCases) {
  EXPECT_EQ(linspace(5, 1), Eigen::VectorXd::Zero(1));
  EXPECT_EQ(linspace(0, 3), Eigen::VectorXd::Zero(3));
  Eigen::VectorXd expected(3);
  expected << 0, 0.5, 1;
  EXPECT_EQ(linspace(1, 3), expected);
}

TEST(Decay, LinspaceRejectsBadInput) {
  EXPECT_THAT([] { linspace(10, 0); }, ThrowsMessage<InvalidArgument>(HasSubstr("points must be >= 1 (got 0)")));
  EXPECT_THAT([] { linspace(-1, 10); },
              ThrowsMessage<InvalidArgument>(HasSubstr("must be a finite number >= 0 (got -1)")));
  EXPECT_THROW(linspace(std::nan(""), 10), InvalidArgument);
}

// decay_bound_linspace (anchors every K points, one complex product per term) against decay_bound
// (std::cos/std::sin per term) on the same grid. Both round the angles m·θ_i (to ulp(m)/2 for
// θ_0 = 1), so they differ by about ε·m per term: measured, the largest relative difference is
// 1.6e-13 for m <= 4096 and 7.6e-11 near m = 10^6 (bench job 1), where the angles themselves carry
// ~1e-10 of rounding in either computation; hence 1e-12 up to 4096 and 5e-10 there.
struct DecayGridCase {
  const char* name;
  int d;
  double base, stop;
  long points;
  double rtol;
};

class DecayLinspaceRecurrence : public ::testing::TestWithParam<DecayGridCase> {};

TEST_P(DecayLinspaceRecurrence, MatchesDirectCosSinPerTerm) {
  const DecayGridCase& c = GetParam();
  const Eigen::VectorXd theta = frequencies(c.d, c.base);
  const Eigen::VectorXd fast = decay_bound_linspace(theta, c.stop, c.points);
  const Eigen::VectorXd direct = decay_bound(theta, linspace(c.stop, c.points));
  ASSERT_EQ(fast.size(), c.points);
  double worst = 0;
  for (Eigen::Index k = 0; k < fast.size(); ++k) worst = std::max(worst, std::abs(fast[k] - direct[k]) / direct[k]);
  EXPECT_LE(worst, c.rtol) << "d=" << c.d << " stop=" << c.stop << " points=" << c.points;
  EXPECT_EQ(fast[0], direct[0]);                        // f(0) exactly (d/2 + 1)/2
  EXPECT_EQ(fast[c.points - 1], direct[c.points - 1]);  // the last point is computed directly at `stop`
}

INSTANTIATE_TEST_SUITE_P(Grids, DecayLinspaceRecurrence,
                         ::testing::Values(DecayGridCase{"d128_base1e4_to256_1000points", 128, 1e4, 256, 1000, 1e-12},
                                           DecayGridCase{"d64_base5e5_to4096_200points", 64, 5e5, 4096, 200, 1e-12},
                                           DecayGridCase{"d128_base1e6_to1000_101points", 128, 1e6, 1000, 101, 1e-12},
                                           DecayGridCase{"d2_base1e4_to100_10points", 2, 1e4, 100, 10, 1e-12},
                                           DecayGridCase{"d4096_base1e4_to256_300points", 4096, 1e4, 256, 300, 1e-12},
                                           DecayGridCase{"d128_base5e5_to1e6_100000points", 128, 5e5, 1e6, 100000,
                                                         5e-10}),
                         [](const auto& info) { return std::string(info.param.name); });

// ones_score_linspace (anchors, one complex product per term) against ones_score (std::cos per term)
// on the same grid. Each term differs by the rounding of its angles (ulp(m·θ_i)/2 <= ε·m·θ_0 in
// either computation) and a few ulp of the products: |Δ| <= 2·Σ_i ε·(m·θ_0 + 8) = d·ε·(m + 8) with
// θ_0 = 1; the test allows 4·(d/2)·ε·(m + 8). The score itself crosses zero, so the bound is absolute.
struct DecayOnesGridCase {
  const char* name;
  int d;
  double base, stop;
  long points;
};

class DecayOnesScoreRecurrence : public ::testing::TestWithParam<DecayOnesGridCase> {};

TEST_P(DecayOnesScoreRecurrence, MatchesDirectCosPerTerm) {
  const DecayOnesGridCase& c = GetParam();
  const double eps = std::numeric_limits<double>::epsilon();
  const Eigen::VectorXd theta = frequencies(c.d, c.base);
  const Eigen::VectorXd x = linspace(c.stop, c.points);
  const Eigen::VectorXd fast = ones_score_linspace(theta, c.stop, c.points);
  const Eigen::VectorXd direct = ones_score(theta, x);
  ASSERT_EQ(fast.size(), c.points);
  for (Eigen::Index k = 0; k < fast.size(); ++k) {
    ASSERT_NEAR(fast[k], direct[k], 4 * (c.d / 2) * eps * (x[k] + 8)) << "d=" << c.d << " m=" << x[k];
  }
  EXPECT_EQ(fast[0], c.d);                              // m = 0: every cos is 1, exactly
  EXPECT_EQ(fast[c.points - 1], direct[c.points - 1]);  // the last point is computed directly at `stop`
}

INSTANTIATE_TEST_SUITE_P(Grids, DecayOnesScoreRecurrence,
                         ::testing::Values(DecayOnesGridCase{"d128_base1e4_to1000_1000points", 128, 1e4, 1000, 1000},
                                           DecayOnesGridCase{"d64_base5e5_to4096_200points", 64, 5e5, 4096, 200},
                                           DecayOnesGridCase{"d2_base1e4_to100_10points", 2, 1e4, 100, 10},
                                           DecayOnesGridCase{"d4096_base1e4_to256_300points", 4096, 1e4, 256, 300},
                                           DecayOnesGridCase{"d128_base5e5_to1e6_100000points", 128, 5e5, 1e6, 100000}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(Decay, LinspaceRecurrenceMatchesNumpyReferences) {
  // The CLI's fast path against tests/reference/decay.py at 1e-12, as demo.decay_matches_numpy.
  const auto ref = test::read_reference("decay_d128_base10000.csv");
  const Eigen::VectorXd got = decay_bound_linspace(frequencies(128, 1e4), 256, 257);
  const Eigen::VectorXd expected = ref.column(1);
  for (Eigen::Index k = 0; k < got.size(); ++k) EXPECT_NEAR(got[k], expected[k], 1e-12 * expected[k]) << k;
  const auto ref64 = test::read_reference("decay_d64_base500000.csv");
  const Eigen::VectorXd got64 = decay_bound_linspace(frequencies(64, 5e5), 4096, 200);
  for (Eigen::Index k = 0; k < got64.size(); ++k) EXPECT_NEAR(got64[k], ref64.column(1)[k], 1e-12 * ref64.column(1)[k]);
}

TEST(Decay, LinspaceRecurrenceEdgeCases) {
  const Eigen::VectorXd theta = frequencies(8, 1e4);
  EXPECT_EQ(decay_bound_linspace(theta, 5, 1), decay_bound(theta, linspace(5, 1)));
  EXPECT_EQ(decay_bound_linspace(theta, 0, 3), decay_bound(theta, linspace(0, 3)));
  EXPECT_THROW(decay_bound_linspace(theta, -1, 3), InvalidArgument);
  EXPECT_EQ(decay_anchor(2), 8);
  EXPECT_EQ(decay_anchor(1000), 32);
  EXPECT_EQ(decay_anchor(100000), kDecayAnchor);
}

// Above 2^21 terms the anchors are shared by threads taking blocks of 8 from a counter (decay.cpp): each anchor's
// values are computed alone, so the curve is the same bit for bit whichever thread swept it and however many there
// are (1, 2 and 5: more than this machine's cores); 65 537 points has its last point on an anchor (65 536 = 256·256),
// which linspace puts exactly at `stop`.
class DecayThreads : public ::testing::TestWithParam<long> {};

TEST_P(DecayThreads, TheCurveIsTheSameWhicheverThreadSweepsIt) {
  const long points = GetParam();
  const Eigen::VectorXd theta = frequencies(128, 5e5);
  const int previous = omp_get_max_threads();
  std::vector<Eigen::VectorXd> curves;
  for (const int threads : {1, 2, 5}) {
    omp_set_num_threads(threads);
    curves.push_back(decay_bound_linspace(theta, 1e6, points));
    curves.push_back(ones_score_linspace(theta, 1e6, points));
  }
  omp_set_num_threads(previous);
  for (std::size_t k = 2; k < curves.size(); ++k) EXPECT_EQ(curves[k], curves[k % 2]) << k;
  const Eigen::VectorXd x = linspace(1e6, points);
  for (const Eigen::Index k : {Eigen::Index{0}, Eigen::Index{256}, Eigen::Index{points / 2}, Eigen::Index{points - 2},
                               Eigen::Index{points - 1}}) {
    EXPECT_NEAR(curves[0][k], decay_bound(theta, x[k]), 1e-9 * decay_bound(theta, x[k])) << k;
    EXPECT_NEAR(curves[1][k], ones_score(theta, x[k]), 1e-6) << k;
  }
}

INSTANTIATE_TEST_SUITE_P(Points, DecayThreads, ::testing::Values(65537L, 100000L));

}  // namespace
}  // namespace rope
