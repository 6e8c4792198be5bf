// permutation.hpp: the converter's q/k row order against NumPy's reshape/swapaxes (tests/reference/permute.py),
// the exactness of NORM on permuted weights, and the GQA bug.
#include "rope/analysis/weights/permutation.hpp"

#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <numeric>
#include <sstream>
#include <string>

#include "rope/core/error.hpp"

namespace rope {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

TEST(Permutation, OneHeadByHand) {
  // (G1) with hd = 8: HF pair (j, j + 4) becomes rows (2j, 2j + 1).
  EXPECT_EQ(gguf_row_order(8, 1), (std::vector<long>{0, 4, 1, 5, 2, 6, 3, 7}));
  EXPECT_EQ(gguf_row_order(2, 1), (std::vector<long>{0, 1}));  // one pair: nothing moves
}

TEST(Permutation, MatchesNumpyReshape) {
  std::ifstream in(std::string(ROPE_REFERENCE_DIR) + "/permute_orders.csv");
  std::string line;
  std::getline(in, line);  // provenance
  std::getline(in, line);  // header
  int cases = 0;
  while (std::getline(in, line)) {
    std::istringstream row(line);
    long rows = 0, heads = 0;
    char comma = 0;
    row >> rows >> comma >> heads >> comma;
    std::vector<long> expected;
    for (long v = 0; row >> v;) expected.push_back(v);
    SCOPED_TRACE(line.substr(0, 20));
    EXPECT_EQ(gguf_row_order(rows, heads), expected);
    ++cases;
  }
  EXPECT_EQ(cases, 9);
}

TEST(Permutation, IsAPermutationAndRefusesShapesTheReshapeRefuses) {
  std::vector<long> order = gguf_row_order(1024, 8);
  std::sort(order.begin(), order.end());
  std::vector<long> identity(1024);
  std::iota(identity.begin(), identity.end(), 0L);
  EXPECT_EQ(order, identity);
  EXPECT_FALSE(gguf_permutable(24, 8));  // 24 rows in 8 heads: 3 per head, no two halves
  EXPECT_THAT([] { gguf_row_order(24, 8); }, ThrowsMessage<InvalidArgument>(HasSubstr("cannot be cut into 8 heads")));
  EXPECT_THROW(gguf_row_order(8, 0), InvalidArgument);
}

TEST(Permutation, NormOnPermutedWeightsEqualsRotateHalfBitForBit) {
  PermuteSettings s;  // 4 query heads, 2 KV heads, hd 8
  const PermuteDemo d = permute_demo(s);
  EXPECT_TRUE(d.passed());
  // Summed pair by pair, both sides add the same products in the same order.
  EXPECT_EQ(d.max_fix_difference, 0.0);
  EXPECT_GT(d.tolerance, 0.0);
  EXPECT_EQ(d.scores, 4 * 65);
  EXPECT_EQ(d.score_hf, d.score_gguf);
}

TEST(Permutation, GqaBugMovesTheScores) {
  PermuteSettings s;
  const PermuteDemo d = permute_demo(s);
  ASSERT_TRUE(d.k_order_bug);
  EXPECT_NE(*d.k_order_bug, d.k_order);
  // k permuted in 4 groups of 4 rows instead of 2 heads of 8: pairs of other channels and frequencies.
  EXPECT_EQ(*d.k_order_bug, (std::vector<long>{0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15}));
  // The scores move by a sizeable part of their own size (they are of size sqrt(width·hd) here).
  EXPECT_GT(d.max_bug_difference, 0.5 * d.score_rms);
  EXPECT_GT(d.mean_bug_difference, 0.1 * d.score_rms);
  // Without GQA the same mistake is no mistake.
  s.n_head_kv = 4;
  const PermuteDemo mha = permute_demo(s);
  EXPECT_EQ(mha.max_bug_difference, 0.0);
}

TEST(Permutation, Llama2_70bShapes) {
  PermuteSettings s;
  s.head_dim = 128;
  s.n_head = 64;
  s.n_head_kv = 8;
  s.base = 10000;
  s.max_distance = 4;
  const PermuteDemo d = permute_demo(s);
  EXPECT_EQ(d.max_fix_difference, 0.0);
  ASSERT_TRUE(d.k_order_bug);  // 1024 k rows in 64 groups of 16: the reshape works, silently wrong
  EXPECT_GT(d.max_bug_difference, 0.5 * d.score_rms);
}

TEST(Permutation, RefusesBadSettings) {
  PermuteSettings s;
  s.head_dim = 7;
  EXPECT_THAT([&] { permute_demo(s); }, ThrowsMessage<InvalidArgument>(HasSubstr("head dimension 7 must be even")));
  s = PermuteSettings();
  s.n_head = 6;
  s.n_head_kv = 4;
  EXPECT_THAT([&] { permute_demo(s); }, ThrowsMessage<InvalidArgument>(HasSubstr("multiple of the KV heads")));
  s = PermuteSettings();
  s.max_distance = kMaxPermuteDistance + 1;
  EXPECT_THROW(permute_demo(s), InvalidArgument);
}

}  // namespace
}  // namespace rope
