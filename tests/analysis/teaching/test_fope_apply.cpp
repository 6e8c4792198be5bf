// FoPE's scaled rotations for rope apply and rope matrix (analysis/teaching/fope_apply.hpp, docs/multi-axis.md §7
// (F2)–(F4)), on coefficients written here: key-value head h's matrix is (h + 1) times the identity, so that its kept
// pairs are plain RoPE's rotations scaled by h + 1, or one matrix that mixes the two kept frequencies, whose cos′ and
// sin′ are summed here by hand. The padded pairs pass through; the three forms agree with each other and with the
// matrix. The engines' own computation is tests/reference/fope.py's (reference.fope, tests/cli/check_fope.py).
#include "rope/analysis/teaching/fope_apply.hpp"

#include <cmath>
#include <gtest/gtest.h>
#include <memory>

#include "rope/core/constants.hpp"
#include "support/expectation.hpp"

namespace rope {
namespace {

constexpr int kFopeApplyD = 8, kFopeApplyKept = 2;

RopeSpec fope_apply_spec() {
  RopeSpec spec = test::expect_half(kFopeApplyD).rope;
  spec.rotary_dim = kFopeApplyD;
  return spec;
}

/// Two key-value heads, head h's 2 × 2 matrices (h + 1)·I; or (mix) one matrix [[1, 0.5], [0.25, 2]] for cos and its
/// transpose for sin.
FopeHead fope_apply_head(long kv_head, bool mix) {
  FopeCoefficients c;
  c.kept = kFopeApplyKept, c.heads = mix ? 1 : 2;
  for (long h = 0; h < c.heads; ++h)
    for (int D = 0; D < kFopeApplyKept; ++D)
      for (int j = 0; j < kFopeApplyKept; ++j) {
        const double m[2][2] = {{1, 0.5}, {0.25, 2}};
        c.cos.push_back(mix ? m[D][j] : (D == j ? h + 1.0 : 0.0));
        c.sin.push_back(mix ? m[j][D] : (D == j ? h + 1.0 : 0.0));
      }
  FopeHead head;
  head.coefficients = std::make_shared<const FopeCoefficients>(c);
  head.kv_head = kv_head, head.kv_heads = 2, head.matrix = mix ? 0 : kv_head;
  return head;
}

struct FopeApplyCase {
  long kv_head;
  bool mix;
  double m;
};

class FopeApplyTable : public ::testing::TestWithParam<FopeApplyCase> {};

TEST_P(FopeApplyTable, PairsAreTheHeadsScaledRotations) {
  const FopeApplyCase& c = GetParam();
  const RopeSpec spec = fope_apply_spec();
  const FopeBlocks b = fope_blocks(spec, fope_apply_head(c.kv_head, c.mix), c.m);
  ASSERT_EQ(b.cos.size(), kFopeApplyD / 2);
  EXPECT_EQ(b.kept, kFopeApplyKept);
  const double t0 = c.m * spec.params.inv_freq[0], t1 = c.m * spec.params.inv_freq[1];
  for (int j = 0; j < kFopeApplyKept; ++j) {
    double cj = 0, sj = 0;
    if (c.mix) {  // cos′_j = Σ_D cos(m·θ_D)·C_cos[D, j]
      const double mc[2][2] = {{1, 0.5}, {0.25, 2}};
      cj = std::cos(t0) * mc[0][j] + std::cos(t1) * mc[1][j];
      sj = std::sin(t0) * mc[j][0] + std::sin(t1) * mc[j][1];
    } else {
      const double phi = j == 0 ? t0 : t1;
      cj = (c.kv_head + 1.0) * std::cos(phi), sj = (c.kv_head + 1.0) * std::sin(phi);
      EXPECT_NEAR(b.scale[j], c.kv_head + 1.0, 1e-15 * (c.kv_head + 1.0));
      EXPECT_NEAR(std::remainder(b.angle[j] - phi, 2 * kPi), 0.0, 1e-12);
    }
    EXPECT_NEAR(b.cos[j], cj, 1e-15 * 4) << j;
    EXPECT_NEAR(b.sin[j], sj, 1e-15 * 4) << j;
    EXPECT_DOUBLE_EQ(b.scale[j], std::hypot(cj, sj));
  }
  for (int j = kFopeApplyKept; j < kFopeApplyD / 2; ++j) {  // (F3): padded, cos′ 1 and sin′ 0
    EXPECT_EQ(b.cos[j], 1.0);
    EXPECT_EQ(b.sin[j], 0.0);
    EXPECT_EQ(b.scale[j], 1.0);
    EXPECT_EQ(b.angle[j], 0.0);
  }
  Eigen::VectorXd x(kFopeApplyD);
  x << 1, -2, 0.5, 3, -1, 0.25, 2, -0.75;
  const FopeApply a = fope_apply(spec, b, x, c.m);
  EXPECT_TRUE(a.check.passed()) << a.check.difference;
  for (int j = 0; j < kFopeApplyD / 2; ++j) {  // pair (j, j + d/2): (x_a·cos′ − x_b·sin′, x_b·cos′ + x_a·sin′)
    const double xa = x[j], xb = x[j + kFopeApplyD / 2];
    EXPECT_NEAR(a.by_elementwise[j], xa * b.cos[j] - xb * b.sin[j], 1e-14);
    EXPECT_NEAR(a.by_elementwise[j + kFopeApplyD / 2], xb * b.cos[j] + xa * b.sin[j], 1e-14);
  }
  const Eigen::MatrixXd r = fope_matrix(spec, b, kFopeApplyD);
  EXPECT_LE((r * x - a.by_elementwise).cwiseAbs().maxCoeff(), 1e-14);
  EXPECT_EQ(r(0, 1), 0.0);  // half layout: pair 0 is channels 0 and 4
  EXPECT_EQ(r(0, 4), -b.sin[0]);
  EXPECT_EQ(r(4, 0), b.sin[0]);
}

INSTANTIATE_TEST_SUITE_P(Heads, FopeApplyTable,
                         ::testing::Values(FopeApplyCase{0, false, 3}, FopeApplyCase{1, false, 3},
                                           FopeApplyCase{1, false, -17.5}, FopeApplyCase{0, true, 5},
                                           FopeApplyCase{0, true, 100000}));

}  // namespace
}  // namespace rope
