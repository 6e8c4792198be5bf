// rope/models/rope_spec.hpp: the layout per family, the rotating channels, (S19) by hand.
#include <cmath>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "models/config_test_util.hpp"
#include "rope/core/error.hpp"
#include "rope/models/presets.hpp"
#include "rope/models/rope_spec.hpp"

namespace rope {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using namespace config_test;

RopeSpec spec_of(const char* json) { return make_spec(parse(json)); }

TEST(RopeSpec, LayoutPerFamilyFromHfModelingCode) {
  // transformers models/<family>/modeling_<family>.py: rotate_half vs rotate_every_two / rotate_half_llm /
  // view_as_complex (Llama 4).
  EXPECT_EQ(family_layout("llama"), Layout::Half);
  EXPECT_EQ(family_layout("gpt_oss"), Layout::Half);
  EXPECT_EQ(family_layout("gemma3_text"), Layout::Half);
  EXPECT_EQ(family_layout("gptj"), Layout::Interleaved);
  EXPECT_EQ(family_layout("glm"), Layout::Interleaved);
  EXPECT_EQ(family_layout("chatglm"), Layout::Interleaved);
  EXPECT_EQ(family_layout("cohere"), Layout::Interleaved);
  EXPECT_EQ(family_layout("llama4_text"), Layout::Interleaved);
  EXPECT_EQ(family_layout("foobar"), std::nullopt);
  EXPECT_EQ(family_layout(""), std::nullopt);
}

TEST(RopeSpec, UnknownModelTypeIsAssumedAndSaysSo) {
  const ModelConfig m = parse(R"({"model_type": "foobar", "head_dim": 8})");
  EXPECT_EQ(m.layout_basis, LayoutBasis::Assumed);
  EXPECT_EQ(m.layout_reason.en, "assumed: model_type foobar is not a family rope knows");
  EXPECT_THAT(english(m.notes), Contains(HasSubstr("warning: model_type foobar is not a family rope knows")));
  const RopeSpec s = make_spec(m);
  EXPECT_FALSE(s.layout_known());
  EXPECT_EQ(layout_description(s).en, "half layout (assumed: model_type foobar is not a family rope knows)");
}

TEST(RopeSpec, ConfigKeyAndFamilyDefaults) {
  // DeepSeek-V3: rope_interleave decides (HF DeepseekV3Config default true); MLA's rope channels come last.
  const RopeSpec ds = make_spec(load_preset("deepseek-v3"));
  EXPECT_EQ(ds.layout, Layout::Interleaved);
  EXPECT_EQ(ds.head_dim, 192);
  EXPECT_EQ(ds.rotary_offset, 128);
  EXPECT_EQ(ds.rotary_dim, 64);
  EXPECT_TRUE(ds.deinterleaved_output);
  const RopeSpec half = spec_of(R"({"model_type": "deepseek_v3", "qk_rope_head_dim": 64, "qk_nope_head_dim": 128,
                                    "rope_interleave": false})");
  EXPECT_EQ(half.layout, Layout::Half);
  EXPECT_EQ(half.layout_basis, LayoutBasis::ConfigKey);
  EXPECT_FALSE(half.deinterleaved_output);
  // GLM: HF GlmConfig's partial_rotary_factor default 0.5, interleaved pairs in the first half.
  const RopeSpec glm = spec_of(R"({"model_type": "glm", "head_dim": 128})");
  EXPECT_EQ(glm.rotary_dim, 64);
  EXPECT_EQ(glm.head_dim, 128);
  EXPECT_EQ(glm.layout, Layout::Interleaved);
  // Llama 4's text model: interleaved, read from text_config.
  const RopeSpec l4 =
      spec_of(R"({"model_type": "llama4", "text_config": {"model_type": "llama4_text", "head_dim": 128}})");
  EXPECT_EQ(l4.layout, Layout::Interleaved);
  EXPECT_EQ(l4.layout_reason.en, "model family llama4_text");
}

TEST(RopeSpec, ApplyByHand) {
  // head_dim 6, partial_rotary_factor 2/3 → d = 4 rotates, channels 4, 5 pass; base 10000: θ = (1, 0.01).
  // Half layout, m = π/2: pair 0 = (x0, x2) turns by π/2 → (−x2, x0); pair 1 = (x1, x3) by 0.01π/2.
  RopeSpec s = spec_of(R"({"model_type": "llama", "head_dim": 6, "partial_rotary_factor": 0.6666666666666667})");
  ASSERT_EQ(s.rotary_dim, 4);
  s.params.attention_factor = 2.0;  // as yarn's would: multiplies cos and sin (S19)
  Eigen::VectorXd x(6);
  x << 1, 2, 3, 4, 5, 6;
  const double m = std::acos(-1.0) / 2;
  const Eigen::VectorXd y = spec_apply(s, x, m);
  const double c = std::cos(0.01 * m), sn = std::sin(0.01 * m);
  EXPECT_NEAR(y[0], 2 * -3.0, 1e-15);
  EXPECT_NEAR(y[2], 2 * 1.0, 1e-15);
  EXPECT_NEAR(y[1], 2 * (2 * c - 4 * sn), 1e-15);
  EXPECT_NEAR(y[3], 2 * (2 * sn + 4 * c), 1e-15);
  EXPECT_EQ(y[4], 5.0);
  EXPECT_EQ(y[5], 6.0);
  // The matrix form gives the same, and the rotating part alone is accepted.
  EXPECT_LE((spec_matrix(s, m, 6) * x - y).cwiseAbs().maxCoeff(), 1e-15);
  EXPECT_LE((spec_apply(s, x.head(4), m) - y.head(4)).cwiseAbs().maxCoeff(), 1e-15);
  EXPECT_THROW(spec_apply(s, x.head(5), m), InvalidArgument);
}

TEST(RopeSpec, DeinterleavedOutputPlacesPairsAsDeepSeek) {
  // rotated (r0, r1, r2, r3) of pairs (0,1), (2,3) → HF's order (r0, r2, r1, r3) on the rotating channels.
  RopeSpec s = spec_of(R"({"model_type": "deepseek_v3", "qk_rope_head_dim": 4, "qk_nope_head_dim": 2})");
  Eigen::VectorXd x(6), r(4);
  x << 9, 8, 0, 0, 0, 0;
  r << 1, 2, 3, 4;
  Eigen::VectorXd want(6);
  want << 9, 8, 1, 3, 2, 4;
  EXPECT_EQ(spec_output(s, x, r), want);
}

TEST(RopeSpec, LongropeUsesLongFactorsBeyondL0AtAPosition) {
  // Phi-3 (HF longrope_frequency_update): seq_len = max(position_ids) + 1 > L0 = 4096 → long_factor.
  const RopeSpec s = make_spec(load_preset("phi-3-mini-128k"));
  const RopeSpec within = spec_at_position(s, 4095);
  const RopeSpec beyond = spec_at_position(s, 4096);
  EXPECT_EQ(within.params.inv_freq, s.params.inv_freq);  // short factors, as at init
  EXPECT_NE(beyond.params.inv_freq, s.params.inv_freq);
  EXPECT_DOUBLE_EQ(beyond.params.inv_freq[47], s.original[47] / beyond.config.long_factor[47]);
  EXPECT_EQ(beyond.config.seq_len, 4097);
}

TEST(RopeSpec, ExplicitLayoutOverridesAndSaysTheNumbersAreNotTheModels) {
  RopeSpec s = make_spec(load_preset("llama-3.1-8b"));
  s.from_model = true;
  override_layout(s, Layout::Interleaved);
  EXPECT_EQ(layout_description(s).en, "interleaved layout (--layout on the command line)");
  EXPECT_THAT(english(s.notes), Contains(HasSubstr("overrides the model's half layout (model family llama)")));
}

}  // namespace
}  // namespace rope
