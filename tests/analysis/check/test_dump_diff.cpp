// rope diff's library (rope/analysis/check/dump_diff.hpp): two outputs of the same input checked against one reference
// and compared with each other under (D1), on float64 dumps rotated by test_dump_fixtures.hpp's complex form.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>

#include "analysis/dumps/test_dump_fixtures.hpp"
#include "rope/analysis/check/dump_diff.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "support/expectation.hpp"

namespace rope {
namespace {

using test::expect_half;
using test::random_dump;
using test::range_positions;
using test::rotate_dump;

std::vector<AxisPosition> positions(long n) {
  std::vector<AxisPosition> p;
  for (const double m : range_positions(n)) p.push_back(AxisPosition::single(m));
  return p;
}

TEST(DumpDiff, TwoRightOutputsAgreeAndPass) {
  const DumpVectors x = random_dump(24, 2, 16);
  const DumpVectors y = rotate_dump(x, true, 16, kDefaultBase);
  const DumpDiff diff = diff_dumps(x, y, y, positions(24), expect_half(16));
  EXPECT_TRUE(diff.passed());
  EXPECT_TRUE(diff.between.agree());
  EXPECT_EQ(diff.between.max_ratio, 0.0);
  ASSERT_EQ(diff.ranges.size(), 1u);
  EXPECT_EQ(diff.ranges[0].length, 24);
  EXPECT_TRUE(diff.ranges[0].a_right && diff.ranges[0].b_right && diff.ranges[0].agree);
}

TEST(DumpDiff, TheBoundIsTwiceTheCheckTolerance) {
  // (D1) at position 5, pair 2 (channels 2, 10) of head 0, float64: 2·κ·‖x‖·(2ε + ε(1 + 5·θ_2)).
  const DumpVectors x = random_dump(8, 1, 16);
  const DumpVectors y = rotate_dump(x, true, 16, kDefaultBase);
  const double eps = epsilon(DType::F64), theta2 = std::pow(kDefaultBase, -4.0 / 16);
  const double bound =
      2 * kToleranceSafety * std::hypot(x.value(5, 0, 2), x.value(5, 0, 10)) * (2 * eps + eps * (1 + 5 * theta2));
  DumpVectors z = y;
  z.values[static_cast<std::size_t>(5 * 16 + 2)] += 0.9 * bound;
  EXPECT_TRUE(compare_outputs(x, y, z, positions(8), expect_half(16)).agree());
  z.values[static_cast<std::size_t>(5 * 16 + 2)] += 0.2 * bound;
  const OutputAgreement off = compare_outputs(x, y, z, positions(8), expect_half(16));
  EXPECT_EQ(off.differing, 1);
  EXPECT_NEAR(off.position_ratio[5], 1.1, 1e-3);  // y + 1.1·bound rounded to float64: the bound is ~100 ulp of y
  EXPECT_EQ(off.position_ratio[4], 0.0);
}

TEST(DumpDiff, OneOutputInTheOtherLayoutIsNamedWithItsRange) {
  const DumpVectors x = random_dump(32, 2, 16);
  const DumpVectors right = rotate_dump(x, true, 16, kDefaultBase);
  const DumpVectors wrong = rotate_dump(x, false, 16, kDefaultBase);
  const DumpDiff diff = diff_dumps(x, right, wrong, positions(32), expect_half(16));
  EXPECT_FALSE(diff.passed());
  EXPECT_TRUE(diff.a.comparison.passed());
  EXPECT_EQ(diff.b.diagnosis.matches, known_variant("layout-swapped"));
  // Position 0 rotates nothing: every layout agrees there; from 1 on B is wrong and they differ.
  ASSERT_EQ(diff.ranges.size(), 2u);
  EXPECT_TRUE(diff.ranges[0].a_right && diff.ranges[0].b_right && diff.ranges[0].agree);
  EXPECT_EQ(diff.ranges[1].start, 1);
  EXPECT_EQ(diff.ranges[1].length, 31);
  EXPECT_TRUE(diff.ranges[1].a_right);
  EXPECT_FALSE(diff.ranges[1].b_right || diff.ranges[1].agree);
  EXPECT_TRUE(diff.ranges[1].a_diagnosis.en.empty());
  EXPECT_NE(diff.ranges[1].b_diagnosis.en.find("interleaved layout"), std::string::npos)
      << diff.ranges[1].b_diagnosis.en;
}

TEST(DumpDiff, BothWrongDifferentlyAndAShiftFromAPosition) {
  // A: positions shifted by one everywhere; B: right until index 20, then base 10000 where the spec has 500000.
  const DumpVectors x = random_dump(40, 1, 16);
  RopeExpectation e = expect_half(16);
  for (int j = 0; j < 8; ++j) e.rope.params.inv_freq[j] = std::pow(500000.0, -2.0 * j / 16);
  e.rope.config.base = 500000;
  const DumpVectors a = rotate_dump(x, true, 16, 500000.0, 1.0, 1.0);
  const DumpVectors good = rotate_dump(x, true, 16, 500000.0), base = rotate_dump(x, true, 16, 10000.0);
  DumpVectors b = good;
  std::copy(base.values.begin() + 20 * 16, base.values.end(), b.values.begin() + 20 * 16);
  const DumpDiff diff = diff_dumps(x, a, b, positions(40), e);
  EXPECT_FALSE(diff.passed());
  EXPECT_EQ(diff.a.diagnosis.matches, known_variant("positions-plus-one"));
  ASSERT_EQ(diff.ranges.size(), 2u);
  EXPECT_EQ(diff.ranges[0].length, 20);
  EXPECT_TRUE(!diff.ranges[0].a_right && diff.ranges[0].b_right && !diff.ranges[0].agree);
  EXPECT_TRUE(!diff.ranges[1].a_right && !diff.ranges[1].b_right && !diff.ranges[1].agree);
  EXPECT_NE(diff.ranges[1].a_diagnosis.en.find("shifted by +1"), std::string::npos) << diff.ranges[1].a_diagnosis.en;
  EXPECT_NE(diff.ranges[1].b_diagnosis.en.find("base 10000"), std::string::npos) << diff.ranges[1].b_diagnosis.en;
}

TEST(DumpDiff, TheSameBugInBothIsWrongTheSameWay) {
  const DumpVectors x = random_dump(16, 1, 16);
  const DumpVectors a = rotate_dump(x, false, 16, kDefaultBase), b = a;
  const DumpDiff diff = diff_dumps(x, a, b, positions(16), expect_half(16));
  EXPECT_FALSE(diff.passed());
  EXPECT_TRUE(diff.between.agree());
  ASSERT_EQ(diff.ranges.size(), 2u);
  EXPECT_TRUE(!diff.ranges[1].a_right && !diff.ranges[1].b_right && diff.ranges[1].agree);
  EXPECT_EQ(diff.ranges[1].a_diagnosis.en, diff.ranges[1].b_diagnosis.en);
}

TEST(DumpDiff, ReadInBlocksAndReportedPerSegment) {
  // 2048 positions of 64 channels: (D1) reads the three dumps a block of at most 1024 sequence indices at a time
  // (65 536 elements of each), and finds the one element B has off at index 1500, as the whole dumps in memory do.
  const DumpVectors x = random_dump(2048, 1, 64);
  const DumpVectors y = rotate_dump(x, true, 64, kDefaultBase);
  DumpVectors z = y;
  z.values[static_cast<std::size_t>(1500 * 64 + 3)] += 1e-3;
  long largest = 0, reads = 0;
  const DumpDiff whole = diff_dumps(x, y, z, positions(2048), expect_half(64));
  const DiffReader read = [&](long s0, long s1) {
    largest = std::max(largest, s1 - s0), ++reads;
    const auto cut = [&](const DumpVectors& v) {
      DumpVectors out = v;
      out.seq = s1 - s0;
      out.values.assign(v.values.begin() + s0 * 64, v.values.begin() + s1 * 64);
      return out;
    };
    return std::array<DumpVectors, 3>{cut(x), cut(y), cut(z)};
  };
  const MemorySource a(x, y), b(x, z);
  const std::vector<DumpSegment> halves = {{0, 1024}, {1024, 1024}};
  const DumpDiff blocks = diff_sources(a, b, read, positions(2048), expect_half(64), halves);
  EXPECT_EQ(largest, 1024);
  EXPECT_EQ(reads, 2);
  EXPECT_EQ(blocks.between.differing, 1);
  EXPECT_EQ(blocks.between.max_ratio, whole.between.max_ratio);
  EXPECT_EQ(blocks.b.comparison.failing, whole.b.comparison.failing);
  ASSERT_EQ(blocks.segments.size(), 2u);
  EXPECT_TRUE(blocks.segments[0].a.passed() && blocks.segments[0].b.passed());
  EXPECT_EQ(blocks.segments[0].differing_positions, 0);
  EXPECT_FALSE(blocks.segments[1].b.passed());
  EXPECT_EQ(blocks.segments[1].differing_positions, 1);
  EXPECT_EQ(blocks.segments[1].b.failing_positions, 1);
  // A run never crosses a segment's start: [0, 1024), [1024, 1500), [1500], [1501, 2048).
  ASSERT_EQ(blocks.ranges.size(), 4u);
  EXPECT_EQ(blocks.ranges[1].start, 1024);
  EXPECT_EQ(blocks.ranges[2].start, 1500);
  EXPECT_EQ(blocks.ranges[2].length, 1);
}

TEST(DumpDiff, OutputsOfAnotherShapeAreRefused) {
  const DumpVectors x = random_dump(8, 1, 16), y = random_dump(8, 2, 16);
  EXPECT_THROW(compare_outputs(x, x, y, positions(8), expect_half(16)), InvalidArgument);
  EXPECT_THROW(compare_outputs(x, x, x, positions(7), expect_half(16)), InvalidArgument);
}

}  // namespace
}  // namespace rope
