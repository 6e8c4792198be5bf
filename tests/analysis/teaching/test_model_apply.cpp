// rope/analysis/teaching/model_apply.hpp: rope apply's three forms of (S19) on one vector.
#include <gtest/gtest.h>

#include <cmath>

#include "rope/analysis/teaching/model_apply.hpp"
#include "rope/core/error.hpp"
#include "rope/models/resolve.hpp"

namespace rope {
namespace {

RopeSpec plain_spec(int d, double base, Layout layout = Layout::Interleaved) {
  RopeOverrides o;
  o.head_dim = d;
  o.base = base;
  o.default_layout = layout;
  return resolve_model_rope({}, o).spec;
}

TEST(ModelApply, PlainRopeRotatesEachPairByMTheta) {
  // d = 4, base 100: θ = (1, 0.1). Pair 0 of (1, 0, 0, 1) at m = 2 turns by 2 rad, pair 1 by 0.2 rad.
  const Eigen::Vector4d x(1, 0, 0, 1);
  const ModelApply r = model_apply(plain_spec(4, 100.0), x, AxisPosition::single(2.0));
  EXPECT_EQ(r.offset, 0);
  EXPECT_DOUBLE_EQ(r.angle[0], 2.0);
  EXPECT_DOUBLE_EQ(r.angle[1], 0.2);
  EXPECT_NEAR(r.by_elementwise[0], std::cos(2.0), 1e-15);
  EXPECT_NEAR(r.by_elementwise[1], std::sin(2.0), 1e-15);
  EXPECT_NEAR(r.by_elementwise[2], -std::sin(0.2), 1e-15);
  EXPECT_NEAR(r.by_elementwise[3], std::cos(0.2), 1e-15);
  EXPECT_TRUE(r.check.passed());
  EXPECT_LE((r.by_matrix - r.by_complex).cwiseAbs().maxCoeff(), 4e-16);
  EXPECT_FALSE(r.float32.has_value());
}

TEST(ModelApply, PartialRotaryPassesTheOtherChannelsThrough) {
  RopeOverrides o;
  o.head_dim = 8;
  o.partial_rotary_factor = 0.5;
  const RopeSpec spec = resolve_model_rope({}, o).spec;
  Eigen::VectorXd x(8);
  x << 1, 2, 3, 4, 5, 6, 7, 8;
  const ModelApply r = model_apply(spec, x, AxisPosition::single(3.0));
  EXPECT_EQ(r.by_matrix.size(), 8);
  EXPECT_EQ(r.by_matrix.tail(4), x.tail(4));  // channels 4 … 7 do not rotate
  EXPECT_NE(r.by_matrix.head(4), x.head(4));
  EXPECT_THROW(model_apply(spec, Eigen::VectorXd::Ones(6), AxisPosition::single(1.0)), InvalidArgument);
}

TEST(ModelApply, XposScalesEveryPairOfTheQueryUp) {
  const Eigen::Vector4d x(1, 0, 1, 0);
  const ModelApply none = model_apply(plain_spec(4, 10000.0), x, AxisPosition::single(100.0));
  const ModelApply q =
      model_apply(plain_spec(4, 10000.0), x, AxisPosition::single(100.0), XposSetting{512, XposRole::Query});
  EXPECT_EQ(none.xpos_scale, Eigen::Vector2d::Ones());
  for (int i = 0; i < 2; ++i) {
    // (X1), (X2): ζ_i = (2i/d + 0.4)/1.4, the query's pair times ζ_i^(m/s).
    const double zeta = (2.0 * i / 4 + 0.4) / 1.4;
    EXPECT_NEAR(q.xpos_scale[i], std::pow(zeta, 100.0 / 512), 1e-15);
    EXPECT_NEAR(q.by_elementwise[2 * i], none.by_elementwise[2 * i] * q.xpos_scale[i], 1e-15);
  }
}

TEST(ModelApply, TheScaledModelsAttentionFactorMultipliesTheRotatedChannels) {
  RopeOverrides o;
  o.head_dim = 8;
  o.scaling = "yarn";
  o.factor = 4.0;
  o.original_max_position_embeddings = 4096;
  const RopeSpec spec = resolve_model_rope({}, o).spec;
  const double a = 0.1 * std::log(4.0) + 1.0;  // YaRN's default attention factor (S15)
  EXPECT_NEAR(spec.attention_factor(), a, 1e-15);
  const Eigen::VectorXd x = Eigen::VectorXd::LinSpaced(8, 1, 8);
  const ModelApply r = model_apply(spec, x, AxisPosition::single(0.0));
  EXPECT_NEAR((r.by_elementwise - a * x).cwiseAbs().maxCoeff(), 0.0, 1e-14);  // m = 0: no turn, only a
}

}  // namespace
}  // namespace rope
