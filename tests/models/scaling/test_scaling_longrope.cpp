#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/models/scaling/scaling.hpp"
#include "models/scaling/scaling_test_util.hpp"

// LongRoPE (S12), (S13): rope/models/scaling/scaling_longrope.cpp. Sources: tests/models/scaling/scaling_test_util.hpp.

namespace rope {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;
using namespace scaling_test;

TEST(Scaling, LongRopeAttentionMatchesHf) {
  // docs/scaling.md §11: sqrt(1 + ln 10 / ln 2048) = 1.1410492817. HF test test_longrope_rope_numerically: factors 2,
  // 10, 20 with L0 = M = 2048; an explicit attention_factor 0.5 wins.
  for (double f : {2.0, 10.0, 20.0}) {
    RopeConfig c = longrope_config(128, 2048, 2048);
    c.original_max_position_embeddings.reset();
    c.factor = f;
    RopeParameters p = rope_parameters(c);
    EXPECT_DOUBLE_EQ(p.attention_factor, std::sqrt(1 + std::log(f) / std::log(2048.0))) << f;
    if (f == 10.0) {
      EXPECT_TRUE(RelNear(p.attention_factor, 1.1410492817, 1e-10));
    }
    c.attention_factor = 0.5;
    p = rope_parameters(c);
    EXPECT_EQ(p.attention_factor, 0.5);
  }
}

TEST(Scaling, LongRopeUsesTheShortListUpToL0AndTheLongListBeyond) {
  // (S12), docs/scaling.md (HF ≥ 4.48): long_factor iff seq_len > L0; no seq_len → short. HF test: short
  // list 2.0 everywhere, long list 1, 2, …, 64.
  const Eigen::VectorXd theta = frequencies(128, 1e4);
  for (std::optional<long> seq_len : {std::optional<long>{}, std::optional<long>{1}, std::optional<long>{4096},
                                      std::optional<long>{4097}, std::optional<long>{131072}}) {
    RopeConfig c = longrope_config(128, 131072, 4096);
    c.seq_len = seq_len;
    const RopeParameters p = rope_parameters(c);
    const bool long_list = seq_len && *seq_len > 4096;
    for (int j = 0; j < 64; ++j) {
      const double ext = long_list ? j + 1.0 : 2.0;
      EXPECT_TRUE(RelNear(p.inv_freq[j], theta[j] / ext, 1e-15)) << (seq_len ? *seq_len : -1) << " " << j;
    }
    EXPECT_TRUE(any_contains(english(p.notes), long_list ? "long_factor" : "short_factor"));
    EXPECT_TRUE(p.bands.empty());
    // The attention factor depends on f = M/L0 = 32, not on the list.
    EXPECT_TRUE(RelNear(p.attention_factor, std::sqrt(1 + std::log(32.0) / std::log(4096.0)), 1e-15));
  }
}

TEST(Scaling, Phi3MiniAttentionFactorFromMaxOverOriginal) {
  // docs/scaling.md §11: Phi-3-mini-128k: head_dim 96, longrope, top-level original 4096, M 131072, no factor
  // → f = 32, attention sqrt(1 + ln 32 / ln 4096) = 1.19024; 48-entry lists.
  const RopeParameters p = rope_parameters(longrope_config(96, 131072, 4096));
  EXPECT_EQ(p.factor, 32.0);
  EXPECT_THAT(p.factor_rule.en, HasSubstr("131072 / 4096"));
  EXPECT_NEAR(p.attention_factor, 1.19024, 5e-6);
  EXPECT_EQ(p.inv_freq.size(), 48);
  EXPECT_TRUE(p.warnings.empty());
}

TEST(Scaling, LongRopeAttentionIsOneForFactorAtMostOne) {
  // HF: attention_factor = 1 if f <= 1. HF test check 2 (factor 1): the short list divides the defaults.
  RopeConfig c = longrope_config(128, 2048, 2048);
  c.factor = 1.0;
  const RopeParameters p = rope_parameters(c);
  EXPECT_EQ(p.attention_factor, 1.0);
  EXPECT_TRUE(RelNear(p.inv_freq[5], frequencies(128, 1e4)[5] / 2.0, 1e-15));
}

TEST(Scaling, LongRopeExplicitFactorDifferingFromMaxOverOriginalWarns) {
  // docs/scaling.md recommendation: warn with both candidates. Phi-3 lists with factor 16 but M/L0 = 32.
  RopeConfig c = longrope_config(96, 131072, 4096);
  c.factor = 16.0;
  const RopeParameters p = rope_parameters(c);
  EXPECT_EQ(p.factor, 16.0);
  ASSERT_EQ(p.warnings.size(), 1u);
  // sqrt(1 + ln 16/ln 4096) = 1.15470 (ln 16/ln 4096 = 1/3), sqrt(1 + ln 32/ln 4096) = 1.19024.
  EXPECT_THAT(p.warnings[0].en,
              AllOf(HasSubstr("131072 / 4096 = 32 differs from factor 16"), HasSubstr("1.1547"), HasSubstr("1.19024")));
}

TEST(Scaling, LongRopeListsMustHaveHalfTheRotaryDimension) {
  RopeConfig c = longrope_config(96, 131072, 4096);
  c.short_factor.pop_back();
  EXPECT_THAT([&] { rope_parameters(c); },
              ThrowsMessage<InvalidArgument>(HasSubstr("longrope short_factor must have d/2 = 48 numbers (got 47)")));
  c = longrope_config(96, 131072, 4096);
  c.long_factor.push_back(1.0);
  EXPECT_THAT([&] { rope_parameters(c); },
              ThrowsMessage<InvalidArgument>(HasSubstr("longrope long_factor must have d/2 = 48 numbers (got 49)")));
  c = longrope_config(96, 131072, 4096);
  c.long_factor.clear();
  EXPECT_THAT([&] { rope_parameters(c); }, ThrowsMessage<InvalidArgument>(HasSubstr("longrope needs long_factor")));
  c = longrope_config(96, 131072, 4096);
  c.short_factor[3] = 0.0;  // HF would divide by zero
  EXPECT_THAT([&] { rope_parameters(c); },
              ThrowsMessage<InvalidArgument>(HasSubstr("longrope short_factor[3] must be > 0 (got 0)")));
  c = longrope_config(96, 131072, 4096);
  c.long_factor[7] = std::nan("");
  EXPECT_THAT([&] { rope_parameters(c); },
              ThrowsMessage<InvalidArgument>(HasSubstr("longrope long_factor[7] must be a finite number")));
}

}  // namespace
}  // namespace rope
