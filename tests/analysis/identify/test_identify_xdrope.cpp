// rope identify on HunyuanVL's XD-RoPE (rope/analysis/identify/identify_xdrope.cpp): float64 dumps turned here channel
// by channel by (A11) of docs/multi-axis.md, x_j by θ_j·p_a(j) and x_(j+d/2) by θ_j·p_b(j), the streams of each code
// computed here from the sections (HF: each section doubled over the head; Tencent: the list repeated), at four
// position streams p, w, h, t of text and an image. identify names the map, its sections and the pair where the maps
// part; text alone cannot tell them apart, and a dump of one head cannot either.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "analysis/dumps/test_dump_fixtures.hpp"
#include "rope/analysis/identify/identify.hpp"
#include "support/cli_harness.hpp"

namespace rope {
namespace {

using test::random_dump;

/// Streams p, w, h, t: `text` text tokens (every stream the index), an image of rows × cols (p the index, w the
/// column, h the row, t 0, as mlx-vlm's get_xdrope_input_positions lays out an image's tokens), then `text` more.
std::vector<AxisPosition> xd_stream_positions(int text, int rows, int cols) {
  std::vector<AxisPosition> out;
  const auto add = [&](double p, double w, double h, double t) {
    AxisPosition a;
    a.count = 4, a.value = {p, w, h, t};
    out.push_back(a);
  };
  int i = 0;
  for (; i < text; ++i) add(i, i, i, i);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c, ++i) add(i, c, r, 0);
  }
  for (int k = 0; k < text; ++k, ++i) add(i, i, i, i);
  return out;
}

/// The stream channel c of a head of n pairs reads: HF splits the channels by the doubled sections, Tencent by the list
/// repeated (channel c as channel c mod n).
int xd_channel_stream(const std::vector<int>& s, bool hf, int c, int n) {
  const int k = hf ? c : c % n;
  int edge = 0;
  for (int i = 0; i < 4; ++i) {
    edge += hf ? 2 * s[static_cast<std::size_t>(i)] : s[static_cast<std::size_t>(i)];
    if (k < edge) return i;
  }
  return 3;
}

/// (A11) at θ_j = base^(−2j/d): y_j = x_j cos(θ_j p_a) − x_(j+n) sin(θ_j p_a), y_(j+n) = x_(j+n) cos(θ_j p_b) + x_j
/// sin(θ_j p_b).
DumpVectors xd_rotate(const DumpVectors& x, const std::vector<AxisPosition>& p, const std::vector<int>& s, bool hf,
                      double base) {
  DumpVectors y = x;
  const int d = x.d, n = d / 2;
  for (long i = 0; i < x.seq; ++i) {
    for (long g = 0; g < x.groups(); ++g) {
      for (int j = 0; j < n; ++j) {
        const double theta = std::pow(base, -2.0 * j / d);
        const double alpha = theta * p[static_cast<std::size_t>(i)].value[xd_channel_stream(s, hf, j, n)];
        const double beta = theta * p[static_cast<std::size_t>(i)].value[xd_channel_stream(s, hf, j + n, n)];
        const double xa = x.value(i, g, j), xb = x.value(i, g, j + n);
        y.values[static_cast<std::size_t>((i * x.groups() + g) * d + j)] = xa * std::cos(alpha) - xb * std::sin(alpha);
        y.values[static_cast<std::size_t>((i * x.groups() + g) * d + j + n)] =
            xb * std::cos(beta) + xa * std::sin(beta);
      }
    }
  }
  return y;
}

struct XdIdentifyCase {
  const char* name;
  std::vector<int> sections;
  bool hf;
};

class IdentifyXdrope : public ::testing::TestWithParam<XdIdentifyCase> {};

TEST_P(IdentifyXdrope, NamesTheMapItsSectionsAndWhereTheMapsPart) {
  const XdIdentifyCase& c = GetParam();
  const DumpVectors x = random_dump(4 + 8 * 8 + 4, 2, 32);
  const std::vector<AxisPosition> p = xd_stream_positions(4, 8, 8);
  const Identification id = identify_rope(x, xd_rotate(x, p, c.sections, c.hf, 10000.0), p);
  ASSERT_TRUE(id.xdrope.has_value());
  ASSERT_TRUE(id.xdrope->map.has_value()) << (id.notes.empty() ? "" : id.notes.back().en);
  EXPECT_EQ(*id.xdrope->map, c.hf ? SectionOrder::XdropeHf : SectionOrder::XdropeTencent);
  EXPECT_EQ(id.xdrope->sections, c.sections);
  int parts = -1;  // the first pair one of whose channels reads another stream in the other code
  for (int j = 0; j < 16 && parts < 0; ++j) {
    for (const int ch : {j, j + 16}) {
      if (xd_channel_stream(c.sections, true, ch, 16) != xd_channel_stream(c.sections, false, ch, 16)) parts = j;
    }
  }
  EXPECT_EQ(id.xdrope->parts_at, parts);
  for (int ch = 0; ch < 32; ++ch)
    EXPECT_EQ(id.xdrope->channel_stream[static_cast<std::size_t>(ch)], xd_channel_stream(c.sections, c.hf, ch, 16));
  EXPECT_EQ(id.layout, PairLayout::Half);
  for (int j = 0; j < 16; ++j) {
    const double want = std::pow(10000.0, -2.0 * j / 32);
    EXPECT_NEAR(id.theta[j], want, 1e-9 * want) << "pair " << j;
  }
  EXPECT_EQ(id.fit.family, Family::Default);
  EXPECT_NEAR(id.fit.base, 10000.0, 1e-3);
}

INSTANTIATE_TEST_SUITE_P(Identify, IdentifyXdrope,
                         ::testing::ValuesIn(std::vector<XdIdentifyCase>{
                             {"hf_4_4_4_4", {4, 4, 4, 4}, true},
                             {"tencent_4_4_4_4", {4, 4, 4, 4}, false},
                             {"hf_2_6_4_4", {2, 6, 4, 4}, true},
                             {"tencent_2_6_4_4", {2, 6, 4, 4}, false},
                             {"hf_6_2_2_6", {6, 2, 2, 6}, true},
                             {"tencent_6_2_2_6", {6, 2, 2, 6}, false},
                         }),
                         [](const ::testing::TestParamInfo<XdIdentifyCase>& info) {
                           return test::case_name(info.param.name);
                         });

TEST(IdentifyXdropeUndetermined, TextAloneAndOneHeadNameNoMap) {
  // Text alone: the four streams equal, both maps one rotation per pair; the map is not named, and the note says why.
  const DumpVectors x = random_dump(24, 2, 32);
  std::vector<AxisPosition> text = xd_stream_positions(12, 0, 0);
  const Identification id = identify_rope(x, xd_rotate(x, text, {4, 4, 4, 4}, true, 10000.0), text);
  ASSERT_TRUE(id.xdrope.has_value());
  EXPECT_FALSE(id.xdrope->map.has_value());
  EXPECT_THAT(id.notes.back().en, ::testing::HasSubstr("cannot tell the maps apart"));
  EXPECT_NEAR(id.fit.base, 10000.0, 1e-3);  // θ_j still measured
  // One head: a channel's angle at an index is not determined by one vector; no map is claimed.
  const DumpVectors one = random_dump(4 + 8 * 8 + 4, 1, 32);
  const std::vector<AxisPosition> p = xd_stream_positions(4, 8, 8);
  const Identification single = identify_rope(one, xd_rotate(one, p, {4, 4, 4, 4}, true, 10000.0), p);
  EXPECT_FALSE(single.xdrope && single.xdrope->map);
}

}  // namespace
}  // namespace rope
