// The mixed-layout demonstration of rope/analysis/teaching/layouts.hpp (docs/math.md (M6), (M8)).
// Expected values are rebuilt here from the definitions, by explicit index manipulation: pair i is
// channels (2i, 2i+1) in the interleaved layout and (i, i + d/2) in the half layout, θ_i = base^(−2i/d).
#include "rope/analysis/teaching/layouts.hpp"

#include <cmath>
#include <complex>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/core/random.hpp"
#include "rope/core/rotation.hpp"
#include "rope/core/tolerance.hpp"

namespace rope {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// Awkward inputs: dimensions, bases and positions (negative, fractional, large).
const int kDims[] = {2, 4, 8, 64, 128};
const double kBases[] = {1e4, 5e5};
const double kPositions[] = {0, 1, 7, -3, 0.5, 4095, 131071};

/// θ_i = base^(−2i/d) (M1), computed here and not by frequencies().
Eigen::VectorXd theta_of(int d, double base) {
  Eigen::VectorXd theta(d / 2);
  for (int i = 0; i < d / 2; ++i) theta[i] = std::pow(base, -2.0 * i / d);
  return theta;
}

/// The channels of pair i, written out: interleaved (2i, 2i+1), half (i, i + d/2).
std::pair<int, int> channels(int d, int i, bool half) {
  return half ? std::pair{i, i + d / 2} : std::pair{2 * i, 2 * i + 1};
}

/// ⟨R_m q, R_n k⟩ with pair i on channels(d, i, half), each pair rotated with cos and sin written out (M3)
/// and the per-pair products added in channel order.
double explicit_score(const Eigen::VectorXd& theta, const Eigen::VectorXd& q, const Eigen::VectorXd& k, double m,
                      double n, bool half) {
  const int d = static_cast<int>(q.size());
  double sum = 0.0;
  for (int i = 0; i < d / 2; ++i) {
    const auto [a, b] = channels(d, i, half);
    const double qa = q[a] * std::cos(m * theta[i]) - q[b] * std::sin(m * theta[i]);
    const double qb = q[a] * std::sin(m * theta[i]) + q[b] * std::cos(m * theta[i]);
    const double ka = k[a] * std::cos(n * theta[i]) - k[b] * std::sin(n * theta[i]);
    const double kb = k[a] * std::sin(n * theta[i]) + k[b] * std::cos(n * theta[i]);
    sum += qa * ka + qb * kb;
  }
  return sum;
}

/// The interleaved score in Meta's complex form (M10): Re Σ_i q̃_i conj(k̃_i) e^{i(m−n)θ_i}, q̃_i = q_{2i} + i q_{2i+1}.
double complex_score(const Eigen::VectorXd& theta, const Eigen::VectorXd& q, const Eigen::VectorXd& k, double m,
                     double n) {
  std::complex<double> sum = 0.0;
  for (Eigen::Index i = 0; i < theta.size(); ++i) {
    const std::complex<double> qi(q[2 * i], q[2 * i + 1]);
    const std::complex<double> ki(k[2 * i], k[2 * i + 1]);
    sum += qi * std::conj(ki) * std::polar(1.0, (m - n) * theta[i]);
  }
  return sum.real();
}

/// q, k ~ N(0, I): 2d draws of Random(seed), q first.
std::pair<Eigen::VectorXd, Eigen::VectorXd> draw(int d, std::uint64_t seed) {
  Random rng(seed);
  Eigen::VectorXd q(d), k(d);
  for (int c = 0; c < d; ++c) q[c] = rng.normal();
  for (int c = 0; c < d; ++c) k[c] = rng.normal();
  return {q, k};
}

/// (M13) on a score: κ·ε·(d + M)·‖q‖‖k‖ with M = |m| + |n| + |n − m|.
double score_tolerance(const Eigen::VectorXd& q, const Eigen::VectorXd& k, double m, double n) {
  const int d = static_cast<int>(q.size());
  return relative_tolerance(machine_epsilon<double>(), d, std::abs(m) + std::abs(n) + std::abs(n - m)) * q.norm() *
         k.norm();
}

TEST(Layouts, PermSendsEvenChannelsToTheFirstHalf) {
  // docs/math.md §3: for d = 8, P x = (x_0, x_2, x_4, x_6, x_1, x_3, x_5, x_7).
  EXPECT_EQ(layout_perm(8), (std::vector<int>{0, 2, 4, 6, 1, 3, 5, 7}));
  // d = 2 has a single pair, (0, 1) in both layouts.
  EXPECT_EQ(layout_perm(2), (std::vector<int>{0, 1}));
}

TEST(Layouts, PermIsTheIndexFormOfTheMatrixP) {
  // (P x)_c = x_{perm[c]} for the Eigen permutation of rotation.hpp, on x = (0, 1, …, d − 1).
  for (int d : kDims) {
    const std::vector<int> perm = layout_perm(d);
    const Eigen::VectorXd x = Eigen::VectorXd::LinSpaced(d, 0, d - 1);
    const Eigen::VectorXd Px = layout_permutation(d) * x;
    for (int c = 0; c < d; ++c) EXPECT_EQ(Px[c], perm[static_cast<std::size_t>(c)]) << "d=" << d << " c=" << c;
  }
}

TEST(Layouts, PairDotIsTheDotProductSummedPairByPair) {
  // Small integers: every product and sum is exact, so any order gives 1·8 + 2·7 + … + 8·1 = 120.
  const Eigen::VectorXd u = Eigen::VectorXd::LinSpaced(8, 1, 8);
  const Eigen::VectorXd v = Eigen::VectorXd::LinSpaced(8, 8, 1);
  EXPECT_EQ(pair_dot(u, v, Layout::Interleaved), 120.0);
  EXPECT_EQ(pair_dot(u, v, Layout::Half), 120.0);
  // Random vectors: the same sum up to the order of the additions, d·ε·‖u‖‖v‖ (math.md §8, term 3).
  const auto [q, k] = draw(128, 7);
  for (Layout layout : {Layout::Interleaved, Layout::Half}) {
    EXPECT_NEAR(pair_dot(q, k, layout), q.dot(k), 128 * machine_epsilon<double>() * q.norm() * k.norm());
  }
  EXPECT_THROW(pair_dot(u, Eigen::VectorXd::Ones(6), Layout::Half), InvalidArgument);
}

TEST(Layouts, ReferenceScoreIsMetasComplexScore) {
  // (a) against (M10) in complex numbers and against the pairs (2i, 2i+1) written out; tolerance (M13).
  for (int d : kDims) {
    for (double base : kBases) {
      const Eigen::VectorXd theta = theta_of(d, base);
      const auto [q, k] = draw(d, 11);
      for (double m : kPositions) {
        for (double n : kPositions) {
          const double a = layout_scores(theta, q, k, m, n).interleaved;
          const double tol = score_tolerance(q, k, m, n);
          EXPECT_NEAR(a, complex_score(theta, q, k, m, n), tol) << "d=" << d << " m=" << m << " n=" << n;
          EXPECT_NEAR(a, explicit_score(theta, q, k, m, n, false), tol) << "d=" << d << " m=" << m << " n=" << n;
        }
      }
    }
  }
}

TEST(Layouts, MixedScoreRotatesPairsIAndIPlusHalfOfTheUnconvertedVectors) {
  // (b): the same q, k with the half layout's pairs (i, i + d/2), written out; tolerance (M13).
  for (int d : kDims) {
    for (double base : kBases) {
      const Eigen::VectorXd theta = theta_of(d, base);
      const auto [q, k] = draw(d, 12);
      for (double m : kPositions) {
        for (double n : kPositions) {
          EXPECT_NEAR(layout_scores(theta, q, k, m, n).mixed, explicit_score(theta, q, k, m, n, true),
                      score_tolerance(q, k, m, n))
              << "d=" << d << " m=" << m << " n=" << n;
        }
      }
    }
  }
}

TEST(Layouts, PermutingWeightsFirstRestoresTheScoreExactly) {
  // (c) = (a) bit for bit (M6): P moves whole pairs, so both add the same numbers in the same order.
  for (int d : kDims) {
    for (double base : kBases) {
      const Eigen::VectorXd theta = theta_of(d, base);
      for (std::uint64_t seed : {1u, 2u, 3u}) {
        const auto [q, k] = draw(d, seed);
        for (double m : kPositions) {
          for (double n : kPositions) {
            const LayoutScores s = layout_scores(theta, q, k, m, n);
            EXPECT_EQ(s.fixed, s.interleaved) << "d=" << d << " base=" << base << " m=" << m << " n=" << n;
          }
        }
      }
    }
  }
}

TEST(Layouts, FixedScoreRotatesThePermutedVectorsInTheHalfLayout) {
  // (c) rebuilt by hand: x_half[c] = x[perm[c]] with perm written out, then pairs (i, i + d/2).
  const int d = 8;
  const int perm[] = {0, 2, 4, 6, 1, 3, 5, 7};  // docs/math.md §3
  const Eigen::VectorXd theta = theta_of(d, 1e4);
  const auto [q, k] = draw(d, 5);
  Eigen::VectorXd Pq(d), Pk(d);
  for (int c = 0; c < d; ++c) {
    Pq[c] = q[perm[c]];
    Pk[c] = k[perm[c]];
  }
  EXPECT_NEAR(layout_scores(theta, q, k, 5, 12).fixed, explicit_score(theta, Pq, Pk, 5, 12, true),
              score_tolerance(q, k, 5, 12));
}

TEST(Layouts, MixingLayoutsChangesTheScores) {
  // The bug: for d >= 4 the half kernel pairs other channels, so (b) differs from (a) by far more than
  // (M13) allows. Of size √d: Δ = qᵀ(R^half_δ − R^int_δ)k has E[Δ²] = ‖R^half_δ − R^int_δ‖_F² <= 4d for
  // q, k ~ N(0, I), near 2d once the angles δθ_i are large. Over δ = 0 … 256 the mean |Δ| of one draw
  // lies, for every d and seed tried here, between 0.25·√d and 3·√d (0.45·√d … 1.6·√d measured): O(√d), not O(d).
  for (int d : {8, 32, 128, 512}) {
    for (std::uint64_t seed : {kDefaultSeed, std::uint64_t{1}, std::uint64_t{99}}) {
      LayoutsSettings s;
      s.dim = d;
      s.seed = seed;
      s.max_distance = 256;
      const LayoutsDemo demo = layouts_demo(s);
      const double sqrt_d = std::sqrt(static_cast<double>(d));
      EXPECT_GT(demo.mean_mixed_change, 0.25 * sqrt_d) << "d=" << d << " seed=" << seed;
      EXPECT_LT(demo.mean_mixed_change, 3.0 * sqrt_d) << "d=" << d << " seed=" << seed;
      EXPECT_GT(demo.max_mixed_change,
                1e6 * demo.identity_interleaved.check.tolerance * demo.identity_interleaved.check.scale);
      EXPECT_EQ(demo.max_fixed_change, 0.0) << "d=" << d << " seed=" << seed;
      EXPECT_TRUE(demo.passed());
    }
  }
}

TEST(Layouts, MixingLayoutsIsInvisibleAtDistanceZero) {
  // At n = m both kernels give qᵀk (R_mᵀR_m = I in any layout), so a test at one distance 0 misses the bug.
  const auto [q, k] = draw(64, 3);
  const Eigen::VectorXd theta = theta_of(64, 1e4);
  for (double m : kPositions) {
    const LayoutScores s = layout_scores(theta, q, k, m, m);
    EXPECT_NEAR(s.mixed, q.dot(k), score_tolerance(q, k, m, m)) << m;
    EXPECT_NEAR(s.interleaved, q.dot(k), score_tolerance(q, k, m, m)) << m;
  }
}

TEST(Layouts, DimensionTwoHasOneLayout) {
  // d = 2: one pair, (0, 1) in both layouts, so there is no bug to make.
  const auto [q, k] = draw(2, 4);
  for (double m : kPositions) {
    const LayoutScores s = layout_scores(theta_of(2, 1e4), q, k, m, 3.0);
    EXPECT_EQ(s.mixed, s.interleaved) << m;
    EXPECT_EQ(s.fixed, s.interleaved) << m;
  }
}

TEST(Layouts, EachLayoutAloneSatisfiesTheRelativeIdentity) {
  // (M8) for the bug's scores too: (b) depends on n − m only; against qᵀR^half_{n−m}k written out.
  for (int d : kDims) {
    const Eigen::VectorXd theta = theta_of(d, 1e4);
    const auto [q, k] = draw(d, 8);
    for (double m : kPositions) {
      for (double n : kPositions) {
        const double tol = score_tolerance(q, k, m, n);
        EXPECT_NEAR(layout_scores(theta, q, k, m, n).mixed, explicit_score(theta, q, k, 0, n - m, true), tol)
            << "d=" << d << " m=" << m << " n=" << n;
        EXPECT_NEAR(layout_scores(theta, q, k, m, n).interleaved, explicit_score(theta, q, k, 0, n - m, false), tol)
            << "d=" << d << " m=" << m << " n=" << n;
      }
    }
  }
}

TEST(Layouts, DemoDrawsQThenKFromTheSeed) {
  LayoutsSettings s;
  s.dim = 16;
  s.seed = 42;
  const LayoutsDemo demo = layouts_demo(s);
  const auto [q, k] = draw(16, 42);
  EXPECT_EQ(demo.q, q);
  EXPECT_EQ(demo.k, k);
  EXPECT_EQ(demo.theta, frequencies(16, 1e4));
}

TEST(Layouts, DemoSweepHoldsTheThreeScoresAtEveryDistance) {
  // Row δ: the query at m, the key at m + δ; (a) and (b) against the written-out scores, (c) = (a) exactly.
  LayoutsSettings s;
  s.dim = 32;
  s.base = 5e5;
  s.m = -2.5;
  s.n = 40;
  s.max_distance = 100;
  const LayoutsDemo demo = layouts_demo(s);
  const Eigen::VectorXd theta = theta_of(32, 5e5);
  ASSERT_EQ(demo.distances.size(), 101);
  double max_change = 0.0, sum_change = 0.0;
  for (Eigen::Index r = 0; r <= 100; ++r) {
    const double n = s.m + static_cast<double>(r);
    const double tol = score_tolerance(demo.q, demo.k, s.m, n);
    EXPECT_EQ(demo.distances[r], static_cast<double>(r));
    EXPECT_NEAR(demo.score_interleaved[r], explicit_score(theta, demo.q, demo.k, s.m, n, false), tol) << r;
    EXPECT_NEAR(demo.score_mixed[r], explicit_score(theta, demo.q, demo.k, s.m, n, true), tol) << r;
    EXPECT_EQ(demo.score_fixed[r], demo.score_interleaved[r]) << r;
    const double change = std::abs(demo.score_mixed[r] - demo.score_interleaved[r]);
    max_change = std::max(max_change, change);
    sum_change += change;
  }
  EXPECT_EQ(demo.max_mixed_change, max_change);
  EXPECT_DOUBLE_EQ(demo.mean_mixed_change, sum_change / 101);  // same terms, same order: a few ulps at most
  EXPECT_EQ(demo.max_fixed_change, 0.0);
  // The pair (m, n) itself.
  EXPECT_NEAR(demo.at.interleaved, explicit_score(theta, demo.q, demo.k, s.m, s.n, false),
              score_tolerance(demo.q, demo.k, s.m, s.n));
  EXPECT_NEAR(demo.at.mixed, explicit_score(theta, demo.q, demo.k, s.m, s.n, true),
              score_tolerance(demo.q, demo.k, s.m, s.n));
  EXPECT_EQ(demo.at.fixed, demo.at.interleaved);
}

TEST(Layouts, DemoIdentityChecksUseTheToleranceOfTheLargestPositions) {
  // (M13): S = ‖q‖‖k‖ and M = the largest |m| + |n| + |n − m| over (m, n) and the sweep n = m + δ.
  LayoutsSettings s;
  s.dim = 64;
  s.m = 1000;
  s.n = -3000;  // |m| + |n| + |n − m| = 1000 + 3000 + 4000 = 8000, more than the sweep's 1000 + 1064 + 64 = 2128
  const LayoutsDemo demo = layouts_demo(s);
  for (const LayoutIdentityCheck* c : {&demo.identity_interleaved, &demo.identity_half}) {
    EXPECT_EQ(c->samples, 66);  // (m, n) and δ = 0 … 64
    EXPECT_DOUBLE_EQ(c->check.scale, demo.q.norm() * demo.k.norm());
    EXPECT_DOUBLE_EQ(c->check.tolerance, 8 * 2.220446049250313e-16 * (64 + 8000));
    EXPECT_TRUE(c->check.passed());
  }
  EXPECT_EQ(demo.identity_interleaved.layout, Layout::Interleaved);
  EXPECT_EQ(demo.identity_half.layout, Layout::Half);
}

TEST(Layouts, HalfMatrixIsThePermutedInterleavedMatrixExactly) {
  // (M6) entry by entry: R^half[r, c] = R^int[perm[r], perm[c]], perm = [0, 2, …, 1, 3, …].
  for (int d : kDims) {
    for (double m : kPositions) {
      const Eigen::MatrixXd R_int = rotation_matrix(d, m, 1e4, Layout::Interleaved);
      const Eigen::MatrixXd R_half = rotation_matrix(d, m, 1e4, Layout::Half);
      for (int r = 0; r < d; ++r) {
        const int pr = r < d / 2 ? 2 * r : 2 * (r - d / 2) + 1;
        for (int c = 0; c < d; ++c) {
          const int pc = c < d / 2 ? 2 * c : 2 * (c - d / 2) + 1;
          ASSERT_EQ(R_half(r, c), R_int(pr, pc)) << "d=" << d << " m=" << m << " r=" << r << " c=" << c;
        }
      }
    }
  }
  LayoutsSettings s;
  s.dim = 128;
  s.m = 131071;
  s.n = -0.5;
  EXPECT_EQ(layouts_demo(s).conjugation_error, 0.0);
}

TEST(Layouts, UsesGivenFrequencies) {
  // A scaled model's inv_freq, e.g. linear scaling by 4: θ_i / 4.
  LayoutsSettings s;
  s.dim = 16;
  s.inv_freq = theta_of(16, 1e4) / 4;
  const LayoutsDemo demo = layouts_demo(s);
  EXPECT_EQ(demo.theta, *s.inv_freq);
  EXPECT_NEAR(demo.at.interleaved, explicit_score(*s.inv_freq, demo.q, demo.k, 5, 12, false),
              score_tolerance(demo.q, demo.k, 5, 12));
  EXPECT_EQ(demo.max_fixed_change, 0.0);
  s.inv_freq = theta_of(8, 1e4);
  EXPECT_THAT([&] { layouts_demo(s); },
              ThrowsMessage<InvalidArgument>(HasSubstr("4 frequencies given for dimension 16")));
}

TEST(Layouts, RejectsBadSettingsNamingValueAndRule) {
  const auto rejects = [](auto change, const std::string& message) {
    LayoutsSettings s;
    change(s);
    EXPECT_THAT([&] { layouts_demo(s); }, ThrowsMessage<InvalidArgument>(HasSubstr(message))) << message;
  };
  rejects([](LayoutsSettings& s) { s.dim = 7; }, "dimension d must be even and between 2 and 1024 (got 7)");
  rejects([](LayoutsSettings& s) { s.dim = 1026; }, "(got 1026)");
  rejects([](LayoutsSettings& s) { s.dim = 0; }, "(got 0)");
  rejects([](LayoutsSettings& s) { s.base = 1; }, "base must be a finite number > 1 (got 1)");
  rejects([](LayoutsSettings& s) { s.m = std::nan(""); },
          "position m must be a finite number between -1e+09 and 1e+09 (got nan)");
  rejects([](LayoutsSettings& s) { s.n = -2e9; },
          "position n must be a finite number between -1e+09 and 1e+09 (got -2000000000)");
  rejects([](LayoutsSettings& s) { s.max_distance = -1; }, "max-distance must be between 0 and 100000 (got -1)");
  rejects([](LayoutsSettings& s) { s.max_distance = 100001; }, "(got 100001)");
  EXPECT_THROW(layout_perm(3), InvalidArgument);
  EXPECT_THROW(layout_scores(theta_of(4, 1e4), Eigen::VectorXd::Ones(4), Eigen::VectorXd::Ones(6), 0, 0),
               InvalidArgument);
}

TEST(Layouts, AcceptsTheBounds) {
  LayoutsSettings s;
  s.dim = 2;
  s.m = -1e9;
  s.n = 1e9;
  s.max_distance = 0;
  const LayoutsDemo demo = layouts_demo(s);
  EXPECT_EQ(demo.distances.size(), 1);
  EXPECT_TRUE(demo.passed());
}

}  // namespace
}  // namespace rope
