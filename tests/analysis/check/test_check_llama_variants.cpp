// The variants of rope check that name llama.cpp's own ways to get RoPE wrong (rope/analysis/check/check.hpp):
// YaRN run without ext_factor, the rotary dimension halved, IMROPE's fourth-slot pairs unrotated, and "before"
// read after an in-place RoPE. The conformance tier plants each through the real ggml kernel
// (tests/conformance/ggml_rope_cases.cpp); here, synthetic float64 dumps rotated by
// tests/analysis/dumps/test_dump_fixtures.hpp's independent complex form.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "analysis/dumps/test_dump_fixtures.hpp"
#include "rope/analysis/check/check.hpp"
#include "rope/core/constants.hpp"
#include "support/expectation.hpp"

namespace rope {
namespace {

using test::expect_half;
using test::random_dump;
using test::range_positions;
using test::rotate_dump;

std::string named(const DumpVectors& x, const DumpVectors& y, const RopeExpectation& e,
                  std::string* message = nullptr) {
  const CheckReport r = check_dump(x, y, range_positions(x.seq), e);
  EXPECT_FALSE(r.comparison.passed());
  if (message) *message = r.diagnosis.message.en;
  return r.diagnosis.matches ? to_string(*r.diagnosis.matches) : "none: " + r.diagnosis.message.en;
}

TEST(CheckLlamaVariants, YarnWithoutExtFactorIsLinearInterpolationWithoutMagnitude) {
  const DumpVectors x = random_dump(24, 2, 32);
  RopeExpectation yarn = expect_half(32, 32, kDefaultBase);
  yarn.rope.config.type = ScalingType::Yarn, yarn.yarn_factor = 4,
  yarn.rope.params.attention_factor = 1.0 + 0.1 * std::log(4.0);
  for (int j = 8; j < 16; ++j)
    yarn.rope.params.inv_freq[j] /= 4;  // the interpolated pairs of some YaRN (the ramp's shape does not matter)
  std::vector<double> linear(16);
  for (int j = 0; j < 16; ++j) linear[static_cast<std::size_t>(j)] = std::pow(kDefaultBase, -2.0 * j / 32) / 4;
  std::string message;
  EXPECT_EQ(named(x, rotate_dump(x, true, 32, kDefaultBase, 1.0, 0.0, {}, linear), yarn, &message),
            "yarn-without-ext-factor");
  EXPECT_THAT(message, ::testing::HasSubstr("linear interpolation by 4 at every pair"));
  yarn.yarn_factor = 0;  // not YaRN: no such variant
  EXPECT_THAT(named(x, rotate_dump(x, true, 32, kDefaultBase, 1.0, 0.0, {}, linear), yarn),
              ::testing::StartsWith("none"));
}

TEST(CheckLlamaVariants, RotaryDimensionHalvedOnAFullRotaryModel) {
  const DumpVectors x = random_dump(24, 2, 32);
  std::string message;
  EXPECT_EQ(named(x, rotate_dump(x, true, 16, 1e6), expect_half(32, 32, 1e6), &message), "rotary-dim-halved");
  EXPECT_THAT(message, ::testing::HasSubstr("rotary dimension of 16 instead of 32"));
}

TEST(CheckLlamaVariants, ImropeFourthSlotPairsUnrotatedAgainstHuggingFacesMap) {
  // Qwen3-VL: sections [24, 20, 20] interleaved (A3); llama.cpp's IMROPE feeds pairs 61 and 62 from the fourth slot.
  RopeExpectation e = expect_half(128, 128, 5e6);
  e.rope.axes = make_axis_map({{24, 20, 20}, SectionOrder::Interleaved}, 64);
  EXPECT_EQ(llama_cpp_unrotated_pairs(e), (std::vector<int>{61, 62}));
  const DumpVectors x = random_dump(24, 1, 128);
  std::vector<double> theta(e.theta().data(), e.theta().data() + 64);
  theta[61] = theta[62] = 0;
  std::string message;
  EXPECT_EQ(named(x, rotate_dump(x, true, 128, 5e6, 1.0, 0.0, {}, theta), e, &message), "e-slot-unrotated");
  EXPECT_THAT(message, ::testing::HasSubstr("pairs 61, 62 left unrotated"));
  e.rope.axes = make_axis_map({{16, 24, 24}, SectionOrder::Chunked}, 64);  // Qwen2-VL's map covers every pair
  EXPECT_TRUE(llama_cpp_unrotated_pairs(e).empty());
}

TEST(CheckLlamaVariants, FourthSlotVariantOnlyWhereThePositionsFillIt) {
  // llama.cpp's own IMROPE map (a GGUF's), d = 8, sections [1, 1, 1, 1]: pair 3 reads the fourth slot e. One number
  // per position is (p, p, p, 0) already, so "e taken as 0" is the expectation itself and is not tried; positions
  // with a fourth component other than 0 make it a variant of its own.
  RopeExpectation e = expect_half(8, 8);
  e.rope.axes = make_axis_map({{1, 1, 1, 1}, SectionOrder::GgmlImrope}, 4);
  ASSERT_EQ(ggml_fourth_slot_pairs(e), (std::vector<int>{3}));
  const DumpVectors x = random_dump(6, 2, 8);
  const DumpVectors y = rotate_dump(x, false, 8, kDefaultBase);  // the other layout: fails
  const auto tried = [&](const std::vector<AxisPosition>& positions) {
    const CheckReport r = check_dump(x, y, positions, e);
    EXPECT_FALSE(r.comparison.passed());
    std::vector<std::string> kinds;
    for (const auto& [kind, c] : r.variants) kinds.emplace_back(to_string(kind));
    return kinds;
  };
  EXPECT_THAT(tried(positions_as_axes(range_positions(x.seq), {})),
              ::testing::Not(::testing::Contains("e-slot-unrotated")));
  std::vector<AxisPosition> four;
  for (int b = 0; b < 6; ++b) four.push_back(parse_axis_position(fmt::format("{0},{0},{0},{1}", b, b % 2), "p"));
  EXPECT_THAT(tried(four), ::testing::Contains("e-slot-unrotated"));
  four.assign(6, parse_axis_position("3,3,3,0", "p"));
  EXPECT_THAT(tried(four), ::testing::Not(::testing::Contains("e-slot-unrotated")));
}

TEST(CheckLlamaVariants, LongRopesOtherListIsNamed) {
  // Phi-3: rope takes the long factors for positions past the original context; llama.cpp with a short context
  // took the short ones.
  const DumpVectors x = random_dump(24, 2, 32);
  RopeExpectation e = expect_half(32, 32, kDefaultBase);
  e.rope.config.type = ScalingType::Linear;
  Eigen::VectorXd short_theta = e.theta();
  for (int j = 0; j < 16; ++j) e.rope.params.inv_freq[j] /= 1.0 + 0.25 * j, short_theta[j] /= 1.0 + 0.01 * j;
  e.longrope_other = RopeExpectation::OtherList{short_theta, true};
  const std::vector<double> theta(short_theta.data(), short_theta.data() + 16);
  std::string message;
  EXPECT_EQ(named(x, rotate_dump(x, true, 32, kDefaultBase, 1.0, 0.0, {}, theta), e, &message), "longrope-other-list");
  EXPECT_THAT(message, ::testing::HasSubstr("matches LongRoPE's short factors"));
}

TEST(CheckLlamaVariants, BeforeEqualsAfterIsSaidInWords) {
  const DumpVectors x = random_dump(24, 2, 32);
  std::string message;
  EXPECT_EQ(named(x, x, expect_half(32, 32, kDefaultBase), &message), "before-equals-after");
  EXPECT_THAT(message, ::testing::HasSubstr("the dump after RoPE equals the dump before it"));
  EXPECT_THAT(message, ::testing::HasSubstr("in-place RoPE"));
}

}  // namespace
}  // namespace rope
