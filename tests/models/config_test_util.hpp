/// @file
/// Helpers shared by the config tests
/// (tests/models/test_{model_config,presets}.cpp, tests/models/hf/test_hf_config*.cpp, tests/io/test_json_reader.cpp).
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <string>
#include <string_view>

#include "rope/core/error.hpp"
#include "rope/models/model_config.hpp"

namespace rope::config_test {

inline ModelConfig parse(std::string_view text) { return parse_model_config(text, "config.json"); }

/// The parse must fail with InvalidArgument whose message contains `message`.
inline void expect_invalid(std::string_view text, const std::string& message) {
  EXPECT_THAT([&] { parse(text); }, ::testing::ThrowsMessage<InvalidArgument>(::testing::HasSubstr(message))) << text;
}

inline void expect_same_rope(const RopeConfig& a, const RopeConfig& b) {
  EXPECT_EQ(a.head_dim, b.head_dim);
  EXPECT_EQ(a.partial_rotary_factor, b.partial_rotary_factor);
  EXPECT_EQ(a.base, b.base);
  EXPECT_EQ(a.layout, b.layout);
  EXPECT_EQ(a.max_position_embeddings, b.max_position_embeddings);
  EXPECT_EQ(a.type, b.type);
  EXPECT_EQ(a.factor, b.factor);
  EXPECT_EQ(a.original_max_position_embeddings, b.original_max_position_embeddings);
  EXPECT_EQ(a.beta_fast, b.beta_fast);
  EXPECT_EQ(a.beta_slow, b.beta_slow);
  EXPECT_EQ(a.truncate, b.truncate);
  EXPECT_EQ(a.mscale, b.mscale);
  EXPECT_EQ(a.mscale_all_dim, b.mscale_all_dim);
  EXPECT_EQ(a.attention_factor, b.attention_factor);
  EXPECT_EQ(a.low_freq_factor, b.low_freq_factor);
  EXPECT_EQ(a.high_freq_factor, b.high_freq_factor);
  EXPECT_EQ(a.short_factor, b.short_factor);
  EXPECT_EQ(a.long_factor, b.long_factor);
}

/// A longrope config with head_dim 96 (d/2 = 48, Phi-3's shape) and lists of the given lengths.
inline std::string longrope_config(int short_count, int long_count) {
  const auto list = [](int n) {
    std::string s = "[";
    for (int i = 0; i < n; ++i) s += (i ? ", " : "") + std::string("1.5");
    return s + "]";
  };
  return R"({"hidden_size": 3072, "num_attention_heads": 32, "max_position_embeddings": 131072,
             "original_max_position_embeddings": 4096,
             "rope_scaling": {"type": "longrope", "short_factor": )" +
         list(short_count) + R"(, "long_factor": )" + list(long_count) + "}}";
}

}  // namespace rope::config_test
