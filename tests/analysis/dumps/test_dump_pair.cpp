// Two dumps arranged with their positions (rope/analysis/dumps/dump_pair.hpp), the one arrangement of `rope check`,
// `rope identify` and the Python module: shapes, default positions, batch rows, packed sequences, restarts, and
// the messages naming the front end's settings.
#include <gtest/gtest.h>

#include "rope/analysis/dumps/dump_pair.hpp"
#include "rope/core/error.hpp"

namespace rope {
namespace {

TensorData tensor(std::vector<long> shape) {
  TensorData t;
  long n = 1;
  for (const long s : shape) n *= s;
  t.shape = std::move(shape);
  for (long i = 0; i < n; ++i) t.values.push_back(static_cast<double>(i));
  t.dtype = DType::F32;
  return t;
}

TEST(DumpPair, DefaultPositionsAndShapes) {
  const DumpPair p = arrange_dump_pair(tensor({5, 2, 4}), tensor({5, 2, 4}), {}, "b", "a");
  EXPECT_TRUE(p.positions_assumed);
  EXPECT_EQ(p.positions, (std::vector<double>{0, 1, 2, 3, 4}));
  EXPECT_EQ(p.axes, DumpAxes::SeqHeadsD);
  EXPECT_EQ(p.after.heads, 2);
  EXPECT_TRUE(p.segments.empty());
  EXPECT_EQ(p.check_positions().size(), 5u);
  try {
    arrange_dump_pair(tensor({5, 2, 4}), tensor({5, 2, 2}), {}, "b", "a");
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_STREQ(e.what(), "a has shape (5, 2, 2), b has (5, 2, 4): they must be equal");
  }
  DumpPairInput labels;
  labels.before_label = "--before 'b.npy'";
  labels.after_label = "--after 'a.npy'";
  EXPECT_THROW(arrange_dump_pair(tensor({5, 4}), tensor({4, 4}), labels, "b", "a"), InvalidArgument);
}

/// Issue 52 (3): at most kMaxDumpPositions sequence indices (docs/check.md), wherever the positions come from: a
/// (2^23, 2) dump without positions was accepted, its 2^23 positions made (531 MB). The shapes alone (streamed
/// dumps): refused before anything is arranged.
struct IndexLimit {
  std::vector<long> shape;
  long rows;  ///< rows of positions (0: none given)
  bool refused;
};

class DumpPairIndexLimit : public ::testing::TestWithParam<IndexLimit> {};

TEST_P(DumpPairIndexLimit, AtMost2To22SequenceIndicesWhereverThePositionsComeFrom) {
  const IndexLimit& c = GetParam();
  TensorData t;
  t.shape = c.shape;
  t.dtype = DType::F32;
  DumpPairInput in;
  in.geometry_only = true;
  if (c.rows > 0) {
    in.rows = c.rows;
    in.row_length = c.shape[1];
    in.axes = DumpAxes::BatchSeqHeadsD;
    in.positions.assign(static_cast<std::size_t>(c.rows * c.shape[1]), 0.0);
  }
  if (!c.refused) {
    EXPECT_NO_THROW(arrange_dump_pair(t, t, in, "b", "a"));
    return;
  }
  try {
    arrange_dump_pair(t, t, in, "b", "a");
    FAIL() << "accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("sequence indices, more than 4194304"), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, DumpPairIndexLimit,
                         ::testing::Values(IndexLimit{{kMaxDumpPositions, 2}, 0, false},
                                           IndexLimit{{kMaxDumpPositions + 1, 2}, 0, true},
                                           IndexLimit{{1L << 23, 2}, 0, true},
                                           IndexLimit{{2, 1L << 21, 1, 2}, 2, false},  // rows along the axis
                                           IndexLimit{{3, 1L << 21, 1, 2}, 3, true}),
                         [](const ::testing::TestParamInfo<IndexLimit>& info) {
                           return "case_" + std::to_string(info.index);
                         });

TEST(DumpPair, BatchRowsAlongTheSequence) {
  DumpPairInput in;
  in.positions = {7, 100, 5000};  // [batch 3, seq 1]
  in.rows = 3;
  in.row_length = 1;
  in.axes = DumpAxes::BatchSeqHeadsD;
  const DumpPair p = arrange_dump_pair(tensor({3, 1, 2, 4}), tensor({3, 1, 2, 4}), in, "b", "a");
  EXPECT_TRUE(p.segments_are_rows);
  ASSERT_EQ(p.segments.size(), 3u);
  EXPECT_EQ(p.after.seq, 3);
  EXPECT_EQ(p.after.groups(), 2);
  EXPECT_EQ(p.after.value(2, 1, 3), 2 * 8 + 1 * 4 + 3);  // batch row 2, head 1, channel 3
  in.rows = 2;
  in.positions = {7, 100};
  try {
    arrange_dump_pair(tensor({3, 1, 2, 4}), tensor({3, 1, 2, 4}), in, "b", "a");
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("has 2 rows, the dump's batch axis has 3"), std::string::npos) << e.what();
  }
}

TEST(DumpPair, PackedSequencesAndRestarts) {
  DumpPairInput in;
  in.starts = std::vector<double>{0, 3};
  DumpPair p = arrange_dump_pair(tensor({5, 4}), tensor({5, 4}), in, "b", "a");
  EXPECT_EQ(p.positions, (std::vector<double>{0, 1, 2, 0, 1}));
  EXPECT_EQ(p.segments.size(), 2u);
  DumpPairInput restart;
  restart.positions = {0, 1, 0, 1, 2};  // positions that start again: one sequence each
  p = arrange_dump_pair(tensor({5, 4}), tensor({5, 4}), restart, "b", "a");
  ASSERT_EQ(p.segments.size(), 2u);
  EXPECT_EQ(p.segments[1].start, 2);
  restart.positions = {0, 1, 2};
  EXPECT_THROW(arrange_dump_pair(tensor({5, 4}), tensor({5, 4}), restart, "b", "a"), InvalidArgument);
  restart.positions = {0, 1, 2, 3, 3e7};
  EXPECT_THROW(arrange_dump_pair(tensor({5, 4}), tensor({5, 4}), restart, "b", "a"), InvalidArgument);
}

TEST(DumpPair, RopeDeltaShiftsThePositionsAndIsKept) {
  // M-RoPE decoding (rope check --rope-delta, rope.check(rope_delta=)): the decode tokens' sequence indices, each
  // turned at index + rope_deltas; the pair keeps the delta for check's variant "decode tokens without rope_deltas".
  DumpPairInput in;
  in.positions = {24, 25, 26, 27};
  in.rope_delta = -12;
  const DumpPair p = arrange_dump_pair(tensor({4, 1, 4}), tensor({4, 1, 4}), in, "b", "a");
  EXPECT_EQ(p.positions, (std::vector<double>{12, 13, 14, 15}));
  EXPECT_EQ(p.rope_delta, -12);
  in.rope_delta.reset();
  EXPECT_EQ(arrange_dump_pair(tensor({4, 1, 4}), tensor({4, 1, 4}), in, "b", "a").rope_delta, 0);
  in.rope_delta = 0.5;
  EXPECT_THROW(arrange_dump_pair(tensor({4, 1, 4}), tensor({4, 1, 4}), in, "b", "a"), InvalidArgument);
}

}  // namespace
}  // namespace rope
