// Issue 50 item 5: transformers 5's reading of the RoPE keys, tested both ways. rope reads a config written by
// transformers 4.x (rope_scaling, the top-level rope_theta) and the one transformers 5 writes for the same model
// (rope_parameters with rope_theta inside) to the same RoPE; `rope inspect --lint` (models/engine_lint.hpp) says what
// engines that read them as 4.x did compute instead.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <string>
#include <vector>

#include "models/config_test_util.hpp"
#include "rope/models/engine_lint.hpp"

namespace rope {
namespace {

using ::testing::HasSubstr;
using namespace config_test;

struct Generations {
  const char* name;
  const char* v4;  // as transformers 4.x wrote it
  const char* v5;  // as transformers 5 writes it
};

class TwoGenerations : public ::testing::TestWithParam<Generations> {};

TEST_P(TwoGenerations, ReadToTheSameRope) {
  const RopeConfig a = parse(GetParam().v4).rope, b = parse(GetParam().v5).rope;
  expect_same_rope(a, b);
  EXPECT_TRUE(engine_lint(GetParam().v4, "config.json").findings.empty());  // 4.x's keys: every reader agrees
  EXPECT_FALSE(engine_lint(GetParam().v5, "config.json").findings.empty());
}

INSTANTIATE_TEST_SUITE_P(
    EngineLint, TwoGenerations,
    ::testing::Values(
        Generations{"unscaled", R"({"model_type": "llama", "head_dim": 128, "rope_theta": 500000})",
                    R"({"model_type": "llama", "head_dim": 128,
                        "rope_parameters": {"rope_type": "default", "rope_theta": 500000}})"},
        Generations{
            "yarn",
            R"({"model_type": "qwen2", "head_dim": 128, "rope_theta": 1000000, "max_position_embeddings": 131072,
                        "rope_scaling": {"type": "yarn", "factor": 4, "original_max_position_embeddings": 32768}})",
            R"({"model_type": "qwen2", "head_dim": 128, "max_position_embeddings": 131072,
                        "rope_parameters": {"rope_type": "yarn", "factor": 4, "rope_theta": 1000000,
                                            "original_max_position_embeddings": 32768}})"}),
    [](const ::testing::TestParamInfo<Generations>& i) { return std::string(i.param.name); });

struct LintCase {
  const char* name;
  const char* config;
  std::vector<std::string> findings;  // a piece of each finding, in order
};

class EngineLintFindings : public ::testing::TestWithParam<LintCase> {};

TEST_P(EngineLintFindings, SaysWhatOtherReadersCompute) {
  const EngineLint lint = engine_lint(GetParam().config, "config.json");
  ASSERT_EQ(lint.findings.size(), GetParam().findings.size()) << ::testing::PrintToString(english(lint.findings));
  for (std::size_t i = 0; i < lint.findings.size(); ++i) {
    EXPECT_THAT(lint.findings[i].en, HasSubstr(GetParam().findings[i]));
  }
}

INSTANTIATE_TEST_SUITE_P(
    EngineLint, EngineLintFindings,
    ::testing::Values(
        LintCase{"plain_v4", R"({"head_dim": 128, "rope_theta": 10000})", {}},
        // A truthy rope_scaling that is not a scaling: HF v5 rotates plainly, a truthy check takes it as scaled.
        LintCase{"truthy_default_rope_scaling",
                 R"({"head_dim": 128, "rope_theta": 10000, "rope_scaling": {"rope_type": "default"}})",
                 {"rope_scaling has rope_type default: transformers 5 rotates with plain RoPE, but an engine that "
                  "takes a truthy rope_scaling as scaled"}},
        // The unscaled v5 form: rope_scaling is this block at run time, and the θ is inside it.
        LintCase{"v5_unscaled",
                 R"({"model_type": "qwen2", "head_dim": 128, "rope_parameters": {"rope_type": "default",
                     "rope_theta": 1000000}})",
                 {"rope_parameters has rope_type default: on transformers 5 config.rope_scaling returns this block",
                  "is only in rope_parameters: transformers 4.x and engines that read only the top-level rope_theta "
                  "use their default (10000 for this model type in transformers 4.x)"}},
        // Cohere: transformers 4.x's class default differs from v5's (the family table's default_theta_v4).
        LintCase{"v5_theta_inside_cohere",
                 R"({"model_type": "cohere", "head_dim": 128, "rope_parameters": {"rope_type": "default",
                     "rope_theta": 8000000}})",
                 {"rope_type default", "use their default (10000 for this model type in transformers 4.x)"}},
        LintCase{"v5_yarn_only_in_parameters",
                 R"({"head_dim": 128, "rope_theta": 10000, "rope_parameters": {"rope_type": "yarn", "factor": 4,
                     "original_max_position_embeddings": 4096, "partial_rotary_factor": 0.5}})",
                 {"the scaling (yarn, factor 4) is in rope_parameters only",
                  "partial_rotary_factor 0.5 is only in rope_parameters"}},
        LintCase{"theta_differs",
                 R"({"head_dim": 128, "rope_theta": 10000, "rope_scaling": {"rope_type": "linear", "factor": 2,
                     "rope_theta": 20000}})",
                 {"rope_scaling.rope_theta 20000 and the top-level rope_theta 10000 differ: transformers 5 takes "
                  "20000"}},
        LintCase{"both_blocks_differ",
                 R"({"head_dim": 128, "rope_theta": 10000, "rope_scaling": {"rope_type": "linear", "factor": 2},
                     "rope_parameters": {"rope_type": "yarn", "factor": 4, "original_max_position_embeddings": 64}})",
                 {"rope_scaling and rope_parameters differ: transformers 5 takes rope_scaling"}},
        LintCase{"keyed_by_layer_type",
                 R"({"head_dim": 128, "rope_parameters": {"full_attention": {"rope_type": "default"},
                     "sliding_attention": {"rope_type": "default"}}})",
                 {"rope_parameters is keyed by layer type (full_attention, sliding_attention)"}},
        LintCase{"text_config",
                 R"({"model_type": "gemma3", "text_config": {"head_dim": 128, "rope_scaling": {"type": "default"}}})",
                 {"text_config.rope_scaling has rope_type default"}}),
    [](const ::testing::TestParamInfo<LintCase>& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace rope
