// How the reports name a dump's positions (report/dump_text.hpp): a span of sequence indices as runs of positions
// that step by one, so that position ids that do not increase are listed, never joined into a range they are not.
#include "rope/report/dump_text.hpp"

#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace rope {
namespace {

struct SpanCase {
  const char* name;
  std::vector<double> positions;
  long start, length;
  const char* text;
};

class PositionSpan : public ::testing::TestWithParam<SpanCase> {};

TEST_P(PositionSpan, NamesEachRunOfPositions) {
  const SpanCase& c = GetParam();
  LoadedDumps dumps;
  dumps.positions = c.positions;
  EXPECT_EQ(position_span(dumps, c.start, c.length), c.text);
}

// ONNX's RotaryEmbedding test cases gather caches by position ids such as [[9, 47, 36], [24, 11, 12]] (onnx/onnx,
// onnx/backend/test/case/node/rotaryembedding.py): neither row is a range.
INSTANTIATE_TEST_SUITE_P(Runs, PositionSpan,
                         ::testing::Values(SpanCase{"one", {57}, 0, 1, "57"},
                                           SpanCase{"run", {0, 1, 2, 3}, 0, 4, "0–3"},
                                           SpanCase{"run_inside", {5, 6, 7, 8, 9}, 1, 3, "6–8"},
                                           SpanCase{"ids_row0", {9, 47, 36, 24, 11, 12}, 0, 3, "9, 47, 36"},
                                           SpanCase{"ids_row1", {9, 47, 36, 24, 11, 12}, 3, 3, "24, 11–12"},
                                           SpanCase{"whole", {9, 47, 36, 24, 11, 12}, 0, 6, "9, 47, 36, 24, …"},
                                           SpanCase{"repeated", {4, 4, 4}, 0, 3, "4, 4, 4"},
                                           SpanCase{"restart", {0, 1, 2, 0, 1}, 0, 5, "0–2, 0–1"},
                                           SpanCase{"descending", {3, 2, 1}, 0, 3, "3, 2, 1"}),
                         [](const ::testing::TestParamInfo<SpanCase>& info) { return std::string(info.param.name); });

TEST(PositionSpan, PositionsPerAxisByFirstAndLast) {
  LoadedDumps dumps;
  dumps.positions = {0, 0, 0};
  dumps.axis_positions = {AxisPosition{{0, 0, 0}, 3}, AxisPosition{{0, 0, 1}, 3}, AxisPosition{{0, 1, 0}, 3}};
  EXPECT_EQ(position_span(dumps, 0, 3), dumps.axis_positions[0].text() + "–" + dumps.axis_positions[2].text());
}

}  // namespace
}  // namespace rope
