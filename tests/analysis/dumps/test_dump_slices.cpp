// A tensor too large for one read cut into slices that rotate with the whole's positions
// (analysis/dumps/dump_slices.hpp): along the heads, then along batch rows that share their positions; refused
// where neither is small enough.
#include "rope/analysis/dumps/dump_slices.hpp"

#include <gtest/gtest.h>

#include "rope/core/error.hpp"

namespace rope {
namespace {

struct SliceCase {
  const char* name;
  std::vector<long> shape;
  DumpAxes axes;
  long position_rows;
  long max_elements;
  int axis;           ///< the axis cut
  long slices;        ///< how many
  long first_length;  ///< the first slice's length along it
};

class DumpSliceCases : public ::testing::TestWithParam<SliceCase> {};

TEST_P(DumpSliceCases, CutAlongAnAxisThatKeepsThePositions) {
  const SliceCase& c = GetParam();
  const std::vector<DumpSlice> s = dump_slices(c.shape, c.axes, c.position_rows, c.max_elements);
  ASSERT_EQ(static_cast<long>(s.size()), c.slices);
  long next = 0, elements_per_entry = 1;
  for (std::size_t k = 0; k < c.shape.size(); ++k)
    if (static_cast<int>(k) != c.axis) elements_per_entry *= c.shape[k];
  for (const DumpSlice& x : s) {
    EXPECT_EQ(x.axis, c.axis);
    EXPECT_EQ(x.start, next);  // in order, end to end
    EXPECT_LE((x.stop - x.start) * elements_per_entry, c.max_elements);
    next = x.stop;
  }
  EXPECT_EQ(next, c.shape[static_cast<std::size_t>(c.axis)]);
  EXPECT_EQ(s.front().stop - s.front().start, c.first_length);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, DumpSliceCases,
    ::testing::Values(SliceCase{"fits_whole", {4, 8, 16, 8}, DumpAxes::BatchHeadsSeqD, 1, 4096, 0, 1, 4},
                      // issue 63's full-size q, [4, 8192, 32, 128] = 2^27 elements: 4 heads (2^24) a slice.
                      SliceCase{
                          "full_size_q_by_heads", {4, 8192, 32, 128}, DumpAxes::BatchSeqHeadsD, 4, 1L << 24, 2, 8, 4},
                      SliceCase{"seq_heads_d", {1000, 10, 64}, DumpAxes::SeqHeadsD, 1, 200000, 1, 4, 3},
                      SliceCase{"uneven_last_slice", {2, 7, 10, 4}, DumpAxes::BatchHeadsSeqD, 2, 160, 1, 4, 2},
                      // One head larger than a slice: batch rows that share their positions.
                      SliceCase{"one_head_by_batch_rows", {8, 1, 100, 16}, DumpAxes::BatchHeadsSeqD, 1, 3200, 0, 4, 2}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(DumpSlicesPreferred, SmallerSlicesWhereACutMakesThemSo) {
  // [4, 8192, 32, 128]: 2^22 elements a slice (one head) where 2^24 (four heads) would do.
  std::vector<DumpSlice> s = dump_slices({4, 8192, 32, 128}, DumpAxes::BatchSeqHeadsD, 1, 1L << 24, 1L << 22);
  EXPECT_EQ(s.size(), 32u);
  // One head of [1, 1, 65536, 128] holds 2^23: no cut brings it to 2^22; the whole fits the largest read.
  s = dump_slices({2, 1, 65536, 128}, DumpAxes::BatchHeadsSeqD, 1, 1L << 24, 1L << 22);
  ASSERT_EQ(s.size(), 1u);  // 2^24 elements: read whole
  s = dump_slices({3, 1, 65536, 128}, DumpAxes::BatchHeadsSeqD, 1, 1L << 24, 1L << 22);
  ASSERT_EQ(s.size(), 2u);  // rows of 2^23: two a slice at the largest read
  EXPECT_EQ(s[0].axis, 0);
  EXPECT_EQ(s[0].stop, 2);
}

TEST(DumpSlicesRefused, WhereNoCutKeepsThePositions) {
  // One head of one batch row, rank 2, or batch rows with their own positions: the positions would change.
  EXPECT_THROW(dump_slices({1, 1, 4096, 16}, DumpAxes::BatchHeadsSeqD, 1, 1024), InvalidArgument);
  EXPECT_THROW(dump_slices({4096, 16}, DumpAxes::SeqD, 1, 1024), InvalidArgument);
  EXPECT_THROW(dump_slices({8, 1, 100, 16}, DumpAxes::BatchHeadsSeqD, 8, 3200), InvalidArgument);
}

}  // namespace
}  // namespace rope
