// rope/analysis/verify/xpos.hpp: (X1)-(X5) against hand values and tests/reference/xpos.py, and the identities.
#include <cmath>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <map>
#include <string>

#include "rope/analysis/calculators/decay.hpp"
#include "rope/analysis/verify/xpos.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "support/reference_data.hpp"

namespace rope {
namespace {

TEST(Xpos, ZetaByHand) {
  // (X1): ζ_0 = γ/(1 + γ) = 0.4/1.4 = 2/7 whatever d; d = 128: ζ_63 = (126 + 51.2)/179.2 = 177.2/179.2.
  // Tolerance: one rounding of a quotient, a few ulp.
  const Eigen::VectorXd z = xpos_zeta(128);
  ASSERT_EQ(z.size(), 64);
  EXPECT_NEAR(z[0], 2.0 / 7.0, 1e-16);
  EXPECT_NEAR(z[0], 0.2857142857142857, 1e-16);
  EXPECT_NEAR(z[63], 177.2 / 179.2, 2e-16);
  EXPECT_NEAR(z[32], (64 + 51.2) / 179.2, 2e-16);
  EXPECT_NEAR(xpos_zeta(2)[0], 2.0 / 7.0, 1e-16);
  EXPECT_THROW(xpos_zeta(7), InvalidArgument);
  EXPECT_THROW(xpos_zeta(0), InvalidArgument);
}

TEST(Xpos, ScaleOfQueryAndKeyAreReciprocal) {
  // (X2): at n = s the query's scale is ζ itself, the key's 1/ζ; at n = 0 both are 1 exactly.
  const Eigen::VectorXd z = xpos_zeta(16);
  const Eigen::VectorXd q = xpos_scale(16, 512, 512, XposRole::Query), k = xpos_scale(16, 512, 512, XposRole::Key);
  for (int j = 0; j < 8; ++j) {
    EXPECT_NEAR(q[j], z[j], 1e-16);
    EXPECT_NEAR(q[j] * k[j], 1.0, 4e-16);
    EXPECT_EQ(xpos_scale(16, 0, 512, XposRole::Key)[j], 1.0);
  }
  // ζ_0^2 at n = 2s: (2/7)^2 = 4/49.
  EXPECT_NEAR(xpos_scale(16, 1024, 512, XposRole::Query)[0], 4.0 / 49.0, 1e-16);
  EXPECT_THROW(xpos_scale(16, 1, 0, XposRole::Query), InvalidArgument);
  EXPECT_THROW(xpos_scale(16, 1, -512, XposRole::Query), InvalidArgument);
  EXPECT_THROW(xpos_scale(16, 1e6, 512, XposRole::Query), InvalidArgument);  // |n|/s over kMaxXposPower
}

TEST(Xpos, ApplyEqualsTheNumpyPortToOneInATrillion) {
  // tests/reference/xpos.py: flash-attn's construction (scale ** power, cos·scale for q, cos/scale for
  // k), d = 16, base 10000, both layouts, s = 512 and 64, n = 0, 1, 7, 100, 1000, −37.5. Tolerance 1e-12
  // relative to ‖x‖·max scale: both sides round cos/sin (an ulp apart between libm and NumPy) and the
  // power (relative error ~ε·|n/s·ln ζ| < 2e-14 at n/s = 15.6).
  const test::ReferenceCsv ref = test::read_reference("xpos_apply.csv");
  const auto cases = test::group_rows(ref, 4);
  ASSERT_EQ(cases.size(), 48u);
  const Eigen::VectorXd theta = frequencies(16, 10000);
  double worst = 0;
  for (const auto& [key, rows] : cases) {
    const auto& first = *rows.front();
    const Layout layout = first.at(0) == "half" ? Layout::Half : Layout::Interleaved;
    const XposRole role = first.at(1) == "q" ? XposRole::Query : XposRole::Key;
    const double n = std::stod(first.at(2)), s = std::stod(first.at(3));
    ASSERT_EQ(rows.size(), 16u) << key;
    const Eigen::VectorXd x = test::group_column(rows, 5), want = test::group_column(rows, 6);
    const Eigen::VectorXd got = apply_xpos(x, theta, n, s, role, layout);
    const double err = (got - want).cwiseAbs().maxCoeff() / (x.norm() * xpos_scale(16, n, s, role).maxCoeff());
    worst = std::max(worst, err);
    EXPECT_LE(err, 1e-12) << key;
  }
  RecordProperty("worst_relative_error", fmt::format("{:.3g}", worst));
}

TEST(Xpos, ScoresEqualTheNumpyPortWithFlashAttnCentre) {
  // xpos_scores.csv: the scores computed with flash-attn's centre L/2 = 1024; rope measures n from 0: the
  // centre cancels in q·k (X3). Tolerance 1e-12 of ‖q‖‖k‖ times the largest factor ζ^((m−n)/s).
  const test::ReferenceCsv ref = test::read_reference("xpos_scores.csv");
  ASSERT_EQ(ref.rows.size(), 8u);
  const Eigen::VectorXd theta = frequencies(64, 10000);
  Eigen::VectorXd q(64), k(64);
  for (int j = 0; j < 64; ++j) {
    q[j] = std::sin(1.3 * j + 0.1);
    k[j] = std::cos(0.4 * j - 0.2) + 0.02 * j;
  }
  for (const auto& row : ref.rows) {
    const double m = std::stod(row.at(0)), n = std::stod(row.at(1)), want = std::stod(row.at(2));
    const double got = apply_xpos(q, theta, m, 512, XposRole::Query, Layout::Half)
                           .dot(apply_xpos(k, theta, n, 512, XposRole::Key, Layout::Half));
    const double size = q.norm() * k.norm() * std::max(1.0, std::pow(2.0 / 7.0, (m - n) / 512));
    EXPECT_LE(std::abs(got - want) / size, 1e-12) << m << "," << n;
  }
}

TEST(Xpos, BoundEqualsTheNumpyPort) {
  // xpos_bound.csv: (X5) by the direct double loop, d = 128, base 10000, s = 512; f_ζ(0) = (d/2 + 1)/2.
  // Tolerance 1e-12 relative: sums of 64 terms of size ≤ 1 with cos/sin an ulp apart.
  const test::ReferenceCsv ref = test::read_reference("xpos_bound.csv");
  const Eigen::VectorXd got = xpos_bound(frequencies(128, 10000), 512, ref.column(0));
  const Eigen::VectorXd want = ref.column(1);
  EXPECT_EQ(got[0], 32.5);
  for (Eigen::Index i = 0; i < want.size(); ++i)
    EXPECT_LE(std::abs(got[i] - want[i]) / want[i], 1e-12) << ref.column(0)[i];
}

TEST(Xpos, DecayCurvesByHand) {
  // d = 128, s = 512. At t = s: ζ_0^1 = 2/7, ζ_63 = 177.2/179.2, the mean (1/64)Σ(2j + 51.2)/179.2 =
  // (63 + 51.2)/179.2; at t = 2s: (2/7)^2 = 4/49. f(0) = f_ζ(0) = 32.5, both curves 1 at t = 0. The bound
  // column is decay_bound / 32.5, the xPos bound that of xpos_bound.csv / 32.5. Tolerance: a few ulp of
  // a power, a mean of 64 terms and a quotient.
  const Eigen::VectorXd theta = frequencies(128, 10000);
  Eigen::VectorXd t(4);
  t << 0, 512, 1024, 2048;
  const XposDecay c = xpos_decay(theta, 512, t);
  EXPECT_EQ(c.bound[0], 1.0);
  EXPECT_EQ(c.xpos_bound[0], 1.0);
  EXPECT_NEAR(c.zeta_first[1], 2.0 / 7.0, 1e-16);
  EXPECT_NEAR(c.zeta_last[1], 177.2 / 179.2, 2e-16);
  EXPECT_NEAR(c.zeta_mean[1], 114.2 / 179.2, 1e-15);
  EXPECT_NEAR(c.zeta_first[2], 4.0 / 49.0, 1e-16);
  EXPECT_NEAR(c.xpos_bound[1], 3.8844338219680776 / 32.5, 1e-13);  // xpos_bound.csv at 512
  EXPECT_NEAR(c.xpos_bound[3], 1.2075708647229242 / 32.5, 1e-13);  // and at 2048
  EXPECT_NEAR(c.bound[3], decay_bound(theta, 2048.0) / 32.5, 1e-15);
}

TEST(Xpos, IdentitiesHoldAndThePlainIdentityFails) {
  for (const Layout layout : {Layout::Half, Layout::Interleaved}) {
    const XposIdentities r = verify_xpos(frequencies(64, 10000), layout, 512, 300, 4096, 11);
    ASSERT_EQ(r.rows.size(), 3u);
    for (const auto& row : r.rows) {
      EXPECT_EQ(row.samples, 300);
      EXPECT_TRUE(row.check.passed()) << row.name << " " << row.check.relative_error();
      EXPECT_GT(row.max_abs_error, 0.0) << row.name;  // real rounding, not a thing compared with itself
    }
    // Without the scale the relative identity (M8) misses by far more than rounding: ζ_0^(±n/s) with
    // |m − n| up to 4096 changes the score by factors up to (7/2)^8.
    EXPECT_TRUE(r.contrast.expected_to_fail);
    EXPECT_FALSE(r.contrast.check.passed());
    EXPECT_GT(r.contrast.check.relative_error(), 1e-3);
  }
  EXPECT_THROW(verify_xpos(frequencies(64, 10000), Layout::Half, 512, 10, 1e6, 1), InvalidArgument);  // 2·1e6/512 > 500
  EXPECT_THROW(verify_xpos(frequencies(64, 10000), Layout::Half, 0, 10, 100, 1), InvalidArgument);
}

}  // namespace
}  // namespace rope
