// Each rank's file of a distributed run (analysis/check/check_ranks.hpp): the rank read from the path as the engines
// name their dumps (rank3.pt, SGLang's TP0_PP0_Rank2_pid7/Pass00000.pt, TensorRT-LLM's rank1/…, q.3.pt), and the
// files put in rank order with every bad set refused.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "rope/analysis/check/check_ranks.hpp"
#include "rope/core/error.hpp"

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
                                           RankCase{"run7/q.3.pt", "", 3},               // the name's, not the path's
                                           RankCase{"rank1/rank2.pt", "", -1},           // two ranks named
                                           RankCase{"q.pt", "", -1},                     // no number
                                           RankCase{"step10_q3.pt", "", -1},             // two numbers
                                           RankCase{"step10_q3.pt", "q([0-9]+)", 3},     // --rank-of
                                           RankCase{"step10_q3.pt", "x([0-9]+)", -1},    // no match
                                           RankCase{"step10_q3.pt", "q[0-9]+", -1},      // no group
                                           RankCase{"step10_q3.pt", "(q)([0-9]+)", -1},  // two groups
                                           RankCase{"step10_q3.pt", "(q", -1},           // not a regex
                                           RankCase{"step10_qx.pt", "q(x)", -1},         // not a number
                                           RankCase{"rank99999999999999999999.pt", "", -1}));  // too long

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
