// FoPE of a config.json (rope/models/fope.hpp, hf/hf_config_fope.cpp): the kept pairs of (F1) as the engines count
// them in float32, Intern-S1-Pro's keys read into the spec with inspect's note, and the configs no engine builds
// refused naming the rule.
#include "rope/models/fope.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "models/config_test_util.hpp"
#include "rope/models/rope_spec.hpp"

namespace rope {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using namespace config_test;

struct FopeKeptCase {
  const char* name;
  int rotary_dim;
  double base;
  long max_position;
  std::optional<long> num_inv_freq;
  int kept;  // tests/reference/fope.py's kept_inv_freq (float32 inv_freq against float32 2π / L)
};

class FopeKept : public testing::TestWithParam<FopeKeptCase> {};

TEST_P(FopeKept, CountsAsTheEnginesDo) {
  const FopeKeptCase& c = GetParam();
  FopeConfig f;
  f.max_position = c.max_position;
  f.num_inv_freq = c.num_inv_freq;
  EXPECT_EQ(fope_kept_pairs(f, c.rotary_dim, c.base), c.kept);
}

INSTANTIATE_TEST_SUITE_P(Cases, FopeKept,
                         testing::Values(FopeKeptCase{"intern_s1_pro", 128, 5e6, 262144, std::nullopt, 45},
                                         FopeKeptCase{"base_1e4_4096", 128, 1e4, 4096, std::nullopt, 46},
                                         FopeKeptCase{"d64_1e6_32768", 64, 1e6, 32768, std::nullopt, 20},
                                         FopeKeptCase{"context_1m", 128, 5e6, 1L << 20, std::nullopt, 50},
                                         FopeKeptCase{"num_inv_freq", 128, 5e6, 262144, 32, 32}),
                         [](const testing::TestParamInfo<FopeKeptCase>& info) { return std::string(info.param.name); });

constexpr const char* kInternS1Pro = R"({"model_type": "interns1_pro", "text_config": {"model_type":
    "interns1_pro_text", "head_dim": 128, "hidden_size": 4096, "num_attention_heads": 64, "num_key_value_heads": 4,
    "max_position_embeddings": 262144, "rope_scaling": {"rope_type": "default", "fope_init_factor": 0.5,
    "fope_sep_head": true, "num_inv_freq": null}, "rope_theta": 5000000}})";

TEST(HfConfigFope, InternS1ProKeepsFortyFivePairsPerKeyValueHead) {
  const ModelConfig m = parse(kInternS1Pro);
  ASSERT_TRUE(m.fope);
  EXPECT_TRUE(m.fope->sep_head);
  EXPECT_EQ(m.fope->kv_heads, 4);
  EXPECT_EQ(m.fope->max_position, 262144);
  EXPECT_FALSE(m.fope->num_inv_freq);
  EXPECT_THAT(english(m.notes), Contains(HasSubstr("45 pairs keep their θ (those with θ_i > 2π / "
                                                   "max_position_embeddings = 2π / 262144), the other 19 of the head's "
                                                   "64 pairs are padded")));
  EXPECT_THAT(english(m.notes), Contains(HasSubstr("[4, 45, 45], one matrix per key-value head")));
  const RopeSpec spec = make_spec(m);
  ASSERT_TRUE(spec.fope);
  EXPECT_EQ(spec.rotary_dim, 128);
  EXPECT_EQ(spec.layout, Layout::Half);
}

TEST(HfConfigFope, OffWithoutItsKeysOrWithUseFopeFalse) {
  EXPECT_FALSE(parse(R"({"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
      "rope_scaling": {"rope_type": "default"}})")
                   .fope);
  EXPECT_FALSE(parse(R"({"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
      "rope_scaling": {"rope_type": "default", "use_fope": false, "fope_sep_head": true}})")
                   .fope);
  const ModelConfig shared = parse(R"({"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
      "max_position_embeddings": 4096, "rope_scaling": {"rope_type": "default", "num_inv_freq": 24}})");
  ASSERT_TRUE(shared.fope);
  EXPECT_FALSE(shared.fope->sep_head);
  EXPECT_THAT(english(shared.notes), Contains(HasSubstr("24 pairs keep their θ (the first num_inv_freq = 24)")));
}

struct FopeRefusedCase {
  const char* name;
  const char* json;
  const char* rule;
};

class HfConfigFopeRefused : public testing::TestWithParam<FopeRefusedCase> {};

TEST_P(HfConfigFopeRefused, NamesTheRule) { expect_invalid(GetParam().json, GetParam().rule); }

const FopeRefusedCase kFopeRefusedCases[] = {
    {"scaled", R"({"head_dim": 128, "num_attention_heads": 8, "max_position_embeddings": 4096,
        "rope_scaling": {"rope_type": "linear", "factor": 2, "fope_sep_head": true}})",
     "FoPE is built only with rope_type default"},
    {"no_max_position", R"({"head_dim": 128, "num_attention_heads": 8,
        "rope_scaling": {"rope_type": "default", "fope_sep_head": true}})",
     "gives neither max_position_embeddings nor rope_scaling.num_inv_freq"},
    {"partial", R"({"head_dim": 128, "num_attention_heads": 8, "max_position_embeddings": 4096,
        "partial_rotary_factor": 0.5, "rope_scaling": {"rope_type": "default", "fope_sep_head": true}})",
     "FoPE with a partial rotary dimension (64 of 128 channels)"},
    {"mrope", R"({"head_dim": 128, "num_attention_heads": 8, "max_position_embeddings": 4096,
        "rope_scaling": {"rope_type": "default", "fope_sep_head": true, "mrope_section": [16, 24, 24]}})",
     "FoPE with mrope_section"},
    {"too_many_kept", R"({"head_dim": 128, "num_attention_heads": 8, "max_position_embeddings": 4096,
        "rope_scaling": {"rope_type": "default", "num_inv_freq": 65}})",
     "num_inv_freq 65 is more than the 64 pairs"},
};

INSTANTIATE_TEST_SUITE_P(Cases, HfConfigFopeRefused, testing::ValuesIn(kFopeRefusedCases),
                         [](const testing::TestParamInfo<FopeRefusedCase>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace rope
