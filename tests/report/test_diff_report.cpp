// rope diff as a library call (analysis/check/diff_run.hpp) and its report (report/diff_report.hpp): the value lists at
// most kListedDiffRuns runs and segments and counts them all, whatever the dumps' length, and the text says which.
#include "rope/report/diff_report.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sstream>

#include "rope/core/error.hpp"
#include "rope/core/message.hpp"
#include "rope/report/json.hpp"
#include "rope/report/text.hpp"
#include "support/shared.hpp"

namespace rope {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

/// A diff of `seq` positions with `ranges` runs and `segments` segments of one position each.
DiffRun diff_run_of(std::size_t ranges, std::size_t segments) {
  DiffRun run;
  const std::size_t seq = std::max<std::size_t>({ranges, segments, 1});
  for (std::size_t s = 0; s < seq; ++s) run.dumps.positions.push_back(static_cast<double>(s));
  // What diff_sources keeps: the first kListedDiffRuns runs and kListedSegments segments, all counted.
  for (std::size_t k = 0; k < ranges && k < kListedDiffRuns; ++k) {
    DiffRange g;
    g.start = static_cast<long>(k), g.length = 1, g.a_right = true, g.b_right = k % 2 == 0;
    run.diff.ranges.push_back(g);
  }
  run.diff.range_count = static_cast<long>(ranges);
  for (std::size_t k = 0; k < segments && k < kListedSegments; ++k) {
    DiffSegment g;
    g.a.segment = g.b.segment = {static_cast<long>(k), 1};
    g.a.index = g.b.index = static_cast<long>(k);
    run.diff.segments.push_back(g);
  }
  run.diff.segment_count = static_cast<long>(segments);
  return run;
}

struct DiffBound {
  std::size_t runs;    ///< runs (and segments) in the diff
  std::size_t listed;  ///< what the value lists of each
  const char* tail;    ///< the text's line after the first 16 runs ("": none)
};

class DiffReportBound : public ::testing::TestWithParam<DiffBound> {};

TEST_P(DiffReportBound, TheValueListsAtMostKListedDiffRunsAndCountsThemAll) {
  const DiffBound& b = GetParam();
  const Value v = diff_value(diff_run_of(b.runs, b.runs));
  ASSERT_NE(v.find("ranges"), nullptr);
  EXPECT_EQ(v.find("ranges")->items().size(), b.listed);
  EXPECT_EQ(v.find("range_count")->integer(), static_cast<long long>(b.runs));
  EXPECT_EQ(v.find("segments")->items().size(), b.listed);
  EXPECT_EQ(v.find("segment_count")->integer(), static_cast<long long>(b.runs));
  if (b.listed > 0) {  // the first ones, in order
    EXPECT_EQ(v.find("ranges")->items().back().find("start")->integer(), static_cast<long long>(b.listed - 1));
    EXPECT_EQ(v.find("segments")->items().back().find("positions")->text(), std::to_string(b.listed - 1));
  }
}

TEST_P(DiffReportBound, TheTextSaysWhatTheJsonLists) {
  const DiffBound& b = GetParam();
  std::ostringstream out;
  print_diff(out, diff_run_of(b.runs, 0), Text(Lang::En));
  if (*b.tail == '\0') {
    EXPECT_THAT(out.str(), Not(HasSubstr("more ranges")));
  } else {
    EXPECT_THAT(out.str(), HasSubstr(b.tail));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Runs, DiffReportBound,
    ::testing::Values(
        DiffBound{0, 0, ""}, DiffBound{1, 1, ""}, DiffBound{16, 16, ""},
        DiffBound{17, 17, "  … and 1 more ranges (--json lists them all)\n"},
        DiffBound{kListedDiffRuns, kListedDiffRuns, "  … and 4080 more ranges (--json lists them all)\n"},
        DiffBound{kListedDiffRuns + 1, kListedDiffRuns, "  … and 4081 more ranges (--json lists the first 4096)\n"},
        DiffBound{3 * kListedDiffRuns, kListedDiffRuns, "  … and 12272 more ranges (--json lists the first 4096)\n"}),
    [](const ::testing::TestParamInfo<DiffBound>& info) { return "runs_" + std::to_string(info.param.runs); });

DiffRequest diff_request(const std::string& a, const std::string& b) {
  DiffRequest r;
  r.dumps.before = test::kDumps + "q.npy";
  r.dumps.after = test::kDumps + a;
  r.dumps.positions = "0:128";
  r.after_b = test::kDumps + b;
  r.name_a = "trainer";
  r.name_b = "rollout";
  r.settings.layout = Layout::Half;
  return r;
}

TEST(RunDiff, OneCallGivesEachSideTheRunsAndTheNames) {
  const DiffRun run = run_diff(diff_request("q_rope.npy", "q_rope_interleaved.npy"));
  EXPECT_FALSE(run.passed());
  EXPECT_TRUE(run.diff.a.comparison.passed());
  EXPECT_FALSE(run.diff.b.comparison.passed());
  EXPECT_TRUE(run.dumps.before.values.empty());  // the report keeps no values
  const Value v = diff_value(run);
  EXPECT_EQ(v.find("range_count")->integer(), 2);
  EXPECT_EQ(v.find("a")->find("name")->text(), "trainer");
  EXPECT_EQ(v.find("b")->find("file")->text(), test::kDumps + "q_rope_interleaved.npy");
  EXPECT_EQ(v.find("ranges")->items()[1].find("positions")->text(), "1–127");
}

TEST(RunDiff, OutputsOfTwoShapesAreRefusedBeforeEitherIsRead) {
  try {
    run_diff(diff_request("q_rope.npy", "decode_q_rope.npy"));
    FAIL() << "no error";
  } catch (const InvalidArgument& e) {
    // The library names its setting, as the front end that installed a namer names it (the command line's flag here).
    EXPECT_THAT(e.what(), HasSubstr(option_name("after_b") + " '"));
    EXPECT_THAT(e.what(), HasSubstr("has shape (4, 2, 1, 64), " + option_name("after_a") + " '"));
    EXPECT_THAT(e.what(), HasSubstr("they must be equal"));
  }
}

}  // namespace
}  // namespace rope
