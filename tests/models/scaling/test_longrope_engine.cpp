#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <optional>
#include <string>

#include "rope/core/error.hpp"
#include "rope/models/scaling/longrope_engine.hpp"

// Which LongRoPE list each engine applies: rope/models/scaling/longrope_engine.cpp. The rules as the engines' code
// writes them (sources in longrope_engine.hpp); the lists themselves are tests/reference/longrope_engines.py's.

namespace rope {
namespace {

struct EngineRuleCase {
  const char* name;
  LongRopeEngine engine;
  std::optional<long> context;
  double max_position;
  bool long_list;  // with L0 = 4096 (Phi-3-mini-128k)
};

const EngineRuleCase kEngineRuleCases[] = {
    {"HfBelow", LongRopeEngine::Hf, std::nullopt, 4095, false},         // seq_len 4096 > 4096: no
    {"HfAtL0", LongRopeEngine::Hf, std::nullopt, 4096, true},           // seq_len 4097 > 4096
    {"SglangAtL0", LongRopeEngine::Sglang, std::nullopt, 4096, false},  // any(positions > 4096): no
    {"SglangPastL0", LongRopeEngine::Sglang, std::nullopt, 4097, true},
    {"VllmLongContextAtTen", LongRopeEngine::Vllm, 131072L, 10, true},  // max_model_len 131072 > 4096
    {"VllmShortContext", LongRopeEngine::Vllm, 4096L, 4095, false},
    {"LlamaCppLongContext", LongRopeEngine::LlamaCpp, 8192L, 10, true},  // n_ctx_seq 8192 > n_ctx_orig_yarn
    {"LlamaCppShortContextPastL0", LongRopeEngine::LlamaCpp, 4096L, 5000, false},
};

class EngineRule : public ::testing::TestWithParam<EngineRuleCase> {};

TEST_P(EngineRule, TakesTheListItsCodeTakes) {
  const EngineRuleCase& c = GetParam();
  EXPECT_EQ(longrope_takes_long(c.engine, c.context, c.max_position, 4096), c.long_list);
  const Message note = longrope_rule_note(c.engine, longrope_rule_length(c.engine, c.context, c.max_position), 4096);
  EXPECT_THAT(note.en, ::testing::StartsWith(c.long_list ? "long_factor: " : "short_factor: "));
  EXPECT_THAT(note.en, ::testing::HasSubstr(std::string(engine_title(c.engine)) + "'s rule"));
}

INSTANTIATE_TEST_SUITE_P(LongRopeEngines, EngineRule, ::testing::ValuesIn(kEngineRuleCases),
                         [](const ::testing::TestParamInfo<EngineRuleCase>& i) { return std::string(i.param.name); });

TEST(LongRopeEngine, NamesRoundTripAndAnUnknownOneIsRefused) {
  for (const char* name : {"hf", "vllm", "sglang", "llamacpp"}) EXPECT_EQ(to_string(parse_longrope_engine(name)), name);
  EXPECT_THAT([] { parse_longrope_engine("tgi"); },
              ::testing::ThrowsMessage<InvalidArgument>(::testing::HasSubstr("unknown engine 'tgi'")));
  EXPECT_THAT(
      [] { longrope_rule_length(LongRopeEngine::Vllm, std::nullopt, 10); },
      ::testing::ThrowsMessage<InvalidArgument>(::testing::HasSubstr("chooses LongRoPE's list by its context")));
}

TEST(LongRopeEngine, TheOtherListIsSaidWithTheEnginesThatTakeIt) {
  // At max position 4096 = L0: HF takes the long list, SGLang the short one; each dump names the other engine.
  EXPECT_THAT(longrope_engines_for(true, 4096, 4096).en, ::testing::StartsWith("SGLang takes it at this position"));
  EXPECT_THAT(longrope_engines_for(false, 4096, 4096).en, ::testing::StartsWith("Hugging Face takes it"));
  EXPECT_THAT(longrope_engines_for(false, 10, 4096).en, ::testing::HasSubstr("vLLM with max_model_len > 4096"));
  EXPECT_THAT(longrope_engines_for(true, 5000, 4096).en, ::testing::StartsWith("llama.cpp with n_ctx <= 4096"));
}

}  // namespace
}  // namespace rope
