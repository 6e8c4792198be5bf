// rope/models/mrope_positions.hpp: (Q1)-(Q4) by hand; the NumPy port is compared in test_cmd_positions.cpp.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "rope/core/error.hpp"
#include "rope/models/mrope_positions.hpp"

namespace rope {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

std::array<long, 3> at(const std::vector<TokenPosition>& ids, std::size_t k) { return ids.at(k).thw; }

TEST(MropePositions, TextImageTextByHand) {
  const std::vector<TokenPosition> ids =
      rope_index({{SegmentKind::Text, 2, {}}, {SegmentKind::Image, 0, {1, 4, 4}}, {SegmentKind::Text, 1, {}}}, {});
  ASSERT_EQ(ids.size(), 2u + 4u + 1u);
  EXPECT_EQ(at(ids, 1), (std::array<long, 3>{1, 1, 1}));  // (Q1)
  EXPECT_EQ(at(ids, 2), (std::array<long, 3>{2, 2, 2}));  // (Q2): frame 0, row 0, column 0 from s = 2
  EXPECT_EQ(at(ids, 5), (std::array<long, 3>{2, 3, 3}));  // row 1, column 1
  EXPECT_EQ(at(ids, 6), (std::array<long, 3>{4, 4, 4}));  // (Q4): max 3 + 1
  EXPECT_EQ(ids[3].kind, SegmentKind::Image);
  EXPECT_EQ(ids[6].segment, 2);
}

TEST(MropePositions, QwenTwoFiveVlScalesVideoTime) {
  // (Q3): τ(t) = ⌊t · 0.5 · 2⌋ = t for frames 0 … 3 of a 4x2x2 video; with 4 tokens/s τ = 2t; an image's
  // time index stays 0 (second_per_grid 0 for images in HF's Qwen2.5-VL get_rope_index).
  PositionRules r;
  r.tokens_per_second = 4.0;
  r.second_per_grid = 0.5;
  const auto ids = rope_index({{SegmentKind::Video, 0, {4, 2, 2}}}, r);
  ASSERT_EQ(ids.size(), 4u);
  EXPECT_EQ(at(ids, 3), (std::array<long, 3>{6, 0, 0}));
  const auto image = rope_index({{SegmentKind::Image, 0, {2, 2, 2}}}, r);
  EXPECT_EQ(at(image, 1), (std::array<long, 3>{0, 0, 0}));
}

TEST(MropePositions, GridsAreParsedStrictly) {
  EXPECT_EQ(parse_grid("1x4x6", "--image"), (std::array<long, 3>{1, 4, 6}));
  for (const char* bad : {"1x4", "1x4x6x2", "x4x6", "1x4x", "1.5x4x6", "1*4*6", ""}) {
    EXPECT_THROW(parse_grid(bad, "--image"), InvalidArgument) << bad;
  }
  EXPECT_THAT([] { parse_grid("1x\x1bx2", "--image"); }, ThrowsMessage<InvalidArgument>(HasSubstr("--image")));
  EXPECT_THAT([] { parse_grid("1x70000x2", "--video"); },
              ThrowsMessage<InvalidArgument>(
                  HasSubstr("--video: every side of the grid must be between 1 and 65536 (got 70000)")));
}

}  // namespace
}  // namespace rope
