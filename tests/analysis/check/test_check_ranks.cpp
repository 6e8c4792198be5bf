// Each rank's file of a distributed run (analysis/check/check_ranks.hpp): the rank read from the path as the engines
// name their dumps (rank3.pt, SGLang's TP0_PP0_Rank2_pid7/Pass00000.pt, TensorRT-LLM's rank1/…, q.3.pt), and the
// files put in rank order with every bad set refused.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "rope/analysis/check/check_ranks.hpp"
#include "rope/core/error.hpp"
#include "rope/core/message.hpp"

namespace rope {
namespace {

struct RankCase {
  const char* path;
  const char* rank_of;
  long rank;  ///< −1: refused
};

class RankOfPath : public ::testing::TestWithParam<RankCase> {};

TEST_P(RankOfPath, ReadsOrRefuses) {
  const RankCase& c = GetParam();
  if (c.rank < 0) {
    EXPECT_THROW(rank_of_path(c.path, c.rank_of), InvalidArgument) << c.path;
  } else {
    EXPECT_EQ(rank_of_path(c.path, c.rank_of), c.rank) << c.path;
  }
}

INSTANTIATE_TEST_SUITE_P(Paths, RankOfPath,
                         ::testing::Values(RankCase{"dump/rank3.pt", "", 3},    // after "rank"
                                           RankCase{"dump/RANK12.pt", "", 12},  // any case
                                           RankCase{"out/TP0_PP0_Rank2_pid4711/Pass00000.pt", "",
                                                    2},                                            // SGLang's directory
                                           RankCase{"dbg/rank1/17.Attention-output.q.pt", "", 1},  // TensorRT-LLM's
                                           RankCase{"dump/rank_5/q.pt", "", 5},                    // rank_5
                                           RankCase{"q.3.pt", "", 3},                              // the only number
                                           RankCase{"run7/q.3.pt", "", 3},             // the name's, not the path's
                                           RankCase{"rank1/rank2.pt", "", -1},         // two ranks named
                                           RankCase{"q.pt", "", -1},                   // no number
                                           RankCase{"step10_q3.pt", "", -1},           // two numbers
                                           RankCase{"step10_q3.pt", "q{N}", 3},        // --rank-of
                                           RankCase{"a/q12.pt", "q{N}.pt", 12},        // text after {N}
                                           RankCase{"q1_q2.pt", "q{N}.pt", 2},         // the first place it fits
                                           RankCase{"step10_q3.pt", "x{N}", -1},       // no match
                                           RankCase{"step10_q3.pt", "q[0-9]+", -1},    // no {N}
                                           RankCase{"step10_q3.pt", "q{N}_{N}", -1},   // two
                                           RankCase{"step10_q3.pt", "q([0-9]+)", -1},  // a regex: no {N}
                                           RankCase{"step10_qx.pt", "q{N}", -1},       // no digits there
                                           RankCase{"d/RANK_4.pt", "", 4},             // rank_4, any case
                                           RankCase{"d/rank_x3.pt", "", 3},            // "rank" without a number
                                           RankCase{"rank99999999999999999999.pt", "", -1}));  // too long

// A pattern is scanned, never compiled: no nesting to recurse on (a regular expression 20 000 groups deep crashed the
// compiler's recursion) and no backtracking (`(?:a|aa)+x?([0-9])y` ran exponentially on a 40-character name); a
// refused pattern is echoed cut to kRankPatternEcho bytes.
TEST(RankOfPath, RefusesHostilePatternsAtOnceEchoingThemShort) {
  const std::string deep = std::string(20000, '(') + "a" + std::string(20000, ')');
  const std::string path = std::string(40, 'a') + ".pt";
  for (const std::string& pattern : {deep, std::string("(?:a|aa)+x?([0-9])y"), std::string(24000, 'x') + "{N}"}) {
    try {
      rank_of_path(path, pattern);
      ADD_FAILURE() << "accepted a pattern of " << pattern.size() << " bytes";
    } catch (const InvalidArgument& e) {
      const std::string what = e.what();
      EXPECT_LT(what.size(), kRankPatternEcho + 200) << what.substr(0, 300);
      if (pattern.size() > kRankPatternEcho) EXPECT_NE(what.find("…"), std::string::npos) << what;
    }
  }
  // At the bound, on the longest path a glob gives: matched or refused by a scan.
  const std::string longest(kMaxRankPattern - 3, 'a');
  EXPECT_EQ(rank_of_path(std::string(4000, 'a') + "7.pt", longest + "{N}"), 7);
  EXPECT_THROW(rank_of_path(std::string(4000, 'a') + ".pt", longest + "{N}"), InvalidArgument);
}

// The ranks' rules before any file is read (ranks_request): each rank at its positions of the batch or at its file's
// own positions, never both (a file's own positions compared with nothing passed a rank that numbered its tokens from
// 0: a false PASS), one dump's settings refused, each naming its setting.
TEST(RanksRequest, RefusesEachRuleNamingItsSetting) {
  const auto refused = [](RankFileSettings r, DumpFiles d, const std::string& words) {
    if (r.files.empty() && r.before.empty()) r.files = "/nonexistent/rank*.pt";
    CheckRequest check;
    check.dumps = std::move(d);
    try {
      ranks_request(r, check);
      ADD_FAILURE() << "accepted: " << words;
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  DumpFiles both;
  both.sequence_starts = "0,8,16,32";
  both.positions_tensor = "positions";
  const auto name = [](const char* setting) { return option_name(setting); };
  refused({}, both,
          name("positions_tensor") + " checks each rank at its file's positions, " + name("sequence_starts") +
              " at its positions of the packed batch: give one");
  refused({}, {}, "needs the packed batch's " + name("sequence_starts") + " (or " + name("positions_tensor"));
  DumpFiles starts;
  starts.sequence_starts = "0,8,16,32";
  DumpFiles positions = starts;
  positions.positions = "@/missing";
  refused({}, positions, "checks one tensor per rank at the rank's positions: leave out " + name("positions"));
  DumpFiles before = starts;
  before.before = "q.pt";
  refused({}, before, "leave out " + name("before"));
  DumpFiles tensor;
  tensor.positions_tensor = "positions";
  RankFileSettings layout;
  layout.cp_layout = "zigzag";
  refused(layout, tensor, name("cp_layout") + " splits the packed batch of " + name("sequence_starts"));
  RankFileSettings rank;
  rank.cp_rank = 1;
  refused(rank, starts, name("cp_rank") + " needs " + name("cp_size"));
  RankFileSettings banana;
  banana.cp_layout = "banana";
  refused(banana, starts, "must be zigzag, round-robin or contiguous (got 'banana')");
  RankFileSettings size;
  size.cp_size = 4;
  DumpFiles down = starts;
  down.sequence_starts = "32,16,8,0";
  refused(size, down, "give 0, the start of each later sequence");
  refused({}, starts, name("rank_files") + " matches no file");
}

// The library's run refuses the combination for every caller, before any file is read.
TEST(RunCheckRanks, RefusesTheFilesPositionsBesideABatch) {
  CheckRanksRequest r;
  r.files = {"/nonexistent/rank0.pt"};
  r.batch.cp_size = 1;
  r.batch.sequence_starts = {0, 2};
  r.check.dumps.positions_tensor = "positions";
  EXPECT_THROW(run_check_ranks(r), InvalidArgument);
}

TEST(FilesByRank, PutsTheFilesInRankOrder) {
  const std::vector<std::string> got = files_by_rank({"d/rank2.pt", "d/rank0.pt", "d/rank1.pt"}, 3, "", "rank_files");
  EXPECT_EQ(got, (std::vector<std::string>{"d/rank0.pt", "d/rank1.pt", "d/rank2.pt"}));
}

TEST(FilesByRank, RefusesBadSets) {
  const auto refused = [](const std::vector<std::string>& paths, long cp, const std::string& words) {
    try {
      files_by_rank(paths, cp, "", "rank_files");
      ADD_FAILURE() << "accepted: " << words;
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  refused({}, 2, "matches no file");
  refused({"rank0.pt", "rank2.pt"}, 3, "no file of rank 1");                    // a rank missing
  refused({"a/rank0.pt", "b/rank0.pt", "rank1.pt"}, 2, "two files of rank 0");  // two files of one rank
  refused({"rank0.pt", "rank1.pt", "rank2.pt"}, 2, "is rank 2, beyond");        // cp size smaller than the files
  refused({"rank0.pt"}, 2, "no file of rank 1");                                // cp size larger
}

// One rank's file (--cp-rank, a rank's report for --merge): the others' paths left out, its slot alone filled.
TEST(FileOfRank, PicksTheRanksFileAlone) {
  const std::vector<std::string> got = file_of_rank({"d/rank2.pt", "d/rank0.pt", "d/rank1.pt"}, 1, 3, "", "rank_files");
  EXPECT_EQ(got, (std::vector<std::string>{"", "d/rank1.pt", ""}));
}

TEST(FileOfRank, RefusesBadSets) {
  const auto refused = [](const std::vector<std::string>& paths, long rank, long cp, const std::string& words) {
    try {
      file_of_rank(paths, rank, cp, "", "rank_files");
      ADD_FAILURE() << "accepted: " << words;
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  refused({}, 0, 2, "matches no file");
  refused({"rank0.pt", "rank2.pt"}, 1, 3, "no file of rank 1");
  refused({"a/rank0.pt", "b/rank0.pt"}, 0, 2, "two files of rank 0");
  refused({"rank0.pt"}, 2, 2, "is not a rank of");
  refused({"rank0.pt"}, -1, 2, "is not a rank of");
}

}  // namespace
}  // namespace rope
