// A constant position offset measured from one vector's pair angles (rope/analysis/check/position_offset.hpp (P1)):
// vectors turned here at (p + δ)·θ with the angle in float32 (as HF computes it), the output rounded to float32 or
// bf16, give back δ; a vector at its own position, or at another base, gives none.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "rope/analysis/check/position_offset.hpp"
#include "support/expectation.hpp"

namespace rope {
namespace {

float bf16_of(float v) {
  std::uint32_t b;
  std::memcpy(&b, &v, 4);
  b = ((b + 0x7FFFu + ((b >> 16) & 1u)) >> 16) << 16;
  std::memcpy(&v, &b, 4);
  return v;
}

struct OffsetCase {
  const char* name;
  int d;
  double base;  ///< the dump's base (the expectation's is `expected_base`)
  double expected_base;
  double position;  ///< the position given
  long delta;       ///< the dump turned at position + delta
  bool bf16;        ///< the output rounded to bf16
  bool found;       ///< whether δ = delta is found
};

class PositionOffset : public testing::TestWithParam<OffsetCase> {};

TEST_P(PositionOffset, MeasuredFromOneVector) {
  const OffsetCase& c = GetParam();
  const RopeExpectation e = test::expect_half(c.d, 0, c.expected_base);
  std::mt19937 rng(7);
  std::normal_distribution<double> normal;
  std::vector<double> x(static_cast<std::size_t>(c.d)), y(x.size());
  for (double& v : x) v = static_cast<float>(normal(rng));
  const int h = c.d / 2;
  for (int i = 0; i < h; ++i) {
    const auto theta = static_cast<float>(std::pow(c.base, -2.0 * i / c.d));
    const float angle = static_cast<float>(c.position + static_cast<double>(c.delta)) * theta;
    const double co = std::cos(angle), si = std::sin(angle);
    const auto a = static_cast<std::size_t>(i), b = static_cast<std::size_t>(i + h);
    auto out = [&](double v) { return c.bf16 ? bf16_of(static_cast<float>(v)) : static_cast<float>(v); };
    y[a] = out(x[a] * co - x[b] * si);
    y[b] = out(x[a] * si + x[b] * co);
  }
  const std::optional<long> got = measure_position_offset(e, x.data(), y.data(), c.position);
  if (c.found) {
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(*got, c.delta);
  } else {
    EXPECT_FALSE(got.has_value()) << *got;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, PositionOffset,
                         testing::Values(OffsetCase{"forgotten_40000", 64, 1e4, 1e4, 0, 40000, false, true},
                                         OffsetCase{"row_start_5000", 128, 5e5, 5e5, 100, 5000, false, true},
                                         OffsetCase{"minus_three_bf16", 128, 1e4, 1e4, 7, -3, true, true},
                                         OffsetCase{"long_131072_bf16", 128, 1e6, 1e6, 3, 131072, true, true},
                                         OffsetCase{"far_1000000", 128, 5e5, 5e5, 17, 1000000, false, true},
                                         OffsetCase{"none", 64, 1e4, 1e4, 12, 0, false, false},
                                         OffsetCase{"other_base", 64, 2e4, 1e4, 12, 0, false, false}),
                         [](const testing::TestParamInfo<OffsetCase>& i) { return std::string(i.param.name); });

// Positions of several axes (M-RoPE) are not measured.
TEST(PositionOffset, NoneForSeveralAxes) {
  RopeExpectation e = test::expect_half(16);
  e.rope.axes = make_axis_map({{4, 2, 2}, SectionOrder::Chunked}, 8);
  const std::vector<double> x(16, 1.0);
  EXPECT_FALSE(measure_position_offset(e, x.data(), x.data(), 3).has_value());
}

}  // namespace
}  // namespace rope
