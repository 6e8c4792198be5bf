// rope/analysis/verify/axis_identities.hpp: (A5)-(A7) on the VL presets, and a contrast that must fail.
#include <cmath>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "rope/analysis/verify/axis_identities.hpp"
#include "rope/core/error.hpp"
#include "rope/models/model_config.hpp"
#include "rope/models/presets.hpp"
#include "rope/models/rope_spec.hpp"

namespace rope {
namespace {

TEST(AxisIdentities, HoldForChunkedAndInterleavedSections) {
  for (const char* name : {"qwen2-vl-7b", "qwen3-vl-8b"}) {
    const RopeSpec spec = make_spec(load_preset(name));
    const auto rows = verify_axes(spec, 300, 4096, 7);
    ASSERT_EQ(rows.size(), 5u) << name;  // relative, shift all, shift t, h, w
    for (const auto& r : rows) {
      EXPECT_EQ(r.samples, 300) << r.name;
      EXPECT_TRUE(r.check.passed()) << name << " " << r.name << " " << r.check.relative_error();
      EXPECT_GT(r.max_abs_error, 0.0) << r.name;  // real rounding, not a comparison of a thing with itself
    }
    EXPECT_EQ(rows[4].name, "axes: w alone");
    EXPECT_EQ(rows[4].equation, "(A7)");
  }
}

TEST(AxisIdentities, AWrongSpecForOneSideFails) {
  // The contrast: rotating k with the chunked map and q with the interleaved one (a port that mixes
  // the two) breaks (A5): the score then depends on the absolute positions.
  const RopeSpec chunked = make_spec(load_preset("qwen2-vl-7b"));
  RopeSpec mixed = chunked;
  mixed.axes = make_axis_map({{16, 24, 24}, SectionOrder::Interleaved}, 64);
  Eigen::VectorXd q = Eigen::VectorXd::Ones(128), k = Eigen::VectorXd::Ones(128);
  AxisPosition p, p2, c;
  p.count = p2.count = c.count = 3;
  p.value = {10, 20, 30, 0};
  p2.value = {15, 25, 35, 0};
  c.value = {0, 0, 1000, 0};
  const auto score = [&](const RopeSpec& a, const RopeSpec& b, const AxisPosition& x, const AxisPosition& y) {
    return spec_apply(a, q, x).dot(spec_apply(b, k, y));
  };
  AxisPosition p_c = p, p2_c = p2;
  p_c.value[2] += 1000;
  p2_c.value[2] += 1000;
  EXPECT_NEAR(score(chunked, chunked, p, p2), score(chunked, chunked, p_c, p2_c), 1e-9);
  EXPECT_GT(std::abs(score(mixed, chunked, p, p2) - score(mixed, chunked, p_c, p2_c)), 1.0);
}

TEST(AxisIdentities, AVisionMapsOffsetCancelsInTheDifference) {
  // Llama 4 (V4) counts patches from 1: R_p turns pair j by θ_j·(p_a(j) + 1). (A5)'s R_(p'−p) is the
  // rotation by the difference itself: <R_p q, R_p' k> turns q·k's pair j by θ_j·((p'+1) − (p+1)) = θ_j·(p'−p).
  const RopeSpec spec = make_spec(vision_model(VisionRope::Llama4, 16, 10000));
  ASSERT_TRUE(spec.axes && spec.axes->vision());
  ASSERT_EQ(spec.axes->position_offset, 1.0);
  const auto rows = verify_axes(spec, 300, 4096, 11);
  ASSERT_EQ(rows.size(), 4u);  // relative, shift all, h alone, w alone
  EXPECT_EQ(rows[2].name, "axes: h alone");
  EXPECT_EQ(rows[3].name, "axes: w alone");
  for (const auto& r : rows) {
    EXPECT_TRUE(r.check.passed()) << r.name << " " << r.check.relative_error();
    EXPECT_GT(r.max_abs_error, 0.0) << r.name;
  }
  // The negative control: the same comparison with the offset left in the difference's rotation (R_(p'−p)
  // turning by θ_j·(p'−p + 1)) is off by O(‖q‖‖k‖), far beyond the row's tolerance, so a verify that
  // carried the offset would fail the row; without it the two sides agree to rounding.
  Eigen::VectorXd q(16), k(16);
  for (int j = 0; j < 16; ++j) {
    q[j] = std::cos(0.7 * j + 0.3);
    k[j] = std::sin(1.3 * j + 0.1);
  }
  AxisPosition p, p2, diff;
  p.count = p2.count = diff.count = 2;
  p.value = {3, 17, 0, 0};
  p2.value = {20, 5, 0, 0};
  diff.value = {17, -12, 0, 0};
  RopeSpec without = spec;
  without.axes->position_offset = 0;
  const double score = spec_apply(spec, q, p).dot(spec_apply(spec, k, p2));
  const double scale = q.norm() * k.norm();
  EXPECT_LE(std::abs(score - q.dot(spec_apply(without, k, diff))), rows[0].check.tolerance * scale);
  EXPECT_GT(std::abs(score - q.dot(spec_apply(spec, k, diff))), 1e-2 * scale);
  EXPECT_GT(std::abs(score - q.dot(spec_apply(spec, k, diff))), 1e6 * rows[0].check.tolerance * scale);
  // Pixtral counts from 0: there the two coincide.
  const RopeSpec pixtral = make_spec(vision_model(VisionRope::Pixtral, 16, 10000));
  EXPECT_EQ(pixtral.axes->position_offset, 0.0);
  EXPECT_NEAR(spec_apply(pixtral, q, p).dot(spec_apply(pixtral, k, p2)), q.dot(spec_apply(pixtral, k, diff)),
              1e-13 * scale);
}

TEST(AxisIdentities, RefusesBadSettings) {
  const RopeSpec plain = make_spec(load_preset("qwen3-8b"));
  EXPECT_THROW(verify_axes(plain, 10, 100, 1), InvalidArgument);
  const RopeSpec spec = make_spec(load_preset("qwen3-vl-8b"));
  EXPECT_THROW(verify_axes(spec, 0, 100, 1), InvalidArgument);
  EXPECT_THROW(verify_axes(spec, 10, 0.5, 1), InvalidArgument);
}

}  // namespace
}  // namespace rope
