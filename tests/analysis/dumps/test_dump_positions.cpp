// Positions as tensors, packed sequences and batch rows laid along the sequence axis
// (rope/analysis/dumps/dump_positions.hpp), on small hand-written tensors whose answers are counted by hand.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "analysis/dumps/test_dump_fixtures.hpp"
#include "rope/analysis/dumps/dump_positions.hpp"
#include "rope/core/error.hpp"

namespace rope {
namespace {

TEST(DumpPositions, TensorShapes) {
  TensorData t;
  t.shape = {2, 3};  // [batch, seq]: a row per batch entry
  t.values = {0, 1, 2, 10, 11, 12};
  DumpPositions p = positions_from_tensor(t, "p");
  EXPECT_EQ(p.rows, 2);
  EXPECT_EQ(p.seq, 3);
  EXPECT_EQ(p.components, 1);
  EXPECT_EQ(p.values[4].value[0], 11);
  t.shape = {3, 1, 2};  // [3, batch, seq]: M-RoPE's t, h, w of HF's position_ids
  t.values = {4, 5, 6, 7, 8, 9};
  p = positions_from_tensor(t, "p");
  EXPECT_EQ(p.components, 3);
  EXPECT_EQ(p.seq, 2);
  EXPECT_EQ(p.values[1].text(), "(5, 7, 9)");
  t.shape = {2, 2, 2};
  t.values.assign(8, 0);
  EXPECT_THROW(positions_from_tensor(t, "p"), InvalidArgument);  // rank 3 needs 3 or 4 components first
  t.shape = {2};
  t.values = {0, 3e7};
  EXPECT_THROW(positions_from_tensor(t, "p"), InvalidArgument);  // beyond 2^24
}

TEST(DumpPositions, TextRowsAndLists) {
  DumpPositions p = positions_from_text("# rows\n0 1 2\n5,6,7\n", "p");
  EXPECT_EQ(p.rows, 2);
  EXPECT_EQ(p.seq, 3);
  p = positions_from_text("0\n1\n2\n3\n", "p");  // one number per line: one row
  EXPECT_EQ(p.rows, 1);
  EXPECT_EQ(p.seq, 4);
  p = positions_from_text("0 1 2\n3\n", "p");  // lines of different lengths: one row
  EXPECT_EQ(p.seq, 4);
  EXPECT_THROW(positions_from_text("0 x\n", "p"), InvalidArgument);
  EXPECT_THROW(positions_from_text("# nothing\n", "p"), InvalidArgument);
}

TEST(DumpPositions, TextCountsWhileReadingAndStopsAtTheLimit) {
  // Issue 52 (4): kMaxDumpPositions numbers are read, one more is refused, counted as they are read (bounded_work.py
  // measures the memory of a 64 MiB file refused).
  std::string text;
  for (long k = 0; k < kMaxDumpPositions; ++k) text += "0\n";
  EXPECT_EQ(positions_from_text(text, "p").seq, kMaxDumpPositions);
  text += "0\n";
  try {
    positions_from_text(text, "p");
    FAIL() << "accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_STREQ(e.what(), "p: more than 4194304 positions");
  }
}

TEST(DumpPositions, AFileOverTheLimitIsRefusedByItsSizeAndAnNpyOfAnotherTypeIsToldWhatIsRead) {
  // Issue 62: a positions file over 128 MiB was read before it was refused (an 8 GB sparse file: 4.4 s, 267 MB);
  // now by its size (tests/hardening/bounded_work.py measures the memory). A .npy of complex numbers was told
  // "rope reads float16, float32, float64", though positions are integers as well.
  const std::string dir = ::testing::TempDir();
  const std::string big = dir + "rope_positions_over_the_limit.npy";
  std::ofstream(big).flush();
  std::filesystem::resize_file(big, (std::uintmax_t{128} << 20) + 1);  // a hole: no byte of it is read
  EXPECT_THAT([&] { read_positions_file(big, "positions file"); },
              ::testing::ThrowsMessage<InvalidArgument>(::testing::HasSubstr("larger than the 134217728-byte limit")));
  std::filesystem::remove(big);
  const std::string complex = dir + "rope_positions_complex.npy";
  std::string header = "{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }";
  header += std::string(63 - (10 + header.size()) % 64, ' ') + "\n";
  std::ofstream(complex, std::ios::binary) << std::string("\x93NUMPY\x01\x00", 8) << static_cast<char>(header.size())
                                           << '\0' << header << std::string(16, '\0');
  EXPECT_THAT([&] { read_positions_file(complex, "positions file"); },
              ::testing::ThrowsMessage<InvalidArgument>(::testing::HasSubstr(
                  "rope reads positions as float16, float32, float64 ('f2', 'f4', 'f8') or integers of 1 to 8 bytes")));
  std::filesystem::remove(complex);
}

TEST(DumpPositions, SegmentsFromStartsOrCuSeqlens) {
  const std::vector<DumpSegment> a = segments_from_starts({0, 3, 7}, 10, "s");      // starts
  const std::vector<DumpSegment> b = segments_from_starts({0, 3, 7, 10}, 10, "s");  // cu_seqlens
  ASSERT_EQ(a.size(), 3u);
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(a[1].start, 3);
  EXPECT_EQ(a[1].length, 4);
  EXPECT_EQ(b[2].length, 3);
  EXPECT_EQ(positions_within_segments(a), (std::vector<double>{0, 1, 2, 0, 1, 2, 3, 0, 1, 2}));
  EXPECT_THROW(segments_from_starts({1, 3}, 10, "s"), InvalidArgument);
  EXPECT_THROW(segments_from_starts({0, 5, 5}, 10, "s"), InvalidArgument);
  EXPECT_THROW(segments_from_starts({0, 11}, 10, "s"), InvalidArgument);
  EXPECT_THROW(segments_from_starts({0, 2.5}, 10, "s"), InvalidArgument);
  EXPECT_EQ(position_restarts({0, 1, 2, 0, 1, 5, 5}), (std::vector<long>{3, 6}));
}

TEST(DumpPositions, RowsAlongTheSequenceAxis) {
  DumpVectors v = test::random_dump(3, 4, 2);  // seq 3, groups = batch 2 × heads 2
  v.batch = 2, v.heads = 2;
  const DumpVectors w = rows_along_sequence(v);
  EXPECT_EQ(w.seq, 6);
  EXPECT_EQ(w.batch, 1);
  EXPECT_EQ(w.heads, 2);
  // Batch row 1, sequence index 2, head 1 is index 1·3 + 2 = 5, group 1.
  EXPECT_EQ(w.value(5, 1, 1), v.value(2, 1 * 2 + 1, 1));
  EXPECT_EQ(w.value(0, 0, 0), v.value(0, 0, 0));
  const DumpVectors s = slice_sequence(w, 3, 2);
  EXPECT_EQ(s.seq, 2);
  EXPECT_EQ(s.value(1, 1, 0), w.value(4, 1, 0));
}

}  // namespace
}  // namespace rope
