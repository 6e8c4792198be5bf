#include <cmath>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <optional>
#include <string>

#include "rope/core/error.hpp"
#include "rope/models/longrope_rule.hpp"
#include "rope/models/presets.hpp"
#include "rope/models/resolve.hpp"
#include "rope/models/rope_spec.hpp"

// LongRoPE's list as each engine's rule picks it, on Phi-3-mini-128k's spec (L0 4096): rope/models/longrope_rule.cpp.
// The rules: models/scaling/longrope_engine.hpp; the dumps of the four engines: tests/reference/longrope_engines.py.

namespace rope {
namespace {

struct SpecRuleCase {
  const char* name;
  LongRopeRule rule;
  std::optional<double> max_position;
  bool long_list;
};

const SpecRuleCase kSpecRuleCases[] = {
    {"HfAtL0", {LongRopeEngine::Hf, std::nullopt}, 4096.0, true},
    {"SglangAtL0", {LongRopeEngine::Sglang, std::nullopt}, 4096.0, false},
    {"SglangPastL0", {LongRopeEngine::Sglang, std::nullopt}, 4097.0, true},
    {"VllmWithoutPositions", {LongRopeEngine::Vllm, 131072L}, std::nullopt, true},
    {"VllmShortContextPastL0", {LongRopeEngine::Vllm, 4096L}, 5000.0, false},
    {"LlamaCppLongContextAtZero", {LongRopeEngine::LlamaCpp, 8192L}, 0.0, true},
};

class SpecRule : public ::testing::TestWithParam<SpecRuleCase> {};

TEST_P(SpecRule, PicksTheListOfItsEngine) {
  const SpecRuleCase& c = GetParam();
  const RopeSpec s = make_spec(load_preset("phi-3-mini-128k"));
  const RopeSpec chosen = spec_with_rule(s, c.rule, c.max_position);
  const std::vector<double>& list = c.long_list ? s.config.long_factor : s.config.short_factor;
  EXPECT_DOUBLE_EQ(chosen.params.inv_freq[47], s.original[47] / list[47]);
  EXPECT_EQ(*chosen.config.seq_len > 4096, c.long_list);
}

INSTANTIATE_TEST_SUITE_P(LongRopeRules, SpecRule, ::testing::ValuesIn(kSpecRuleCases),
                         [](const ::testing::TestParamInfo<SpecRuleCase>& i) { return std::string(i.param.name); });

TEST(LongRopeRule, ContextsBelongToTheirEngine) {
  EXPECT_EQ(longrope_rule("vllm", 131072L, std::nullopt).context, 131072L);
  EXPECT_THAT([] { longrope_rule("", 8192L, std::nullopt); },
              ::testing::ThrowsMessage<InvalidArgument>(::testing::HasSubstr("is the context of engine vllm")));
  EXPECT_THAT([] { longrope_rule("vllm", std::nullopt, 8192L); },
              ::testing::ThrowsMessage<InvalidArgument>(::testing::HasSubstr("is the context of engine llamacpp")));
  EXPECT_THAT([] { longrope_rule("llamacpp", std::nullopt, 0L); },
              ::testing::ThrowsMessage<InvalidArgument>(::testing::HasSubstr("must be >= 1")));
}

// Issue 77 (6): vLLM's and llama.cpp's rules need their context only where LongRoPE's list is chosen; on a model of
// another rope_type every engine is said to change nothing (before: refused in LongRoPE's words, or sglang ignored).
TEST(LongRopeRule, AnEngineOnAModelWithoutLongRopeIsSaidToChangeNothing) {
  const ModelRope llama = resolve_model_rope({"llama-2-7b", ""}, {});
  for (const char* engine : {"vllm", "llamacpp", "sglang", "hf"}) {
    SCOPED_TRACE(engine);
    const LongRopeRule rule = longrope_rule(engine, std::nullopt, std::nullopt);
    const ModelRope with = with_longrope_rule(llama, rule);
    ASSERT_EQ(with.spec.params.warnings.size(), llama.spec.params.warnings.size() + 1);
    EXPECT_THAT(with.spec.params.warnings.back().en,
                ::testing::EndsWith(std::string(engine) + " chooses LongRoPE's list, and this model's rope_type is "
                                                          "default: the engine changes nothing"));
    EXPECT_EQ(with.spec.params.inv_freq, llama.spec.params.inv_freq);
  }
  EXPECT_FALSE(longrope_rule_unused(llama, longrope_rule("", std::nullopt, std::nullopt)));
  const ModelRope phi = resolve_model_rope({"phi-3-mini-128k", ""}, {});
  EXPECT_FALSE(longrope_rule_unused(phi, longrope_rule("sglang", std::nullopt, std::nullopt)));
  EXPECT_THAT([&] { with_longrope_rule(phi, longrope_rule("vllm", std::nullopt, std::nullopt)); },
              ::testing::ThrowsMessage<InvalidArgument>(
                  ::testing::HasSubstr("engine vllm chooses LongRoPE's list by its context")));
}

// Dynamic NTK's length per engine (longrope_engine.hpp): one config (f 4, M 4096, rope_theta 10000, d 128), the base
// base·(f·L/M − (f − 1))^(d/(d−2)) at HF's L = max(max position + 1, M) or at vLLM's max_model_len, unguarded. The
// dumps of both engines: tests/reference/dynamic_engines.py.
struct DynamicRuleCase {
  const char* name;
  LongRopeRule rule;
  std::optional<double> max_position;
  double x;  ///< f·L/M − (f − 1) at the engine's L
};

const DynamicRuleCase kDynamicRuleCases[] = {
    {"HfBelowM", {LongRopeEngine::Hf, std::nullopt}, 100.0, 1.0},
    {"HfPastM", {LongRopeEngine::Hf, std::nullopt}, 5000.0, 4.0 * 5001 / 4096 - 3},
    {"VllmAtFTimesM", {LongRopeEngine::Vllm, std::nullopt}, 100.0, 13.0},
    {"VllmServed8192", {LongRopeEngine::Vllm, 8192L}, std::nullopt, 5.0},
    {"VllmServedBelowM", {LongRopeEngine::Vllm, 3584L}, 100.0, 0.5},
};

RopeSpec dynamic_spec() {
  RopeOverrides o;
  o.head_dim = 128;
  o.scaling = "dynamic";
  o.factor = 4.0;
  o.max_position_embeddings = 4096;
  return resolve_model_rope({}, o).spec;
}

class DynamicRule : public ::testing::TestWithParam<DynamicRuleCase> {};

TEST_P(DynamicRule, TakesTheLengthOfItsEngine) {
  const DynamicRuleCase& c = GetParam();
  const RopeSpec chosen = spec_with_rule(dynamic_spec(), c.rule, c.max_position);
  EXPECT_NEAR(*chosen.params.effective_base, 10000.0 * std::pow(c.x, 128.0 / 126.0), 1e-9 * 10000.0 * c.x * c.x);
}

INSTANTIATE_TEST_SUITE_P(DynamicRules, DynamicRule, ::testing::ValuesIn(kDynamicRuleCases),
                         [](const ::testing::TestParamInfo<DynamicRuleCase>& i) { return std::string(i.param.name); });

TEST(DynamicRule, ALengthWithoutARealBaseAndAnEngineWithoutAReadingAreRefused) {
  EXPECT_THAT(
      [] {
        spec_with_rule(dynamic_spec(), {LongRopeEngine::Vllm, 2048L}, std::nullopt);
      },
      ::testing::ThrowsMessage<InvalidArgument>(::testing::HasSubstr("is not > 0")));
  EXPECT_THAT(
      [] {
        spec_with_rule(dynamic_spec(), {LongRopeEngine::Sglang, std::nullopt}, 100.0);
      },
      ::testing::ThrowsMessage<InvalidArgument>(::testing::HasSubstr("as hf or vllm compute it")));
}

TEST(LongRopeRule, AContextRuleAndASeqLenAreRefusedTogether) {
  RopeSpec s = make_spec(load_preset("phi-3-mini-128k"));
  s.config.seq_len = 10;
  EXPECT_THAT(
      [&] {
        spec_with_rule(s, {LongRopeEngine::LlamaCpp, 8192L}, std::nullopt);
      },
      ::testing::ThrowsMessage<InvalidArgument>(::testing::HasSubstr("not both")));
}

}  // namespace
}  // namespace rope
