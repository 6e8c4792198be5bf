// The expectation of a dump from a model's RoPE (rope/analysis/check/expectation.hpp), and the float64 reference
// (expected_dump) against values worked out by hand.
#include <cmath>
#include <gtest/gtest.h>

#include "rope/analysis/check/expectation.hpp"
#include "rope/core/error.hpp"

namespace rope {
namespace {

TEST(Expectation, PlainRopeIsRotateHalfUnlessGiven) {
  RopeOverrides o;
  o.head_dim = 8;
  ExpectationRequest q;
  q.head_dim = 8;
  RopeExpectation e = expectation_from_rope(resolve_model_rope({}, o), q);
  EXPECT_EQ(e.rope.layout, Layout::Half);
  EXPECT_EQ(e.rotary_dim(), 8);
  EXPECT_DOUBLE_EQ(e.theta()[1], std::pow(10000.0, -2.0 / 8));
  q.layout = Layout::Interleaved;
  EXPECT_EQ(expectation_from_rope(resolve_model_rope({}, o), q).rope.layout, Layout::Interleaved);
  q.gguf = true;
  EXPECT_EQ(expectation_from_rope(resolve_model_rope({}, o), q).angles, AngleModel::Ggml);
  q.head_dim = 4;  // the rotary dimension 8 does not fit
  EXPECT_THROW(expectation_from_rope(resolve_model_rope({}, o), q), InvalidArgument);
}

TEST(Expectation, ModelHeadDimMustBeTheDumps) {
  ExpectationRequest q;
  q.head_dim = 64;
  q.from_model = true;
  EXPECT_THROW(expectation_from_rope(resolve_model_rope({"llama-3.1-8b", ""}, {}), q), InvalidArgument);
  q.head_dim = 128;
  const RopeExpectation e = expectation_from_rope(resolve_model_rope({"llama-3.1-8b", ""}, {}), q);
  EXPECT_TRUE(e.scaled());
  EXPECT_EQ(e.rope.layout, Layout::Half);
  EXPECT_EQ(e.base(), 500000.0);
}

TEST(Expectation, ExpectedDumpByHand) {
  RopeExpectation e;
  e.rope.layout = Layout::Half;
  e.rope.head_dim = 6;
  e.set_theta(Eigen::Vector2d(1.0, 0.5));  // rotary dimension 4, channels 4 and 5 pass through
  e.rope.params.attention_factor = 2.0;
  DumpVectors x;
  x.seq = 2;
  x.d = 6;
  x.values = {1, 0, 0, 1, 7, 8,   // position 0: unchanged but for the factor
              1, 0, 0, 1, 7, 8};  // position 3: pair 0 = (ch 0, ch 2) by 3 rad, pair 1 = (ch 1, ch 3) by 1.5 rad
  const DumpVectors y = expected_dump(x, {AxisPosition::single(0), AxisPosition::single(3)}, e);
  EXPECT_EQ(y.dtype, DType::F64);
  EXPECT_DOUBLE_EQ(y.value(0, 0, 0), 2.0);
  EXPECT_DOUBLE_EQ(y.value(0, 0, 4), 7.0);
  EXPECT_DOUBLE_EQ(y.value(1, 0, 0), 2 * std::cos(3.0));
  EXPECT_DOUBLE_EQ(y.value(1, 0, 2), 2 * std::sin(3.0));
  EXPECT_DOUBLE_EQ(y.value(1, 0, 1), -2 * std::sin(1.5));
  EXPECT_DOUBLE_EQ(y.value(1, 0, 3), 2 * std::cos(1.5));
  EXPECT_DOUBLE_EQ(y.value(1, 0, 5), 8.0);
  EXPECT_THROW(expected_dump(x, {AxisPosition::single(0)}, e), InvalidArgument);
}

}  // namespace
}  // namespace rope
