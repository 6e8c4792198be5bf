// rope/models/hf/hf_config_sequence.cpp: the rules of a Qwen-VL config for the position ids of a mixed
// sequence (spatial_merge_size, tokens_per_second, Qwen3-VL's frames), where each came from, and
// sequence_positions_of's refusals.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "models/config_test_util.hpp"
#include "rope/models/presets.hpp"

namespace rope {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace config_test;

std::vector<std::string> english_origin(const SequencePositions& s) {
  std::vector<std::string> out;
  for (const Message& m : s.origin) out.push_back(m.en);
  return out;
}

TEST(HfConfigSequence, QwenTwoPointFiveVlReadsItsVisionConfig) {
  // Qwen/Qwen2.5-VL-7B-Instruct config.json: vision_config.spatial_merge_size 2, tokens_per_second 2
  // (data/models/qwen2.5-vl-7b.json keeps both).
  const ModelConfig m = load_preset("qwen2.5-vl-7b");
  const SequencePositions s = sequence_positions_of(m);
  EXPECT_EQ(s.rules.spatial_merge_size, 2);
  EXPECT_EQ(s.rules.tokens_per_second, 2.0);
  EXPECT_FALSE(s.frames_with_timestamps);
  EXPECT_EQ(s.family, "Qwen2.5-VL");
  EXPECT_THAT(english_origin(s), ElementsAre("spatial_merge_size: 2 (vision_config.spatial_merge_size)",
                                             "tokens_per_second: 2 (vision_config.tokens_per_second)"));
  // Without the keys: the vision config classes' defaults, spatial_merge_size 2 and (Qwen2.5-VL)
  // tokens_per_second 4 (configuration_qwen2_5_vl.py Qwen2_5_VLVisionConfig), said as defaults.
  const ModelConfig bare = parse(R"({"model_type": "qwen2_5_vl", "head_dim": 128, "vision_config": {"depth": 32}})");
  ASSERT_TRUE(bare.sequence_positions) << bare.sequence_positions_error;
  EXPECT_EQ(bare.sequence_positions->rules.tokens_per_second, 4.0);
  EXPECT_THAT(english_origin(*bare.sequence_positions),
              ElementsAre("spatial_merge_size: 2 (not in the file: the vision config class's default)",
                          "tokens_per_second: 4 (not in the file: the vision config class's default)"));
}

TEST(HfConfigSequence, QwenTwoVlHasNoTimeScalingAndQwenThreeVlSplitsFrames) {
  const ModelConfig qwen2 = load_preset("qwen2-vl-7b"), qwen3 = load_preset("qwen3-vl-8b");
  const SequencePositions two = sequence_positions_of(qwen2);
  EXPECT_EQ(two.rules.spatial_merge_size, 2);
  EXPECT_FALSE(two.rules.tokens_per_second);
  EXPECT_FALSE(two.frames_with_timestamps);
  const SequencePositions three = sequence_positions_of(qwen3);
  EXPECT_FALSE(three.rules.tokens_per_second);
  EXPECT_TRUE(three.frames_with_timestamps);
  EXPECT_EQ(three.family, "Qwen3-VL");
  const ModelConfig merge1 =
      parse(R"({"model_type": "qwen2_vl", "head_dim": 128, "vision_config": {"spatial_merge_size": 1}})");
  EXPECT_EQ(sequence_positions_of(merge1).rules.spatial_merge_size, 1);
}

TEST(HfConfigSequence, OtherModelsAndBrokenVisionConfigsAreRefusedByName) {
  EXPECT_THAT([] { sequence_positions_of(load_preset("llama-3.1-8b")); },
              ::testing::ThrowsMessage<InvalidArgument>(
                  HasSubstr("llama-3.1-8b (model_type 'llama') has no M-RoPE position ids")));
  // A broken key leaves the language model readable; the rules are refused naming the key.
  const ModelConfig zero =
      parse(R"({"model_type": "qwen2_vl", "head_dim": 128, "vision_config": {"spatial_merge_size": 0}})");
  EXPECT_EQ(zero.rope.head_dim, 128);
  EXPECT_FALSE(zero.sequence_positions);
  EXPECT_THAT([&] { sequence_positions_of(zero); }, ::testing::ThrowsMessage<InvalidArgument>(HasSubstr(
                                                        "vision_config.spatial_merge_size: must be positive, got 0")));
  const ModelConfig big =
      parse(R"({"model_type": "qwen2_vl", "head_dim": 128, "vision_config": {"spatial_merge_size": 65}})");
  EXPECT_THAT([&] { sequence_positions_of(big); },
              ::testing::ThrowsMessage<InvalidArgument>(
                  HasSubstr("vision_config.spatial_merge_size: must be at most 64, got 65")));
  const ModelConfig tps =
      parse(R"({"model_type": "qwen2_5_vl", "head_dim": 128, "vision_config": {"tokens_per_second": -2}})");
  EXPECT_THAT([&] { sequence_positions_of(tps); }, ::testing::ThrowsMessage<InvalidArgument>(HasSubstr(
                                                       "vision_config.tokens_per_second: must be positive, got -2")));
}

}  // namespace
}  // namespace rope
