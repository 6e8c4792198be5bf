// The numbers of `rope explain` (src/rope/analysis/teaching/explain.hpp), each against an independent computation:
// explicit cos/sin arithmetic written here, std::complex, or a value worked by hand.
#include "rope/analysis/teaching/explain.hpp"

#include <cmath>
#include <complex>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "rope/core/error.hpp"
#include "rope/core/random.hpp"
#include "rope/core/tolerance.hpp"
#include "support/shared.hpp"

namespace rope {
namespace {

using ::testing::HasSubstr;
using Complex = std::complex<double>;

using test::kEps;

/// (x, y) turned counter-clockwise by φ, written out: (x cos φ − y sin φ, x sin φ + y cos φ)   (M3)
Eigen::Vector2d turn(double phi, const Eigen::Vector2d& v) {
  return {v[0] * std::cos(phi) - v[1] * std::sin(phi), v[0] * std::sin(phi) + v[1] * std::cos(phi)};
}

/// (M13) with κ = 8, written out.
double tolerance(int d, double angles, double scale) { return 8.0 * kEps * (d + angles) * scale; }

explain::Setup random_setup(Random& rng) {
  explain::Setup s;
  s.q = {rng.normal(), rng.normal()};
  s.k = {rng.normal(), rng.normal()};
  s.m = static_cast<double>(rng.below(20001)) - 10000.0;
  s.n = static_cast<double>(rng.below(20001)) - 10000.0;
  s.theta = 0.001 + rng.uniform();
  s.shift = static_cast<double>(rng.below(200001)) - 100000.0;
  s.d = 2 * (1 + static_cast<int>(rng.below(8)));
  s.base = 500.0 + 1e6 * rng.uniform();
  return s;
}

TEST(Explain, DefaultsAreTheDocumentedNumbers) {
  // docs/cli.md "rope explain": q = (1, 0.5) at M = 2, k = (0.8, −0.3) at N = 5, θ = 1, c = 100,
  // d = 8, base 10000.
  const explain::Setup s;
  EXPECT_EQ(s.q, Eigen::Vector2d(1.0, 0.5));
  EXPECT_EQ(s.k, Eigen::Vector2d(0.8, -0.3));
  EXPECT_EQ(s.m, 2.0);
  EXPECT_EQ(s.n, 5.0);
  EXPECT_EQ(s.theta, 1.0);
  EXPECT_EQ(s.shift, 100.0);
  EXPECT_EQ(s.d, 8);
  EXPECT_EQ(s.base, 10000.0);
}

TEST(Explain, DefaultScoreIsTheWorkedValue) {
  // By hand from (M8) per pair: q·k = 0.8 − 0.15 = 0.65, q_b k_a − q_a k_b = 0.4 + 0.3 = 0.7, φ = (5 − 2)·1 = 3:
  // 0.65 cos 3 + 0.7 sin 3 = −0.544711 (6 decimals); the sign slip gives 0.65 cos 3 − 0.7 sin 3 = −0.742279.
  const explain::Walkthrough w = explain::explain({});
  EXPECT_NEAR(w.step5.score, -0.544711, 5e-7);
  EXPECT_NEAR(w.step5.wrong_sign, -0.742279, 5e-7);
  // z_q·conj(z_k) = (1 + 0.5i)(0.8 + 0.3i) = 0.65 + 0.7i exactly up to the rounding of 0.8·1, 0.5·0.3, …
  EXPECT_NEAR(w.step5.q_conj_k.real(), 0.65, 4 * kEps);
  EXPECT_NEAR(w.step5.q_conj_k.imag(), 0.7, 4 * kEps);
  // Step 7, d = 8, base 1e4: θ = {1, 0.1, 0.01, 0.001} (docs/math.md §1); θ_0 = 1 exactly is pair 0.
  ASSERT_EQ(w.step7.theta.size(), 4);
  EXPECT_EQ(w.step7.theta[0], 1.0);
  EXPECT_NEAR(w.step7.theta[1], 0.1, 1e-16);
  EXPECT_NEAR(w.step7.theta[2], 0.01, 1e-17);
  EXPECT_NEAR(w.step7.theta[3], 0.001, 1e-18);
  EXPECT_EQ(w.step7.pair_of_theta, 0);
}

TEST(Explain, ComplexViewIsLengthAndAngle) {
  // |z| = √(a² + b²), arg z = atan2(b, a); the polar form gives z back within (M13), S = |z|.
  for (const Eigen::Vector2d& v : {Eigen::Vector2d(1, 0.5), Eigen::Vector2d(-3, 4), Eigen::Vector2d(0, -2)}) {
    explain::Setup s;
    s.q = v;
    const explain::ComplexView c = explain::explain(s).step1.q;
    EXPECT_EQ(c.z, Complex(v[0], v[1]));
    EXPECT_NEAR(c.modulus, std::sqrt(v[0] * v[0] + v[1] * v[1]), 2 * kEps * c.modulus);
    EXPECT_NEAR(c.argument, std::atan2(v[1], v[0]), 2 * kEps * 4);
    EXPECT_NEAR(c.polar.real(), v[0], tolerance(2, std::abs(c.argument), c.modulus));
    EXPECT_NEAR(c.polar.imag(), v[1], tolerance(2, std::abs(c.argument), c.modulus));
    EXPECT_TRUE(c.check.passed());
  }
  // (−3, 4): |z| = 5 (the 3-4-5 triangle).
  explain::Setup s;
  s.q = {-3, 4};
  EXPECT_NEAR(explain::explain(s).step1.q.modulus, 5.0, 4 * kEps);
}

TEST(Explain, EulerAndRotationMatchExplicitCosSin) {
  // Step 2: e^{iφ} = (cos φ, sin φ); step 3: z·e^{iφ} = R(φ)(a, b) = (a cos φ − b sin φ, a sin φ + b cos φ).
  Random rng(kDefaultSeed);
  for (int trial = 0; trial < 200; ++trial) {
    const explain::Setup s = random_setup(rng);
    const explain::Walkthrough w = explain::explain(s);
    const double phi_m = s.m * s.theta;
    const double phi_n = s.n * s.theta;
    // The angles are the same product in both, so cos/sin differ by rounding only: a few ε.
    EXPECT_NEAR(w.step2.query.cos_sin.real(), std::cos(phi_m), 4 * kEps);
    EXPECT_NEAR(w.step2.query.exponential.imag(), std::sin(phi_m), 4 * kEps);
    EXPECT_NEAR(w.step2.key.exponential.real(), std::cos(phi_n), 4 * kEps);
    const Eigen::Vector2d q_turned = turn(phi_m, s.q);
    const Eigen::Vector2d k_turned = turn(phi_n, s.k);
    const double tol_q = 4 * kEps * s.q.norm();
    const double tol_k = 4 * kEps * s.k.norm();
    EXPECT_NEAR(w.step3.query.rotated[0], q_turned[0], tol_q);
    EXPECT_NEAR(w.step3.query.rotated[1], q_turned[1], tol_q);
    EXPECT_NEAR(w.step3.query.product.real(), q_turned[0], tol_q);
    EXPECT_NEAR(w.step3.query.product.imag(), q_turned[1], tol_q);
    EXPECT_NEAR(w.step3.key.product.real(), k_turned[0], tol_k);
    EXPECT_NEAR(w.step3.key.rotated[1], k_turned[1], tol_k);
    // The matrix is (M3) entry by entry.
    EXPECT_NEAR(w.step3.query.matrix(0, 1), -std::sin(phi_m), 4 * kEps);
    EXPECT_NEAR(w.step3.query.matrix(1, 0), std::sin(phi_m), 4 * kEps);
  }
}

TEST(Explain, RotationsComposeToTheRelativeRotation) {
  // Step 4: R(−Mθ)R(Nθ) = R((N−M)θ) (M7); each entry against cos/sin of (N−M)θ, tolerance (M13) with
  // A = |Mθ| + |Nθ| + |(N−M)θ| and S = 1.
  Random rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const explain::Setup s = random_setup(rng);
    const explain::Step4 s4 = explain::explain(s).step4;
    const double phi = (s.n - s.m) * s.theta;
    const double tol = tolerance(2, std::abs(s.m * s.theta) + std::abs(s.n * s.theta) + std::abs(phi), 1.0);
    const Eigen::Matrix2d expected =
        (Eigen::Matrix2d() << std::cos(phi), -std::sin(phi), std::sin(phi), std::cos(phi)).finished();
    EXPECT_LE((s4.product - expected).cwiseAbs().maxCoeff(), tol);
    EXPECT_LE((s4.relative - expected).cwiseAbs().maxCoeff(), 4 * kEps);
    EXPECT_NEAR(s4.minus_m(0, 1), std::sin(s.m * s.theta), 4 * kEps);  // R(−φ) = R(φ)ᵀ: entry (0, 1) is +sin φ
    EXPECT_TRUE(s4.check.passed()) << s4.check.difference << " > " << s4.check.tolerance;
    EXPECT_DOUBLE_EQ(s4.check.tolerance * s4.check.scale, tol);  // the bound on |Δ|
  }
}

TEST(Explain, ScoreMatchesThePerPairRealFormula) {
  // Step 5: ⟨R_M q, R_N k⟩ = (q_a k_a + q_b k_b) cos φ + (q_b k_a − q_a k_b) sin φ, φ = (N − M)θ (M8),
  // and the complex form with std::complex; (M13) with S = |q||k|.
  Random rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    const explain::Setup s = random_setup(rng);
    const explain::Step5 s5 = explain::explain(s).step5;
    const double phi = (s.n - s.m) * s.theta;
    const double dot = s.q[0] * s.k[0] + s.q[1] * s.k[1];
    const double cross = s.q[1] * s.k[0] - s.q[0] * s.k[1];
    const double expected = dot * std::cos(phi) + cross * std::sin(phi);
    const double angles = std::abs(s.m * s.theta) + std::abs(s.n * s.theta) + std::abs(phi);
    const double tol = tolerance(2, angles, s.q.norm() * s.k.norm());
    EXPECT_NEAR(s5.score, expected, tol);
    EXPECT_NEAR(s5.relative_form, expected, tol);
    const Complex by_complex =
        Complex(s.q[0], s.q[1]) * std::conj(Complex(s.k[0], s.k[1])) * std::exp(Complex(0, -phi));
    EXPECT_NEAR(s5.complex_form, by_complex.real(), tol);
    EXPECT_NEAR(s5.wrong_sign, dot * std::cos(phi) - cross * std::sin(phi), tol);
    EXPECT_TRUE(s5.complex_check.passed());
    EXPECT_TRUE(s5.relative_check.passed());
    EXPECT_DOUBLE_EQ(s5.relative_check.tolerance * s5.relative_check.scale, tol);
    // The angle between the rotated vectors: arg k − arg q + (N − M)θ, reduced to (−π, π]; each angle is
    // off by about ε·|angle|, atan2 by a few ε: (M13) with S = 1.
    const double between = std::remainder(std::atan2(s.k[1], s.k[0]) - std::atan2(s.q[1], s.q[0]) + phi, kTwoPi);
    EXPECT_NEAR(std::remainder(s5.angle_between - between, kTwoPi), 0.0, tolerance(2, angles, 1.0));
  }
}

TEST(Explain, SignSlipEqualsTheScoreOnlyWhenTheSineTermVanishes) {
  explain::Setup s;
  EXPECT_FALSE(explain::explain(s).step5.wrong_sign_check.passed());  // −0.742279 vs −0.544711
  s.k = {2.0, 1.0};  // parallel to q = (1, 0.5): q_b k_a − q_a k_b = 1 − 1 = 0
  EXPECT_TRUE(explain::explain(s).step5.wrong_sign_check.passed());
}

TEST(Explain, ShiftingBothPositionsKeepsScoreAndAngle) {
  // Step 6 against the explicit rotations of (M3) at M + c and N + c; (M13) with
  // A = |(M+c)θ| + |(N+c)θ| + |Mθ| + |Nθ|, S = |q||k|.
  Random rng(13);
  for (int trial = 0; trial < 200; ++trial) {
    const explain::Setup s = random_setup(rng);
    const explain::Walkthrough w = explain::explain(s);
    const double a = (s.m + s.shift) * s.theta;
    const double b = (s.n + s.shift) * s.theta;
    const Eigen::Vector2d q_turned = turn(a, s.q);
    const Eigen::Vector2d k_turned = turn(b, s.k);
    const double angles = std::abs(a) + std::abs(b) + std::abs(s.m * s.theta) + std::abs(s.n * s.theta);
    const double tol = tolerance(2, angles, s.q.norm() * s.k.norm());
    EXPECT_NEAR(w.step6.q_rotated[0], q_turned[0], 4 * kEps * s.q.norm());
    EXPECT_NEAR(w.step6.k_rotated[1], k_turned[1], 4 * kEps * s.k.norm());
    EXPECT_NEAR(w.step6.shifted_score, q_turned.dot(k_turned), 8 * kEps * s.q.norm() * s.k.norm());
    EXPECT_NEAR(w.step6.shifted_score, w.step5.score, tol);
    EXPECT_EQ(w.step6.score, w.step5.score);
    EXPECT_TRUE(w.step6.check.passed());
    EXPECT_DOUBLE_EQ(w.step6.check.tolerance * w.step6.check.scale, tol);
    // The angle is unchanged up to the rounding of the larger angles (each off by about ε·|angle|).
    EXPECT_NEAR(std::remainder(w.step6.angle_between - w.step5.angle_between, kTwoPi), 0.0, tolerance(2, angles, 1.0));
  }
}

TEST(Explain, DimensionsStepMatchesExplicitBlocksAndElementwiseForm) {
  // Step 7 for d = 6, base 500, M = 3: θ_i = 500^(−2i/6), q repeated, R_M block-diagonal (M5), and
  // q ⊙ cos + rot(q) ⊙ sin (M9) written out here channel by channel.
  explain::Setup s;
  s.d = 6;
  s.base = 500.0;
  s.m = 3.0;
  s.q = {0.3, -1.2};
  const explain::Step7 s7 = explain::explain(s).step7;
  ASSERT_EQ(s7.theta.size(), 3);
  ASSERT_EQ(s7.q.size(), 6);
  for (int i = 0; i < 3; ++i) {
    const double theta = std::pow(500.0, -2.0 * i / 6.0);
    EXPECT_NEAR(s7.theta[i], theta, 2 * kEps * theta) << i;
    EXPECT_NEAR(s7.angles[i], 3.0 * theta, 8 * kEps * 3.0 * theta) << i;
    EXPECT_EQ(s7.q[2 * i], 0.3);
    EXPECT_EQ(s7.q[2 * i + 1], -1.2);
    const double c = std::cos(3.0 * theta);
    const double sn = std::sin(3.0 * theta);
    EXPECT_NEAR(s7.cos[2 * i], c, 8 * kEps);
    EXPECT_EQ(s7.cos[2 * i + 1], s7.cos[2 * i]);
    EXPECT_NEAR(s7.sin[2 * i + 1], sn, 8 * kEps);
    EXPECT_EQ(s7.rot[2 * i], 1.2);      // −q_1
    EXPECT_EQ(s7.rot[2 * i + 1], 0.3);  // q_0
    // The block of pair i and nothing else in its rows.
    EXPECT_NEAR(s7.matrix(2 * i, 2 * i), c, 8 * kEps);
    EXPECT_NEAR(s7.matrix(2 * i, 2 * i + 1), -sn, 8 * kEps);
    EXPECT_NEAR(s7.matrix(2 * i + 1, 2 * i), sn, 8 * kEps);
    for (int j = 0; j < 6; ++j) {
      if (j / 2 != i) {
        EXPECT_EQ(s7.matrix(2 * i, j), 0.0);
      }
    }
    const double y0 = 0.3 * c - (-1.2) * sn;
    const double y1 = 0.3 * sn + (-1.2) * c;
    const double tol = tolerance(6, 3.0, s7.q.norm());
    EXPECT_NEAR(s7.elementwise[2 * i], y0, tol);
    EXPECT_NEAR(s7.elementwise[2 * i + 1], y1, tol);
    EXPECT_NEAR(s7.by_matrix[2 * i], y0, tol);
    EXPECT_NEAR(s7.by_matrix[2 * i + 1], y1, tol);
  }
  EXPECT_EQ(s7.pair_of_theta, 0);  // θ = 1 = θ_0
  EXPECT_TRUE(s7.check.passed());
  EXPECT_DOUBLE_EQ(s7.check.tolerance * s7.check.scale, tolerance(6, 3.0, s7.q.norm()));
}

TEST(Explain, SeveralAxesStepIsWorkedByHand) {
  // Step 8 with the defaults (d = 8: 4 pairs, θ_i = 10000^(−i/4) = 1, 0.1, 0.01, 0.001): Qwen3-VL's interleave
  // (docs/multi-axis.md (A3)) of sections [2, 1, 1] gives t, h, w, t. q at (t, h, w) = (1, 2, 2), k at (1, 2, 5).
  const explain::Walkthrough w = explain::explain({});
  const explain::Step8& s8 = w.step8;
  EXPECT_EQ(s8.sections, (std::vector<int>{2, 1, 1}));
  EXPECT_EQ(s8.map.pair_axis, (std::vector<int>{0, 1, 2, 0}));
  const double theta[] = {1.0, 0.1, 0.01, 0.001};
  const double q_pos[] = {1, 2, 2, 1}, k_pos[] = {1, 2, 5, 1};  // the position each pair reads
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(s8.text_angles[i], 2.0 * theta[i], 4 * kEps) << i;  // a text token at M = 2: (2, 2, 2)
    EXPECT_NEAR(s8.query_angles[i], q_pos[i] * theta[i], 4 * kEps) << i;
    EXPECT_NEAR(s8.key_angles[i], k_pos[i] * theta[i], 4 * kEps) << i;
  }
  EXPECT_EQ(s8.differing, (std::vector<int>{2}));
  EXPECT_TRUE(s8.only_w);
  // (M8) per pair, Δ = the key's angle − the query's: (q·k) cos Δ + (q_b k_a − q_a k_b) sin Δ, with q·k = 0.65 and
  // q_b k_a − q_a k_b = 0.7 as in step 5: the pairs with Δ = 0 give 0.65 each, the w pair Δ = 3·0.01.
  const double by_hand = 3 * 0.65 + 0.65 * std::cos(0.03) + 0.7 * std::sin(0.03);
  EXPECT_NEAR(s8.score, by_hand, tolerance(8, 4.0, s8.k.norm() * 2));
  EXPECT_NEAR(s8.relative_form, by_hand, tolerance(8, 4.0, s8.k.norm() * 2));
  EXPECT_NEAR(by_hand, 2.620704, 5e-7);  // as rope explain --step 8 prints it
  EXPECT_EQ(s8.identity_off, 0.0);       // cos 0 = 1, sin 0 = 0 exactly
  EXPECT_TRUE(s8.text_check.passed());
  EXPECT_TRUE(s8.check.passed());
  // The text token's rotation is step 7's R_M q.
  for (int c = 0; c < 8; ++c) EXPECT_NEAR(s8.text_rotated[c], w.step7.by_matrix[c], tolerance(8, 2.0, 2.0)) << c;
}

TEST(Explain, SeveralAxesStepHasNoDifferingPairAtOnePosition) {
  explain::Setup s;
  s.n = s.m;
  const explain::Step8 s8 = explain::explain(s).step8;
  EXPECT_TRUE(s8.differing.empty());
  EXPECT_FALSE(s8.only_w);
  s = {};
  s.d = 2;  // one pair, sections [1, 0, 0]: it reads t, and two patches of one row never differ
  const explain::Step8 one = explain::explain(s).step8;
  EXPECT_EQ(one.map.pair_axis, (std::vector<int>{0}));
  EXPECT_TRUE(one.differing.empty());
  EXPECT_TRUE(one.check.passed());
}

TEST(Explain, PairOfThetaNamesThePairWithThatFrequency) {
  explain::Setup s;
  s.theta = std::pow(10000.0, -2.0 * 2 / 8);  // θ_2 of d = 8 as frequencies() computes it
  EXPECT_EQ(explain::explain(s).step7.pair_of_theta, 2);
  s.theta = 0.5;
  EXPECT_EQ(explain::explain(s).step7.pair_of_theta, -1);
}

TEST(Explain, EveryCheckPassesForRandomInputs) {
  // Rounding only: 1000 random setups, the 14 checks of every one pass.
  Random rng(kDefaultSeed);
  for (int trial = 0; trial < 1000; ++trial) {
    const explain::Setup s = random_setup(rng);
    const explain::Walkthrough w = explain::explain(s);
    for (const rope::Check& c : explain::checks(w, 0)) {
      EXPECT_TRUE(c.passed()) << "trial " << trial << ": " << c.difference << " > " << c.tolerance;
    }
  }
}

TEST(Explain, ChecksAreCountedPerStep) {
  const explain::Walkthrough w = explain::explain({});
  // q and k in steps 1–3; two forms and R_mᵀ in step 5; the text token and the two patches in step 8
  const std::size_t expected[] = {2, 2, 2, 1, 3, 1, 1, 2};
  ASSERT_EQ(explain::kSteps, 8);
  for (int step = 1; step <= explain::kSteps; ++step)
    EXPECT_EQ(explain::checks(w, step).size(), expected[step - 1]) << step;
  EXPECT_EQ(explain::checks(w, 0).size(), 14u);
  EXPECT_THROW(explain::checks(w, 9), InvalidArgument);
  // A check fails exactly when the difference exceeds the tolerance.
  rope::Check c;
  c.tolerance = 1e-15;
  c.difference = 1e-15;
  EXPECT_TRUE(c.passed());
  c.difference = 2e-15;
  EXPECT_FALSE(c.passed());
  c.difference = NAN;
  EXPECT_FALSE(c.passed());
}

TEST(Explain, RejectsInputsThatBreakARule) {
  const auto message = [](const explain::Setup& s) {
    try {
      explain::explain(s);
    } catch (const InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  explain::Setup s;
  s.q = {0, 0};
  EXPECT_THAT(message(s), HasSubstr("query q must not be the zero vector"));
  s = {};
  s.k = {2e6, 0};
  EXPECT_THAT(message(s), HasSubstr("key k must have finite components of size at most 1000000"));
  s = {};
  s.k = {NAN, 0};
  EXPECT_THAT(message(s), HasSubstr("key k must have finite components"));
  s = {};
  s.m = 2e7;
  EXPECT_THAT(message(s), HasSubstr("position M must be a finite number between -10000000 and 10000000"));
  s = {};
  s.n = INFINITY;
  EXPECT_THAT(message(s), HasSubstr("position N must be a finite number"));
  s = {};
  s.shift = 9.995e6;  // c alone is fine, N + c = 9 995 005 too; M + c = 10 005 000 with M = 1e4 is not
  s.m = 1e4;
  EXPECT_THAT(message(s), HasSubstr("M + shift must be"));
  s = {};
  s.theta = 0;
  EXPECT_THAT(message(s), HasSubstr("θ must be > 0 and at most 2π"));
  s.theta = 6.3;
  EXPECT_THAT(message(s), HasSubstr("θ must be > 0"));
  s = {};
  s.d = 18;
  EXPECT_THAT(message(s), HasSubstr("dimension d must be even and between 2 and 16 (got 18)"));
  s.d = 3;
  EXPECT_THAT(message(s), HasSubstr("(got 3)"));
  s = {};
  s.base = 1;
  EXPECT_THAT(message(s), HasSubstr("base must be a finite number > 1"));
  s = {};
  s.d = 2;
  s.theta = explain::kMaxTheta;
  s.q = {-1e6, 1e6};
  s.m = -1e7;
  s.n = 1e7;
  s.shift = 0;
  EXPECT_EQ(message(s), "no error");  // every bound is inclusive
}

}  // namespace
}  // namespace rope
