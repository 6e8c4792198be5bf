// rope check and rope inspect --tensors on torch.save files (data/dumps/torch/, written from torch.save's
// documented layout by tests/reference/torch_save_fixtures.py): a bf16 view of a fused qkv passes, a rank whose
// packed batch was zigzagged as one sequence fails naming its positions, every layer of a file in one run, the
// tensors listed, and a pickle that would run a command refused with exit 2.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "rope/io/tensor_directory.hpp"
#include "support/cli_harness.hpp"
#include "support/shared.hpp"

namespace rope {
namespace {

using test::expect_one_line_error;
using test::kDumps;
using test::rope_cli;
using ::testing::HasSubstr;

class CmdCheckTorchFiles : public test::TempDirTest {};

const std::string kTorch = kDumps + "torch/";

TEST(CmdCheckTorch, ABf16ViewOfAFusedQkvPasses) {
  const auto r = rope_cli({"check", "--before", kTorch + "rope_before.pt", "--after", kTorch + "rope_after.pt",
                           "--tensor", "q", "--layout", "half", "--dtype", "bf16"});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("bf16 (bfloat16)"));
  EXPECT_THAT(r.out, HasSubstr("verdict             PASS"));
}

TEST_F(CmdCheckTorchFiles, ARankZigzaggedAsOneSequenceFailsNamingThePositions) {
  ASSERT_EQ(rope_cli({"positions", "--sequence-starts", "0,8,24", "--cp-size", "2", "--cp-rank", "0", "--npy",
                      path("rank0.npy")})
                .code,
            0);
  const std::vector<std::string> common = {
      "--before-tensor",   "q",      "--after-tensor", "q_rope", "--positions", "@" + path("rank0.npy"),
      "--sequence-starts", "0,4,12", "--layout",       "half",   "--dtype",     "bf16"};
  std::vector<std::string> right = {"check", "--before", kTorch + "cp_rank0.pt", "--after", kTorch + "cp_rank0.pt"};
  right.insert(right.end(), common.begin(), common.end());
  const auto ok = rope_cli(right);
  EXPECT_EQ(ok.code, 0) << ok.out << ok.err;
  std::vector<std::string> wrong = {"check", "--before", kTorch + "cp_rank0_one_sequence.pt", "--after",
                                    kTorch + "cp_rank0_one_sequence.pt"};
  wrong.insert(wrong.end(), common.begin(), common.end());
  const auto bad = rope_cli(wrong);
  EXPECT_EQ(bad.code, 1) << bad.out << bad.err;
  // Sequence 0's chunks 0 and 3 sit at 0 1 6 7, where the one-sequence split put 0 1 2 3: wrong from the third.
  // The positions are named by their runs (6–7, then sequence 1's 0–3 and 12–15), never as one range.
  EXPECT_THAT(bad.out, HasSubstr("positions failing   10 of 12 (first: position 6): 6–7, 0–3, 12–15"));
  EXPECT_THAT(bad.out, HasSubstr("sequence 0          indices 0–3, positions 0–1, 6–7: FAIL"));
  // The rank named: the one-sequence zigzag split of rank 0, not a drift.
  EXPECT_THAT(bad.out, HasSubstr("diagnosis           matches context-parallel rank 0's positions with the packed "
                                 "batch cut as one sequence (zigzag, cp size 2)"));
}

TEST(CmdCheckTorch, PositionsStoredBesideTheTensors) {
  const std::string f = kTorch + "cp_rank0.pt";
  const auto r = rope_cli({"check", "--before", f, "--after", f, "--before-tensor", "q", "--after-tensor", "q_rope",
                           "--positions", "@" + f, "--positions-tensor", "positions", "--sequence-starts", "0,4,12",
                           "--layout", "half", "--dtype", "bf16"});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
}

TEST(CmdCheckTorch, EveryLayerInOneRunTheWorstFirst) {
  const std::string f = kTorch + "layers.pt";
  const auto r = rope_cli({"check", "--before", f, "--after", f, "--before-tensor", "layers.*.q", "--after-tensor",
                           "layers.*.q_rope", "--layout", "half", "--dtype", "bf16", "--json"});
  ASSERT_EQ(r.code, 1) << r.out << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["layers"].size(), 3u);
  EXPECT_EQ(j["layers"][0]["before_tensor"], "layers.1.q");  // rotated with base 500000: the one failing
  EXPECT_EQ(j["layers"][0]["passed"], false);
  EXPECT_EQ(j["layers"][1]["passed"], true);
  EXPECT_EQ(j["layers"][2]["passed"], true);
  EXPECT_EQ(j["passed"], false);
  const auto text = rope_cli({"check", "--before", f, "--after", f, "--before-tensor", "layers.*.q", "--after-tensor",
                              "layers.*.q_rope", "--layout", "half", "--dtype", "bf16"});
  EXPECT_THAT(text.out, HasSubstr("3 layers"));
  EXPECT_THAT(text.out, HasSubstr("the worst layer, layers.1.q, in full:"));
}

TEST(CmdCheckTorch, TensorPatternsAreChecked) {
  const std::string f = kTorch + "layers.pt";
  expect_one_line_error(
      rope_cli({"check", "--before", f, "--after", f, "--before-tensor", "blocks.*.q", "--after-tensor", "blocks.*.k"}),
      2, "no tensor matches 'blocks.*.q'");
  expect_one_line_error(
      rope_cli({"check", "--before", f, "--after", f, "--before-tensor", "layers.*.q", "--after-tensor", "q_rope"}), 2,
      "the two tensor names need the same number of '*'");
  expect_one_line_error(rope_cli({"check", "--before", kDumps + "q.npy", "--after", kDumps + "q_rope.npy",
                                  "--positions-tensor", "positions"}),
                        2, "--positions-tensor names a tensor of a positions file: give --positions @FILE");
  expect_one_line_error(rope_cli({"check", "--before", f, "--after", f, "--before-tensor", "layers.*.q",
                                  "--after-tensor", "layers.*.missing"}),
                        2, "no tensor named 'layers.0.missing', the pair of 'layers.0.q'");
}

// Every rank's file of a run opened once (issue 80 item 1), its failing ranks' retries at the other ranks' positions
// and in the other layouts included: data/dumps/torch/cp4's 4 ranks, 3 of them failing (docs/check.md), 4 directories.
TEST(CmdCheckTorch, EachRanksFileIsOpenedOnceForItsCheckAndItsRetries) {
  const long before = detail::tensor_directory_reads();
  const test::Result r =
      rope_cli({"check", "--rank-files", kTorch + "cp4/rank*.pt", "--before-tensor", "q", "--after-tensor", "q_rope",
                "--cp-size", "4", "--cp-layout", "zigzag", "--sequence-starts", "0,8,16,32", "--layout", "half"});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_THAT(r.out, HasSubstr("rank 2 matches rank 1's positions")) << r.out;
  EXPECT_THAT(r.out, HasSubstr("rank 3 matches its own tokens split contiguous, not zigzag")) << r.out;
  EXPECT_EQ(detail::tensor_directory_reads() - before, 4);
}

TEST(CmdCheckTorch, InspectListsTheTensorsOfADump) {
  const auto r = rope_cli({"inspect", "--tensors", kTorch + "qkv_bf16.pt"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("(torch.save): 3 tensors"));
  EXPECT_THAT(r.out, HasSubstr("  k     bfloat16   (4, 2, 8)             (48, 8, 1), offset 16\n"));
  const auto j = nlohmann::json::parse(rope_cli({"inspect", "--tensors", kTorch + "nested.pt", "--json"}).out);
  EXPECT_EQ(j["tensors"][0]["name"], "layers.0.q");
  EXPECT_EQ(j["tensors"][1]["dtype"], "float16");
  const auto npy = nlohmann::json::parse(rope_cli({"inspect", "--tensors", kDumps + "q.npy", "--json"}).out);
  EXPECT_EQ(npy["format"], "npy");
  EXPECT_EQ(npy["tensors"][0]["shape"], nlohmann::json({128, 1, 64}));
}

TEST(CmdCheckTorch, InspectListsAShardedCheckpointThroughItsIndex) {
  // data/weights/llama-hf: two shards and model.safetensors.index.json (tests/reference/weights.py).
  const std::string dir = std::string(ROPE_REFERENCE_DIR) + "/../../data/weights/llama-hf";
  for (const std::string& path : {dir, dir + "/model.safetensors.index.json"}) {
    const auto r = rope_cli({"inspect", "--tensors", path, "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["format"], "safetensors");
    ASSERT_EQ(j["tensors"].size(), 3u);
    EXPECT_EQ(j["tensors"][0]["name"], "model.layers.0.self_attn.k_proj.weight");
    EXPECT_EQ(j["tensors"][0]["shape"], nlohmann::json({32, 256}));
    EXPECT_EQ(j["tensors"][0]["file"], "model-00002-of-00002.safetensors");
    EXPECT_EQ(j["tensors"][1]["file"], "model-00001-of-00002.safetensors");
  }
  const auto text = rope_cli({"inspect", "--tensors", dir});
  EXPECT_THAT(text.out, HasSubstr("llama-hf (safetensors): 3 tensors"));
  EXPECT_THAT(text.out, HasSubstr("model-00001-of-00002.safetensors\n"));
  const auto zh = rope_cli({"inspect", "--tensors", dir, "--lang", "zh"});
  EXPECT_THAT(zh.out, HasSubstr("分片"));
  // A directory that is no checkpoint: the weights reader's one line, exit 2.
  expect_one_line_error(rope_cli({"inspect", "--tensors", kDumps + "torch"}), 2,
                        "a Hugging Face directory needs model.safetensors or model.safetensors.index.json");
}

TEST(CmdCheckTorch, ACodeRunningPickleIsRefused) {
  const std::string evil = std::string(ROPE_REFERENCE_DIR) + "/../data/torch/hostile_system.pt";
  expect_one_line_error(rope_cli({"inspect", "--tensors", evil}), 2, "refuses to run `os.system` named in data.pkl");
  expect_one_line_error(rope_cli({"check", "--before", evil, "--after", evil}), 2, "refuses to run `os.system`");
}

}  // namespace
}  // namespace rope
