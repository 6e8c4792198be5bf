// rope positions --cp-size: one context-parallel rank's positions of a packed batch (analysis/dumps/cp_positions.hpp,
// its numbers tested against tests/reference/cp_positions.py in tests/analysis/dumps/test_cp_positions.cpp): the text,
// JSON and .npy wiring, the exit codes, Chinese, and bad input.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "rope/io/tensor_file.hpp"
#include "support/cli_harness.hpp"

namespace rope {
namespace {

using test::expect_one_line_error;
using test::rope_cli;
using ::testing::HasSubstr;

class CmdPositionsCpFiles : public test::TempDirTest {};

TEST(CmdPositionsCp, ZigzagRankOfAPackedBatchInText) {
  const auto r = rope_cli({"positions", "--sequence-starts", "0,8,24", "--cp-size", "2", "--cp-rank", "0"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "rank 0 of 2, zigzag: each sequence cut into 4 chunks, the rank holds chunks 0 and 3 (Megatron-LM, "
            "TransformerEngine)\n"
            "packed batch: 2 sequences, 24 tokens (sequence starts 0,8,24)\n"
            "this rank: 12 tokens, each at its position within its own sequence; its own sequence starts 0,4,12 "
            "(--sequence-starts for a check of this rank's dump)\n"
            "  sequence 0: 0 1 6 7\n"
            "  sequence 1: 0 1 2 3 12 13 14 15\n");
}

TEST(CmdPositionsCp, RoundRobinInJsonIsAFlatList) {
  const auto r = rope_cli({"positions", "--sequence-starts", "0,5,11", "--cp-size", "4", "--cp-rank", "1",
                           "--cp-layout", "round-robin", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["positions"], nlohmann::json({1, 0, 4}));  // tokens 1, 5, 9 of the batch
  EXPECT_EQ(j["local_sequence_starts"], nlohmann::json({0, 1, 3}));
  EXPECT_EQ(j["layout"], "round-robin");
  EXPECT_EQ(j["cp_size"], 4);
}

TEST_F(CmdPositionsCpFiles, NpyHoldsTheInt64Positions) {
  const auto r = rope_cli(
      {"positions", "--sequence-starts", "0,8,24", "--cp-size", "2", "--cp-rank", "1", "--npy", path("rank1.npy")});
  ASSERT_EQ(r.code, 0) << r.err;
  TensorReadOptions o;
  o.integers = true;
  const TensorData t = read_tensor_file(path("rank1.npy"), o);
  EXPECT_EQ(t.stored, "<i8");
  EXPECT_EQ(t.values, (std::vector<double>{2, 3, 4, 5, 4, 5, 6, 7, 8, 9, 10, 11}));
}

TEST(CmdPositionsCp, ChineseText) {
  const auto r = rope_cli({"positions", "--lang", "zh", "--sequence-starts", "0,4", "--cp-size", "2", "--cp-rank", "1",
                           "--cp-layout", "contiguous"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("2 个 rank 中的第 1 个，contiguous：每个序列切成 2 段，该 rank 持有第 1 段"));
  EXPECT_THAT(r.out, HasSubstr("  序列 0：2 3\n"));
}

TEST(CmdPositionsCp, BadInputGivesOneLineAndExitTwo) {
  expect_one_line_error(rope_cli({"positions", "--sequence-starts", "0,10", "--cp-size", "2"}), 2,
                        "--sequence-starts: sequence 0 has 10 tokens, not divisible by 2 · cp = 4");
  expect_one_line_error(rope_cli({"positions", "--cp-size", "2"}), 2, "--cp-size needs --sequence-starts");
  expect_one_line_error(rope_cli({"positions", "--sequence-starts", "0,8", "--cp-size", "2", "--cp-rank", "2"}), 2,
                        "--cp-rank must be between 0 and 2 − 1 = 1 (got 2)");
  expect_one_line_error(rope_cli({"positions", "--sequence-starts", "0,8", "--cp-size", "2", "--cp-layout", "ring"}), 2,
                        "--cp-layout must be zigzag, round-robin or contiguous (got 'ring')");
  expect_one_line_error(rope_cli({"positions", "--sequence-starts", "0,8.5", "--cp-size", "2"}), 2,
                        "--sequence-starts: 8.5 is not a token index");
  expect_one_line_error(rope_cli({"positions", "--sequence-starts", "0,8", "--cp-size", "2", "--text", "3"}), 2,
                        "excludes");
}

TEST_F(CmdPositionsCpFiles, ARefusedRunWritesNoFile) {
  const auto r = rope_cli({"positions", "--sequence-starts", "0,10", "--cp-size", "2", "--npy", path("x.npy")});
  EXPECT_EQ(r.code, 2);
  EXPECT_FALSE(std::filesystem::exists(path("x.npy")));
}

}  // namespace
}  // namespace rope
