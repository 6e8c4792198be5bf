#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/models/scaling/scaling.hpp"
#include "models/scaling/scaling_test_util.hpp"

// What HF only warns about: rope/models/scaling/scaling_warnings.cpp. Sources:
// tests/models/scaling/scaling_test_util.hpp.

namespace rope {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;
using namespace scaling_test;

TEST(Scaling, HfWarningsAreWarningsNotErrors) {
  // HF only logs these (docs/scaling.md; HF _validate_*): beta_fast < beta_slow, factor < 1, high <= low freq
  // factor, original >= max position embeddings, keys the type does not use.
  RopeConfig c = hf_llama(ScalingType::Yarn);
  c.factor = 4.0;
  c.beta_fast = 1.0;
  c.beta_slow = 32.0;
  RopeParameters p = rope_parameters(c);
  EXPECT_TRUE(any_contains(english(p.warnings), "beta_fast 1 < beta_slow 32"));

  c = hf_llama(ScalingType::Linear);
  c.factor = 0.5;
  p = rope_parameters(c);
  EXPECT_TRUE(any_contains(english(p.warnings), "factor 0.5 < 1"));
  EXPECT_EQ(p.inv_freq[0], 2.0);

  c = llama3_config(8.0, 8192, 4.0, 1.0);
  c.max_position_embeddings = 8192;
  p = rope_parameters(c);
  EXPECT_TRUE(any_contains(english(p.warnings), "high_freq_factor 1 < low_freq_factor 4"));
  EXPECT_TRUE(
      any_contains(english(p.warnings), "original_max_position_embeddings 8192 >= max_position_embeddings 8192"));

  c = hf_llama(ScalingType::Linear);
  c.factor = 2.0;
  c.beta_fast = 32.0;
  c.original_max_position_embeddings = 4096;
  p = rope_parameters(c);
  EXPECT_TRUE(
      any_contains(english(p.warnings), "rope_type linear does not use: original_max_position_embeddings, beta_fast"));
  EXPECT_TRUE(rope_parameters(hf_llama(ScalingType::Default)).warnings.empty());
}

TEST(Scaling, YarnVariantWithoutYarnWarnsAsAnUnusedParameter) {
  // Issue 62 item 5: --yarn-variant without yarn scaling was silently ignored, where other unused parameters warn.
  for (const ScalingType type : {ScalingType::Default, ScalingType::Linear, ScalingType::Llama3}) {
    RopeConfig c = type == ScalingType::Llama3 ? llama3_config(8.0, 8192, 1.0, 4.0) : hf_llama(type);
    if (type == ScalingType::Linear) c.factor = 2.0;
    c.yarn_variant = YarnVariant::GrokYarnLog;
    EXPECT_TRUE(any_contains(english(rope_parameters(c).warnings), "grok-yarn-log is a variant of YaRN: rope_type " +
                                                                       std::string(to_string(type)) +
                                                                       " ignores it; give it with yarn scaling"))
        << to_string(type);
  }
  RopeConfig yarn = hf_llama(ScalingType::Yarn);
  yarn.factor = 4.0;
  yarn.original_max_position_embeddings = 4096;
  yarn.yarn_variant = YarnVariant::GrokYarnLog;
  EXPECT_FALSE(any_contains(english(rope_parameters(yarn).warnings), "is a variant of YaRN"));
}

}  // namespace
}  // namespace rope
