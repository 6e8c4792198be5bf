// Dump shapes and positions (rope/analysis/dumps/dump.hpp).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "rope/analysis/dumps/dump.hpp"
#include "rope/core/error.hpp"

namespace rope {
namespace {

TEST(Dump, ParsesAndInfersAxes) {
  EXPECT_EQ(parse_dump_axes("b,s,h,d"), DumpAxes::BatchSeqHeadsD);
  EXPECT_EQ(parse_dump_axes("batch, heads, seq, dim"), DumpAxes::BatchHeadsSeqD);
  EXPECT_THROW(parse_dump_axes("seq,seq,d"), InvalidArgument);
  EXPECT_THROW(infer_dump_axes({8}, 5, "q"), InvalidArgument);
  // Neither axis holds the positions: said so, not "could be either" (issue 36).
  try {
    infer_dump_axes({1, 3, 4, 8}, 5, "q");
    ADD_FAILURE() << "no axis has 5 positions";
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("q: shape (1, 3, 4, 8) has no axis of the 5 positions: neither"));
  }
}

/// Which reading of a shape infer_dump_axes takes for a number of positions (0: none given), and whether it
/// says it assumed it: a 4-axis dump that the positions do not decide is Hugging Face's [batch, heads, seq, d]
/// (issue 53, item 3).
struct AxesCase {
  std::vector<long> shape;
  long positions;
  DumpAxes axes;
  bool assumed;
};

class DumpAxesReading : public ::testing::TestWithParam<AxesCase> {};

TEST_P(DumpAxesReading, PositionsDecideElseHuggingFacesShape) {
  const AxesCase c = GetParam();
  bool assumed = !c.assumed;
  EXPECT_EQ(infer_dump_axes(c.shape, c.positions, "q", &assumed), c.axes);
  EXPECT_EQ(assumed, c.assumed);
}

INSTANTIATE_TEST_SUITE_P(Dump, DumpAxesReading,
                         ::testing::Values(AxesCase{{5, 8}, 5, DumpAxes::SeqD, false},
                                           AxesCase{{5, 2, 8}, 0, DumpAxes::SeqHeadsD, false},
                                           AxesCase{{1, 4, 5, 8}, 5, DumpAxes::BatchHeadsSeqD, false},
                                           AxesCase{{1, 5, 4, 8}, 5, DumpAxes::BatchSeqHeadsD, false},
                                           AxesCase{{1, 5, 5, 8}, 5, DumpAxes::BatchHeadsSeqD, true},  // both fit
                                           AxesCase{{1, 4, 5, 8}, 0, DumpAxes::BatchHeadsSeqD, true},  // none given
                                           AxesCase{{2, 6, 4, 8}, 0, DumpAxes::BatchHeadsSeqD, true}));

TEST(Dump, ArrangesEveryOrderIntoSeqGroupChannel) {
  // Element value = 1000·b + 100·h + 10·s + c, stored in each order; value(s, g, c) must read it back.
  for (const DumpAxes axes : {DumpAxes::BatchHeadsSeqD, DumpAxes::BatchSeqHeadsD}) {
    TensorData t;
    const long B = 2, H = 3, S = 4, D = 2;
    t.shape = axes == DumpAxes::BatchHeadsSeqD ? std::vector<long>{B, H, S, D} : std::vector<long>{B, S, H, D};
    for (long i0 = 0; i0 < t.shape[0]; ++i0)
      for (long i1 = 0; i1 < t.shape[1]; ++i1)
        for (long i2 = 0; i2 < t.shape[2]; ++i2)
          for (long c = 0; c < D; ++c) {
            const long h = axes == DumpAxes::BatchHeadsSeqD ? i1 : i2, s = axes == DumpAxes::BatchHeadsSeqD ? i2 : i1;
            t.values.push_back(1000.0 * i0 + 100.0 * h + 10.0 * s + c);
          }
    const DumpVectors v = arrange_dump(t, axes, "q");
    ASSERT_EQ(v.seq, S);
    ASSERT_EQ(v.groups(), B * H);
    EXPECT_EQ(v.value(3, 1 * H + 2, 1), 1000 + 200 + 30 + 1);
  }
  TensorData odd;
  odd.shape = {2, 3};
  odd.values.assign(6, 0.0);
  EXPECT_THROW(arrange_dump(odd, DumpAxes::SeqD, "q"), InvalidArgument);
}

TEST(Dump, ParsesPositionRanges) {
  EXPECT_EQ(parse_position_range("2:5", "--positions"), (std::vector<double>{2, 3, 4}));
  EXPECT_EQ(parse_position_range("0:10:4", "--positions"), (std::vector<double>{0, 4, 8}));
  EXPECT_THROW(parse_position_range("5:5", "--positions"), InvalidArgument);
  EXPECT_THROW(parse_position_range("0:9999999999", "--positions"), InvalidArgument);
  EXPECT_THROW(parse_position_range("0:4:0", "--positions"), InvalidArgument);
  EXPECT_EQ(parse_position_range("0:9223372036854775807:9223372036854775807", "--positions"), std::vector<double>{0});
  EXPECT_EQ(parse_position_range("1:9223372036854775807:9223372036854775807", "--positions"), std::vector<double>{1});
  EXPECT_THROW(parse_position_range("a:4", "--positions"), InvalidArgument);
}

}  // namespace
}  // namespace rope
