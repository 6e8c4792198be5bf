// rope/models/xdrope_positions.hpp (HunyuanVL's four streams, (X1), (X2)) and openPangu-VL's rule (P1) of
// mrope_positions.hpp: every id of the cases of tests/reference/vl_positions_cases.csv (the NumPy ports of vLLM's
// get_xdrope_input_positions and openPangu-VL's get_mrope_input_positions), the worked image by hand, the refusals.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <string>
#include <vector>

#include "rope/core/error.hpp"
#include "rope/core/invalid_quantity.hpp"
#include "rope/models/mrope_positions.hpp"
#include "rope/models/xdrope_positions.hpp"
#include "support/cli_harness.hpp"
#include "support/reference_data.hpp"

namespace rope {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

/// The id columns of one case of tests/reference/vl_positions_cases.csv, one line per token ("p,w,h,t" or "t,h,w").
std::string vl_reference_ids(const std::string& name) {
  const test::ReferenceCsv ref = test::read_reference("vl_positions_cases.csv");
  std::string out;
  for (const auto& row : ref.rows) {
    if (row.at(0) != name) continue;
    out += row.at(2).empty() ? row.at(3) + "," + row.at(4) + "," + row.at(5)
                             : row.at(2) + "," + row.at(3) + "," + row.at(4) + "," + row.at(5);
    out += "\n";
  }
  return out;
}

Segment vl_text(long n) { return {SegmentKind::Text, n, {}}; }
Segment vl_image(long t, long h, long w) { return {SegmentKind::Image, 0, {t, h, w}}; }
Segment vl_video(long t, long h, long w) { return {SegmentKind::Video, 0, {t, h, w}}; }

struct VlPositionsCase {
  std::string name;
  std::vector<Segment> segments;
  long merge = 2;
  long decode = 0;
  bool pangu = false;
  double tokens_per_second = 1.0;
};

class VlPositionsNumpyPort : public ::testing::TestWithParam<VlPositionsCase> {};

TEST_P(VlPositionsNumpyPort, EqualsTheEnginesCode) {
  const VlPositionsCase& c = GetParam();
  std::string got;
  if (c.pangu) {
    PositionRules r;
    r.pangu = true;
    r.spatial_merge_size = c.merge;
    r.tokens_per_second = c.tokens_per_second;
    std::vector<TokenPosition> ids = rope_index(c.segments, r);
    const std::vector<TokenPosition> steps = decode_positions(ids, c.decode, r);
    ids.insert(ids.end(), steps.begin(), steps.end());
    for (const TokenPosition& p : ids) got += fmt::format("{},{},{}\n", p.thw[0], p.thw[1], p.thw[2]);
  } else {
    std::vector<XdropePosition> ids = xdrope_index(c.segments, c.merge);
    const std::vector<XdropePosition> steps = xdrope_decode(ids.size(), ids.back().segment + 1, c.decode);
    ids.insert(ids.end(), steps.begin(), steps.end());
    for (const XdropePosition& p : ids) got += fmt::format("{},{},{},{}\n", p.pwht[0], p.pwht[1], p.pwht[2], p.pwht[3]);
  }
  const std::string want = vl_reference_ids(c.name);
  ASSERT_FALSE(want.empty()) << c.name;
  EXPECT_EQ(got, want) << c.name;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, VlPositionsNumpyPort,
    ::testing::Values(
        VlPositionsCase{"hunyuan-text6", {vl_text(6)}},
        VlPositionsCase{"hunyuan-text3-image1x4x6-text2", {vl_text(3), vl_image(1, 4, 6), vl_text(2)}},
        VlPositionsCase{"hunyuan-text2-image1x4x4-text1-image1x6x2-text2",
                        {vl_text(2), vl_image(1, 4, 4), vl_text(1), vl_image(1, 6, 2), vl_text(2)}},
        VlPositionsCase{"hunyuan-text1-image1x6x10-text1", {vl_text(1), vl_image(1, 6, 10), vl_text(1)}},
        VlPositionsCase{"hunyuan-image1x3x5-merge1-text1", {vl_image(1, 3, 5), vl_text(1)}, 1},
        VlPositionsCase{"hunyuan-text2-image1x4x4-text1-decode3", {vl_text(2), vl_image(1, 4, 4), vl_text(1)}, 2, 3},
        VlPositionsCase{"pangu-text5-image1x4x6-text3", {vl_text(5), vl_image(1, 4, 6), vl_text(3)}, 2, 0, true},
        VlPositionsCase{"pangu-text2-video3x4x4-text2", {vl_text(2), vl_video(3, 4, 4), vl_text(2)}, 2, 0, true},
        VlPositionsCase{"pangu-text1-video2x4x6-image1x2x2-text1-decode2",
                        {vl_text(1), vl_video(2, 4, 6), vl_image(1, 2, 2), vl_text(1)},
                        2,
                        2,
                        true},
        VlPositionsCase{"pangu-text1-image2x4x2-text1", {vl_text(1), vl_image(2, 4, 2), vl_text(1)}, 2, 0, true},
        VlPositionsCase{
            "pangu-text1-image3x2x2-tps2.5-text1", {vl_text(1), vl_image(3, 2, 2), vl_text(1)}, 2, 0, true, 2.5}),
    [](const auto& info) { return test::case_name(info.param.name); });

TEST(XdropePositions, TheWorkedImageByHand) {
  // (X1): text 0 … 2; the image's start token 3 and an image token 4 at their index; 2 rows of 3 + 1 from 5, the
  // newline last (w = 3); an image token 13 and the end token 14 at their index; text 15, 16.
  const auto ids = xdrope_index({vl_text(3), vl_image(1, 4, 6), vl_text(2)}, 2);
  ASSERT_EQ(ids.size(), 17u);
  EXPECT_EQ(xdrope_image_tokens({1, 4, 6}, 2), 12);
  EXPECT_EQ(ids[4].pwht, (std::array<long, 4>{4, 4, 4, 4}));
  EXPECT_EQ(ids[5].pwht, (std::array<long, 4>{5, 0, 0, 0}));
  EXPECT_EQ(ids[8].pwht, (std::array<long, 4>{8, 3, 0, 0}));
  EXPECT_EQ(ids[9].pwht, (std::array<long, 4>{9, 0, 1, 0}));
  EXPECT_EQ(ids[14].pwht, (std::array<long, 4>{14, 14, 14, 14}));
  EXPECT_EQ(ids[3].kind, SegmentKind::Image);
  EXPECT_EQ(ids[15].segment, 2);
  const auto decoded = xdrope_decode(ids.size(), 3, 1);
  EXPECT_EQ(decoded.at(0).pwht, (std::array<long, 4>{17, 17, 17, 17}));
  EXPECT_EQ(decoded.at(0).kind, SegmentKind::Decode);
}

struct XdropeRefusal {
  std::vector<Segment> segments;
  long merge;
  std::string says;
};

class XdropePositionsRefuses : public ::testing::TestWithParam<XdropeRefusal> {};

TEST_P(XdropePositionsRefuses, NamingTheRule) {
  const XdropeRefusal& c = GetParam();
  EXPECT_THAT([&] { (void)xdrope_index(c.segments, c.merge); }, ThrowsMessage<InvalidArgument>(HasSubstr(c.says)));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, XdropePositionsRefuses,
    ::testing::Values(XdropeRefusal{{}, 2, "the sequence is empty"},
                      XdropeRefusal{{vl_text(1), vl_video(2, 4, 4)}, 2, "HunyuanVL has images alone"},
                      XdropeRefusal{{vl_image(2, 4, 4)}, 2, "a HunyuanVL image is one frame, T = 1"},
                      XdropeRefusal{{vl_image(1, 6, 4)}, 4, "height 6 is not divisible by the spatial merge size 4"},
                      XdropeRefusal{{vl_image(1, 4, 6)}, 4, "width 6 is not divisible by the spatial merge size 4"},
                      XdropeRefusal{{vl_text(1)}, 0, "the spatial merge size must be between 1 and 64 (got 0)"},
                      XdropeRefusal{{vl_text(999'999), vl_image(1, 2, 2)}, 2, "more than the limit of 1000000"},
                      XdropeRefusal{{vl_text(0)}, 2, "a text segment needs at least 1 token"}));

TEST(XdropePositions, DecodeStepsAreBounded) {
  EXPECT_THROW((void)xdrope_decode(3, 1, -1), InvalidArgument);
  EXPECT_THROW((void)xdrope_decode(3, 1, kMaxDecodeSteps + 1), InvalidArgument);
  EXPECT_TRUE(xdrope_decode(3, 1, 0).empty());
}

}  // namespace
}  // namespace rope
