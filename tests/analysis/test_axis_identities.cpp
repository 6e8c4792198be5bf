// rope/analysis/axis_identities.hpp: (A5)-(A7) on the VL presets, and a contrast that must fail.
#include <cmath>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "rope/analysis/axis_identities.hpp"
#include "rope/core/error.hpp"
#include "rope/models/presets.hpp"

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

TEST(AxisIdentities, RefusesBadSettings) {
  const RopeSpec plain = make_spec(load_preset("qwen3-8b"));
  EXPECT_THROW(verify_axes(plain, 10, 100, 1), InvalidArgument);
  const RopeSpec spec = make_spec(load_preset("qwen3-vl-8b"));
  EXPECT_THROW(verify_axes(spec, 0, 100, 1), InvalidArgument);
  EXPECT_THROW(verify_axes(spec, 10, 0.5, 1), InvalidArgument);
}

}  // namespace
}  // namespace rope
