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
         (passed ? ", \"max_ratio\": 0.5, \"failing\": 0" : ", \"max_ratio\": 2.5, \"failing\": 3") +
         ", \"expected\": {\"base\": " + base +
         "}, \"diagnosis\": " + (passed ? "null" : "{\"message\": \"matches something\"}") +
         "}], \"passed\": true, \"failing_ranks\": []}";
}

/// `text` with its first `from` replaced by `to` (a report edited by hand).
std::string edited(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  if (at == std::string::npos)
    ADD_FAILURE() << "no '" << from << "' in " << text;
  else
    text.replace(at, from.size(), to);
  return text;
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

// The rows are kept as values until the merged report is printed: a report of small numbers (a value per 2 bytes
// of text, about 140 bytes of memory each: 2.25 GB for 16 MiB before the bound) is refused at kMaxMergedValues, its
// values counted before any is made.
TEST(MergeRankReports, BoundsTheValuesKept) {
  std::string dense = "[0";
  for (std::size_t i = 0; i < kMaxMergedValues; ++i) dense += ",0";
  dense += "]";
  const std::string one =
      edited(report(0, true, "zigzag", "10000.0", 1), "\"failing\": 0", "\"failing\": 0, \"notes\": " + dense);
  ASSERT_LE(one.size(), kMaxRankReportBytes);
  try {
    merge_rank_report_texts({{"dense", one}});
    ADD_FAILURE() << "accepted " << kMaxMergedValues << " values";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("values in all (at rank 0 of 'dense')"), std::string::npos) << e.what();
  }
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
    ::testing::Values(
        BadMerge{"none", {}, "no report"},
        BadMerge{"not JSON", {{"x.json", "{\"ranks\": ["}}, "x.json: not valid JSON"},
        // A plain check's report: its rank from its name, its verdict from its numbers.
        BadMerge{"a plain report named by no number", {{"x.json", "{\"passed\": true}"}}, "x.json"},
        BadMerge{"a plain report without numbers", {{"rank0.json", "{\"passed\": true}"}}, "without whole 'failing'"},
        BadMerge{"a plain report's rank missing",
                 {{"rank1.json", "{\"passed\": true, \"failing\": 0, \"max_ratio\": 0.5}"}},
                 "no report of rank 0"},
        BadMerge{"reports of two kinds",
                 {{"rank1.json", "{\"passed\": true, \"failing\": 0, \"max_ratio\": 0.5}"}, {"a", report(0, true)}},
                 "reports of two kinds"},
        BadMerge{"a rank missing", {{"a", report(0, true)}}, "no report of rank 1"},
        BadMerge{
            "two of one rank", {{"a", report(0, true)}, {"b", report(0, true)}}, "two reports of rank 0: 'a' and 'b'"},
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
        BadMerge{"too large", {{"big", std::string(kMaxRankReportBytes + 1, ' ')}}, "larger than the"},
        // A row's verdict is its numbers': a "passed" beside failing numbers, or the reverse, refused.
        BadMerge{"passed beside failing numbers",
                 {{"a", report(0, true)}, {"b", edited(report(1, false), "\"passed\": false", "\"passed\": true")}},
                 "b: rank 1 says it passed beside numbers that fail (3 failing, max |Δ|/tolerance 2.5)"},
        BadMerge{"passed beside a failing ratio",
                 {{"a", report(0, true)}, {"b", edited(report(1, true), "\"max_ratio\": 0.5", "\"max_ratio\": 2.9e5")}},
                 "b: rank 1 says it passed beside numbers that fail"},
        BadMerge{"failed beside passing numbers",
                 {{"a", report(0, true)}, {"b", edited(report(1, true), "\"passed\": true", "\"passed\": false")}},
                 "b: rank 1 says it failed beside numbers that pass"},
        BadMerge{"no failing count",
                 {{"a", edited(report(0, true), ", \"failing\": 0", "")}, {"b", report(1, true)}},
                 "without whole 'failing'"},
        // The batch as --rank-files validates it.
        BadMerge{"a layout not named",
                 {{"a", edited(report(0, true), "\"zigzag\"", "\"banana\"")}},
                 "the layout 'banana' is not zigzag, round-robin or contiguous"},
        BadMerge{"starts that do not increase",
                 {{"a", edited(report(0, true), "[0, 8]", "[32, 16, 8, 0]")}},
                 "give 0, the start of each later sequence"},
        BadMerge{"a sequence the layout cannot split",
                 {{"a", edited(report(0, true), "[0, 8]", "[0, 6]")}},
                 "sequence 0 has 6 tokens, not divisible by 2 · cp = 4"}),
    [](const ::testing::TestParamInfo<BadMerge>& info) {
      std::string n = info.param.name;
      for (char& c : n) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
      return n;
    });

}  // namespace
}  // namespace rope
