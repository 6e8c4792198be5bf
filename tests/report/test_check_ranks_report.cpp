// The merge of a run's per-rank reports (report/check_ranks_report.hpp merge_rank_report_texts, `rope check --merge`
// and rope.distributed): reports of one run merged in rank order whatever order they come in, the value printed
// back as read; every bad set refused naming the report (tests/cli/check_rank_files.py compares the merge with the
// one command's report byte for byte on real dumps).
#include <gtest/gtest.h>

#include <cctype>
#include <string>
#include <vector>

#include "rope/core/error.hpp"
#include "rope/report/check_ranks_report.hpp"
#include "rope/report/json.hpp"

namespace rope {
namespace {

/// One rank's report as `rope check --rank-files … --cp-rank R --json` writes it, reduced to the keys the merge reads.
std::string report(long rank, bool passed, const std::string& layout = "zigzag", const std::string& base = "10000.0",
                   long cp = 2) {
  return "{\"cp_size\": " + std::to_string(cp) + ", \"cp_layout\": \"" + layout +
         "\", \"sequence_starts\": [0, 8], \"ranks\": [{\"rank\": " + std::to_string(rank) + ", \"file\": \"rank" +
         std::to_string(rank) + ".pt\", \"first_position\": 0.0, \"last_position\": 7.0, " +
         "\"matches_rank\": null, \"matches_layout\": null, \"passed\": " + (passed ? "true" : "false") +
         ", \"max_ratio\": 0.5, \"expected\": {\"base\": " + base +
         "}, \"diagnosis\": " + (passed ? "null" : "{\"message\": \"matches something\"}") +
         "}], \"passed\": true, \"failing_ranks\": []}";
}

TEST(MergeRankReports, PutsTheRanksInOrderAndPrintsThemBackAsRead) {
  const CheckRanksReport merged = merge_rank_report_texts({{"b", report(1, false)}, {"a", report(0, true)}});
  ASSERT_EQ(merged.ranks.size(), 2u);
  EXPECT_EQ(merged.ranks[0].rank, 0);
  EXPECT_EQ(merged.ranks[1].rank, 1);
  EXPECT_EQ(merged.failing_ranks(), std::vector<long>{1});
  EXPECT_FALSE(merged.passed());
  EXPECT_EQ(merged.ranks[1].diagnosis.en, "matches something");
  // Merged again from its own JSON: the same text (what --merge of --merge's ranks would print).
  const std::string once = json_text(check_ranks_value(merged));
  EXPECT_EQ(json_text(check_ranks_value(merge_rank_report_texts({{"m", once}}))), once);
}

struct BadMerge {
  const char* name;
  std::vector<RankReportText> reports;
  const char* words;
};

class MergeRankReportsRefuses : public ::testing::TestWithParam<BadMerge> {};

TEST_P(MergeRankReportsRefuses, NamingTheReport) {
  try {
    merge_rank_report_texts(GetParam().reports);
    ADD_FAILURE() << "accepted: " << GetParam().name;
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find(GetParam().words), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Sets, MergeRankReportsRefuses,
    ::testing::Values(BadMerge{"none", {}, "no report"},
                      BadMerge{"not JSON", {{"x.json", "{\"ranks\": ["}}, "x.json: not valid JSON"},
                      BadMerge{"a single check's report", {{"x.json", "{\"passed\": true}"}}, "no 'ranks'"},
                      BadMerge{"a rank missing", {{"a", report(0, true)}}, "no report of rank 1"},
                      BadMerge{"two of one rank",
                               {{"a", report(0, true)}, {"b", report(0, true)}},
                               "two reports of rank 0: 'a' and 'b'"},
                      BadMerge{"another layout",
                               {{"a", report(0, true)}, {"b", report(1, true, "contiguous")}},
                               "'b' is a report of another batch than 'a'"},
                      BadMerge{"another cp size",
                               {{"a", report(0, true)}, {"b", report(1, true, "zigzag", "10000.0", 4)}},
                               "another batch"},
                      BadMerge{"another RoPE",
                               {{"a", report(0, true)}, {"b", report(1, true, "zigzag", "500000.0")}},
                               "'b' is a report of another check than 'a'"},
                      BadMerge{"a rank beyond the cp size", {{"a", report(2, true)}}, "beyond its cp size"},
                      BadMerge{"too large", {{"big", std::string(kMaxRankReportBytes + 1, ' ')}}, "larger than the"}),
    [](const ::testing::TestParamInfo<BadMerge>& info) {
      std::string n = info.param.name;
      for (char& c : n) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
      return n;
    });

}  // namespace
}  // namespace rope
