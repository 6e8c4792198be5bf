#include "rope/models/scaling.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <iostream>
#include <map>
#include <set>

#include "support/reference_data.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"

// Sources cited below:
//   HF test   huggingface/transformers tests/utils/test_modeling_rope_utils.py (LlamaConfig: head_dim 128,
//             base 1e4, max_position_embeddings 2048); its vectors are quoted to 5 significant figures,
//             known-values.md §4 gives the float64 values of the formula, used here.
//   HF code   huggingface/transformers src/transformers/modeling_rope_utils.py (_compute_*_parameters)
//             and RotaryEmbeddingConfigMixin._validate_*_rope_parameters (what HF rejects or warns about).
//   kv §N     ../shared/reference/known-values.md §N ("computed from the formula" unless a source is named).
//   sm §N     ../shared/reference/scaling-methods.md §N.
//   (Sn)      docs/scaling.md.

namespace rope {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

constexpr double kTwoPi = 6.283185307179586476925286766559;

::testing::AssertionResult RelNear(double got, double want, double rtol) {
  if (std::abs(got - want) <= rtol * std::abs(want)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << got << ", want " << want << " (relative difference "
                                       << std::abs(got - want) / std::abs(want) << " > " << rtol << ")";
}

/// LlamaConfig of the HF tests: head_dim 128, base 1e4, max_position_embeddings 2048.
RopeConfig hf_llama(ScalingType type) {
  RopeConfig c;
  c.head_dim = 128;
  c.base = 1e4;
  c.max_position_embeddings = 2048;
  c.type = type;
  return c;
}

RopeConfig llama3_config(double factor, long L0, double lf, double hf) {
  RopeConfig c = hf_llama(ScalingType::Llama3);
  c.factor = factor;
  c.original_max_position_embeddings = L0;
  c.low_freq_factor = lf;
  c.high_freq_factor = hf;
  return c;
}

RopeConfig longrope_config(int d, long M, long L0) {
  RopeConfig c;
  c.head_dim = d;
  c.base = 1e4;
  c.type = ScalingType::LongRope;
  c.max_position_embeddings = M;
  c.original_max_position_embeddings = L0;
  c.short_factor.assign(static_cast<std::size_t>(d / 2), 2.0);
  for (int j = 0; j < d / 2; ++j) c.long_factor.push_back(j + 1.0);  // HF test: ones(d/2).cumsum()
  return c;
}

bool any_contains(const std::vector<std::string>& lines, const std::string& text) {
  return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) { return l.find(text) != std::string::npos; });
}

// --- default, linear ---------------------------------------------------------------------------------

TEST(Scaling, DefaultMatchesHfGoldenVector) {
  // kv §4 (HF test test_default_rope_numerically): inv[1] = 0.86596 (0.8659643234), inv[63] = 1.1548e-4
  // (1.1547819847e-4), attention 1.
  const RopeParameters p = rope_parameters(hf_llama(ScalingType::Default));
  ASSERT_EQ(p.inv_freq.size(), 64);
  EXPECT_EQ(p.inv_freq[0], 1.0);
  EXPECT_TRUE(RelNear(p.inv_freq[1], 0.8659643234, 1e-9));
  EXPECT_TRUE(RelNear(p.inv_freq[63], 1.1547819847e-4, 1e-9));
  EXPECT_EQ(p.attention_factor, 1.0);
  EXPECT_EQ(p.factor, 1.0);
  EXPECT_TRUE(p.bands.empty());
  EXPECT_FALSE(p.effective_base);
  EXPECT_FALSE(p.yarn_range);
  EXPECT_TRUE(p.warnings.empty());
}

TEST(Scaling, DefaultUsesTheRotaryDimensionInTheExponent) {
  // sm §9: only d = int(head_dim · partial_rotary_factor) channels rotate and the exponent uses d.
  // Phi-2: 80 × 0.4 = 32 (sm §10).
  RopeConfig c;
  c.head_dim = 80;
  c.partial_rotary_factor = 0.4;
  EXPECT_EQ(c.rotary_dim(), 32);
  const RopeParameters p = rope_parameters(c);
  ASSERT_EQ(p.inv_freq.size(), 16);
  EXPECT_DOUBLE_EQ(p.inv_freq[15], std::pow(1e4, -30.0 / 32.0));
}

TEST(Scaling, LinearDividesEveryFrequencyByTheFactor) {
  // (S2); HF test test_linear_rope_numerically: factors 2, 10, 20, attention 1.
  const Eigen::VectorXd theta = frequencies(128, 1e4);
  for (double f : {2.0, 10.0, 20.0}) {
    RopeConfig c = hf_llama(ScalingType::Linear);
    c.factor = f;
    const RopeParameters p = rope_parameters(c);
    for (int j = 0; j < 64; ++j) EXPECT_TRUE(RelNear(p.inv_freq[j], theta[j] / f, 1e-15)) << f << " " << j;
    EXPECT_EQ(p.attention_factor, 1.0);
    EXPECT_EQ(p.factor, f);
  }
}

// --- ntk, dynamic -------------------------------------------------------------------------------------

TEST(Scaling, NtkBaseMatchesTableAndStretchesTheLowestPairByExactlyTheFactor) {
  // kv §6: base' = base · s^(d/(d−2)), d = 128, base 1e4: 20 221.26, 40 889.94, 82 684.62, 167 198.74
  // (quoted to 2 decimals). The lowest pair j = 63: λ' = 2π·base'^(126/128) = 2π·base^(126/128)·s, so
  // its wavelength grows by exactly s; θ_0 stays 1.
  const Eigen::VectorXd theta = frequencies(128, 1e4);
  for (const auto& [s, expected] : {std::pair{2.0, 20221.26}, {4.0, 40889.94}, {8.0, 82684.62}, {16.0, 167198.74}}) {
    RopeConfig c = hf_llama(ScalingType::Ntk);
    c.factor = s;
    const RopeParameters p = rope_parameters(c);
    ASSERT_TRUE(p.effective_base);
    EXPECT_NEAR(*p.effective_base, expected, 0.005) << s;
    EXPECT_TRUE(RelNear(theta[63] / p.inv_freq[63], s, 1e-13)) << s;
    EXPECT_EQ(p.inv_freq[0], 1.0);
    EXPECT_EQ(p.attention_factor, 1.0);
  }
}

TEST(Scaling, DynamicMatchesHfGoldenVectorAtSeqLen16384) {
  // kv §4 / §6 (HF test test_dynamic_rope_numerically): factor 10, seq_len 16384, M 2048:
  // base' = 759 702.231, inv[1] = 0.80931 (0.8093100749), inv[63] = 1.6265e-6 (1.6264535e-6, 8 digits).
  RopeConfig c = hf_llama(ScalingType::Dynamic);
  c.factor = 10.0;
  c.seq_len = 16384;
  const RopeParameters p = rope_parameters(c);
  ASSERT_TRUE(p.effective_base);
  EXPECT_TRUE(RelNear(*p.effective_base, 759702.231, 1e-9));
  EXPECT_TRUE(RelNear(p.inv_freq[1], 0.8093100749, 1e-9));
  EXPECT_TRUE(RelNear(p.inv_freq[63], 1.6264535e-6, 5e-8));
  EXPECT_EQ(p.attention_factor, 1.0);
  // HF: "It is NOT a linear factor".
  EXPECT_FALSE(RelNear(p.inv_freq[63], frequencies(128, 1e4)[63] / 10.0, 1e-3));
}

TEST(Scaling, DynamicEqualsDefaultUntilTheSequenceExceedsMaxPositionEmbeddings) {
  // (S4): L = max(seq_len, M); without seq_len L = M and base' = base. HF test: seq_len None and 1 give
  // the default frequencies for factors 2, 10, 20.
  const Eigen::VectorXd theta = frequencies(128, 1e4);
  for (double f : {2.0, 10.0, 20.0}) {
    for (std::optional<long> seq_len : {std::optional<long>{}, std::optional<long>{1}, std::optional<long>{2048}}) {
      RopeConfig c = hf_llama(ScalingType::Dynamic);
      c.factor = f;
      c.seq_len = seq_len;
      const RopeParameters p = rope_parameters(c);
      EXPECT_EQ(*p.effective_base, 1e4);
      for (int j = 0; j < 64; ++j) EXPECT_TRUE(RelNear(p.inv_freq[j], theta[j], 1e-15)) << f << " " << j;
    }
  }
}

// --- yarn ---------------------------------------------------------------------------------------------

TEST(Scaling, YarnMatchesHfGoldenVector) {
  // kv §4 (HF test test_yarn_rope_numerically): factor 10, β 32/1, L0 = M = 2048: range [16, 41];
  // inv[17] = 0.083479 (0.0834789608), inv[40] = 4.3007e-4 (4.300697618e-4), inv[41..63] = default/10
  // (inv[41] = 2.738419634e-4); attention 0.1·ln 10 + 1 = 1.2302585093.
  RopeConfig c = hf_llama(ScalingType::Yarn);
  c.factor = 10.0;
  c.beta_fast = 32.0;
  c.beta_slow = 1.0;
  const RopeParameters p = rope_parameters(c);
  ASSERT_TRUE(p.yarn_range);
  EXPECT_EQ(p.yarn_range->first, 16.0);
  EXPECT_EQ(p.yarn_range->second, 41.0);
  EXPECT_EQ(p.original_max_position, 2048);  // L0 falls back to M (S5)
  EXPECT_TRUE(RelNear(p.inv_freq[17], 0.0834789608, 1e-9));
  EXPECT_TRUE(RelNear(p.inv_freq[40], 4.300697618e-4, 1e-9));
  EXPECT_TRUE(RelNear(p.inv_freq[41], 2.738419634e-4, 1e-9));
  const Eigen::VectorXd theta = frequencies(128, 1e4);
  for (int j = 0; j <= 16; ++j) EXPECT_EQ(p.inv_freq[j], theta[j]) << j;
  for (int j = 41; j < 64; ++j) EXPECT_TRUE(RelNear(p.inv_freq[j], theta[j] / 10.0, 1e-15)) << j;
  EXPECT_TRUE(RelNear(p.attention_factor, 1.2302585093, 1e-10));
  // Bands by the ramp r_j = (j − 16)/25: 0 for j <= 16, 1 for j >= 41.
  ASSERT_EQ(p.bands.size(), 64u);
  for (int j = 0; j < 64; ++j) {
    const Band want = j <= 16 ? Band::Kept : j >= 41 ? Band::Interpolated : Band::Ramped;
    EXPECT_EQ(p.bands[static_cast<std::size_t>(j)], want) << j;
  }
}

TEST(Scaling, YarnAttentionIsGetMscaleOfFactorUnlessGivenExplicitly) {
  // HF test test_yarn_rope_numerically check 1: attention 0.1·ln f + 1 for f = 2, 10, 20; an explicit
  // attention_factor 0.5 is returned as is.
  for (double f : {2.0, 10.0, 20.0}) {
    RopeConfig c = hf_llama(ScalingType::Yarn);
    c.factor = f;
    RopeParameters p = rope_parameters(c);
    EXPECT_DOUBLE_EQ(p.attention_factor, 0.1 * std::log(f) + 1.0);
    c.attention_factor = 0.5;
    p = rope_parameters(c);
    EXPECT_EQ(p.attention_factor, 0.5);
    EXPECT_EQ(p.attention_rule.en, "explicit attention_factor");
  }
}

TEST(Scaling, YarnFrequenciesLieBetweenInterpolationAndExtrapolation) {
  // HF test check 2: θ_j/f − 1e-8 <= inv_j <= θ_j + 1e-8; with β_fast = 1000 every pair but the first is
  // interpolated and the last 20 equal θ_j/f.
  const Eigen::VectorXd theta = frequencies(128, 1e4);
  RopeConfig c = hf_llama(ScalingType::Yarn);
  c.factor = 10.0;
  RopeParameters p = rope_parameters(c);
  for (int j = 0; j < 64; ++j) {
    EXPECT_GE(p.inv_freq[j], theta[j] / 10.0 - 1e-8) << j;
    EXPECT_LE(p.inv_freq[j], theta[j] + 1e-8) << j;
  }
  c.beta_fast = 1000.0;
  p = rope_parameters(c);
  EXPECT_EQ(p.inv_freq[0], theta[0]);
  for (int j = 1; j < 64; ++j) EXPECT_LT(p.inv_freq[j], theta[j]) << j;
  for (int j = 44; j < 64; ++j) EXPECT_TRUE(RelNear(p.inv_freq[j], theta[j] / 10.0, 1e-15)) << j;
}

TEST(Scaling, YarnZeroBetasMeanTheDefaults32And1) {
  // HF: `beta_fast or 32`, `beta_slow or 1` (sm §3 yarn).
  RopeConfig c = hf_llama(ScalingType::Yarn);
  c.factor = 10.0;
  const RopeParameters absent = rope_parameters(c);
  c.beta_fast = 0.0;
  c.beta_slow = 0.0;
  const RopeParameters zero = rope_parameters(c);
  EXPECT_EQ(zero.yarn_range, absent.yarn_range);
  EXPECT_EQ(zero.inv_freq, absent.inv_freq);
}

TEST(Scaling, YarnCorrectionRangesMatchKnownValues) {
  // kv §5: raw (c(32), c(1)) and truncated range [floor, ceil] clamped to [0, d−1].
  struct Row {
    int d;
    double base;
    long L0;
    double raw_low, raw_high, low, high;
  };
  const Row rows[] = {{128, 1e4, 4096, 20.944, 45.027, 20, 46},     // Llama-2
                      {128, 1e4, 2048, 16.128, 40.210, 16, 41},     // Llama-1 / HF test
                      {64, 1e4, 4096, 10.472, 22.513, 10, 23},      // DeepSeek-V3 rope part
                      {128, 1e6, 32768, 23.596, 39.651, 23, 40}};   // Qwen3 ×4
  for (const Row& r : rows) {
    EXPECT_NEAR(yarn_correction_dim(32, r.d, r.base, r.L0), r.raw_low, 5e-4) << r.d << " " << r.L0;
    EXPECT_NEAR(yarn_correction_dim(1, r.d, r.base, r.L0), r.raw_high, 5e-4) << r.d << " " << r.L0;
    RopeConfig c;
    c.type = ScalingType::Yarn;
    c.head_dim = r.d;
    c.base = r.base;
    c.factor = 4.0;
    c.original_max_position_embeddings = r.L0;
    const RopeParameters p = rope_parameters(c);
    ASSERT_TRUE(p.yarn_range);
    EXPECT_EQ(p.yarn_range->first, r.low) << r.d << " " << r.L0;
    EXPECT_EQ(p.yarn_range->second, r.high) << r.d << " " << r.L0;
  }
}

TEST(Scaling, YarnClampsTheRangeToDMinusOneNotToTheLastPair) {
  // HF find_correction_range returns min(high, dim − 1) with dim = d, not d/2 − 1 (sm §3 yarn). With
  // β_slow = 0.01, c(0.01) = 128·ln(2048/(0.02π))/(2 ln 1e4) = 72.2 → high = 73, so the ramp at the last
  // pair j = 63 is (63 − 16)/(73 − 16) < 1: ramped, not interpolated.
  RopeConfig c = hf_llama(ScalingType::Yarn);
  c.factor = 10.0;
  c.beta_slow = 0.01;
  const RopeParameters p = rope_parameters(c);
  ASSERT_TRUE(p.yarn_range);
  EXPECT_EQ(p.yarn_range->second, 73.0);
  EXPECT_EQ(p.bands[63], Band::Ramped);
  const double r = (63.0 - 16.0) / (73.0 - 16.0);
  const double theta = frequencies(128, 1e4)[63];
  EXPECT_TRUE(RelNear(p.inv_freq[63], theta / 10.0 * r + theta * (1 - r), 1e-15));
}

/// β with c(β) = target for d = 128, base 1e4, L0 = 2048 (inverting (S6)).
double beta_for_correction_dim(double target) {
  return 2048.0 / (kTwoPi * std::exp(2.0 * target * std::log(1e4) / 128.0));
}

TEST(Scaling, YarnEqualCorrectionDimsUseHfGuardOfOneThousandth) {
  // HF linear_ramp_factor: `if min == max: max += 0.001`. Untruncated with β_fast = β_slow = β the range
  // is [c, c]; choose β so that c(β) = 16.9995: pair 17 then sits at (17 − c)/0.001 ≈ 0.5 of the ramp.
  RopeConfig c = hf_llama(ScalingType::Yarn);
  c.factor = 10.0;
  c.beta_fast = c.beta_slow = beta_for_correction_dim(16.9995);
  c.truncate = false;
  RopeParameters p = rope_parameters(c);
  ASSERT_TRUE(p.yarn_range);
  const double cdim = p.yarn_range->first;
  EXPECT_EQ(p.yarn_range->second, cdim);
  EXPECT_NEAR(cdim, 16.9995, 1e-9);
  const double r = (17.0 - cdim) / ((cdim + 0.001) - cdim);  // HF's (j − min)/(max − min) after max += 0.001
  ASSERT_GT(r, 0.4);
  ASSERT_LT(r, 0.6);
  const Eigen::VectorXd theta = frequencies(128, 1e4);
  EXPECT_TRUE(RelNear(p.inv_freq[17], theta[17] / 10.0 * r + theta[17] * (1 - r), 1e-15));
  EXPECT_EQ(p.bands[17], Band::Ramped);
  EXPECT_EQ(p.inv_freq[16], theta[16]);
  EXPECT_TRUE(RelNear(p.inv_freq[18], theta[18] / 10.0, 1e-15));
  // Truncated with −1 < c(β) <= 0 for both: [floor, ceil] = [−1, 0] → [0, 0]; without the guard pair 0
  // would be 0/0. Pair 0 is kept, every other pair interpolated.
  c.beta_fast = c.beta_slow = beta_for_correction_dim(-0.5);
  c.truncate = true;
  p = rope_parameters(c);
  EXPECT_EQ(p.yarn_range, (std::pair{0.0, 0.0}));
  EXPECT_EQ(p.inv_freq[0], 1.0);
  EXPECT_TRUE(RelNear(p.inv_freq[1], theta[1] / 10.0, 1e-15));
  // HF clamps low to >= 0 and high to <= d − 1 only: with both corrections far below 0 the range is
  // [0, negative], every ramp value is clamped to 0 and every pair is kept.
  c.beta_fast = c.beta_slow = 1e6;
  p = rope_parameters(c);
  ASSERT_TRUE(p.yarn_range);
  EXPECT_EQ(p.yarn_range->first, 0.0);
  EXPECT_LT(p.yarn_range->second, 0.0);
  EXPECT_EQ(p.inv_freq, theta);
}

RopeConfig gpt_oss(bool truncate) {
  // sm §10 / kv §5: gpt-oss d = 64, base 1.5e5, yarn f = 32, β 32/1, L0 = 4096, truncate false, M = 131072.
  RopeConfig c;
  c.type = ScalingType::Yarn;
  c.head_dim = 64;
  c.base = 1.5e5;
  c.factor = 32.0;
  c.beta_fast = 32.0;
  c.beta_slow = 1.0;
  c.original_max_position_embeddings = 4096;
  c.max_position_embeddings = 131072;
  c.truncate = truncate;
  return c;
}

TEST(Scaling, GptOssUntruncatedRangeDiffersInNinePairsByUpTo76Percent) {
  // kv §5: raw range 8.093 – 17.398 used untruncated; truncated and untruncated ramps differ in 9 of 32
  // inv_freq, by up to 76.3% at j = 17 (relative to the untruncated value gpt-oss uses).
  const RopeParameters untruncated = rope_parameters(gpt_oss(false));
  const RopeParameters truncated = rope_parameters(gpt_oss(true));
  ASSERT_TRUE(untruncated.yarn_range);
  EXPECT_NEAR(untruncated.yarn_range->first, 8.093, 5e-4);
  EXPECT_NEAR(untruncated.yarn_range->second, 17.398, 5e-4);
  EXPECT_EQ(truncated.yarn_range->first, 8.0);
  EXPECT_EQ(truncated.yarn_range->second, 18.0);
  int differ = 0;
  double worst = 0.0;
  int worst_j = -1;
  for (int j = 0; j < 32; ++j) {
    const double rel = std::abs(truncated.inv_freq[j] - untruncated.inv_freq[j]) / untruncated.inv_freq[j];
    if (rel != 0.0) ++differ;
    if (rel > worst) {
      worst = rel;
      worst_j = j;
    }
  }
  EXPECT_EQ(differ, 9);
  EXPECT_EQ(worst_j, 17);
  EXPECT_NEAR(worst, 0.763, 5e-4);
  // kv §5: gpt-oss attention factor get_mscale(32) = 1.34657; M / L0 = 32 = factor, so no warning.
  EXPECT_NEAR(untruncated.attention_factor, 1.34657, 5e-6);
  EXPECT_TRUE(untruncated.warnings.empty());
}

TEST(Scaling, GetMscaleMatchesTheTemperatureTable) {
  // kv §5 (YaRN arXiv:2309.00071, jquesnelle/yarn Errata.md): mscale = 0.1·ln s + 1 and logits × mscale²,
  // both quoted to 5 decimals.
  const std::tuple<double, double, double> table[] = {
      {1.25, 1.02231, 1.04513}, {2, 1.06931, 1.14343}, {4, 1.13863, 1.29648},  {8, 1.20794, 1.45913},
      {10, 1.23026, 1.51354},   {16, 1.27726, 1.63139}, {32, 1.34657, 1.81326}, {40, 1.36889, 1.87385},
      {64, 1.41589, 2.00474},   {128, 1.48520, 2.20583}};
  for (const auto& [s, m, logit] : table) {
    EXPECT_NEAR(yarn_get_mscale(s), m, 5e-6) << s;
    EXPECT_NEAR(yarn_get_mscale(s) * yarn_get_mscale(s), logit, 5e-6) << s;
  }
  // kv §5: yarn d = 128, base 1e4, f = 4, L0 = 4096 → 1.138629436111989.
  EXPECT_DOUBLE_EQ(yarn_get_mscale(4.0), 1.138629436111989);
  // (S9): 1 for s <= 1 whatever m (HF's guard since 4.51).
  for (double s : {1.0, 0.5, 1e-9}) EXPECT_EQ(yarn_get_mscale(s, 0.707), 1.0) << s;
  EXPECT_DOUBLE_EQ(yarn_get_mscale(40.0, 0.707), 0.0707 * std::log(40.0) + 1.0);
}

TEST(Scaling, DeepSeekV3MscaleRatioIsOne) {
  // kv §5 and sm §10: DeepSeek-V3 rope part d = 64, base 1e4, yarn f = 40, L0 = 4096, M = 163840,
  // mscale = mscale_all_dim = 1 → rope attention get_mscale(40, 1)/get_mscale(40, 1) = 1.0
  // (sglang PR 22711); the softmax scale gets get_mscale(40, 1)² = 1.87385 outside RoPE.
  RopeConfig c;
  c.type = ScalingType::Yarn;
  c.head_dim = 64;
  c.factor = 40.0;
  c.original_max_position_embeddings = 4096;
  c.max_position_embeddings = 163840;
  c.mscale = 1.0;
  c.mscale_all_dim = 1.0;
  RopeParameters p = rope_parameters(c);
  EXPECT_EQ(p.attention_factor, 1.0);
  EXPECT_THAT(p.attention_rule.en, HasSubstr("get_mscale(f, mscale) / get_mscale(f, mscale_all_dim)"));
  EXPECT_TRUE(any_contains(english(p.notes), "1.87385"));
  EXPECT_EQ(p.yarn_range, (std::pair{10.0, 23.0}));
  EXPECT_TRUE(p.warnings.empty());  // 163840 / 4096 = 40 = factor
  // DeepSeek-V2-Lite (sm §10): mscale = mscale_all_dim = 0.707, same ratio 1.
  c.mscale = 0.707;
  c.mscale_all_dim = 0.707;
  EXPECT_EQ(rope_parameters(c).attention_factor, 1.0);
  // An unequal pair: (0.1·1·ln 40 + 1)/(0.1·0.5·ln 40 + 1) (S10).
  c.mscale = 1.0;
  c.mscale_all_dim = 0.5;
  EXPECT_DOUBLE_EQ(rope_parameters(c).attention_factor, (0.1 * std::log(40.0) + 1.0) / (0.05 * std::log(40.0) + 1.0));
}

TEST(Scaling, YarnMscaleAloneIsIgnoredWithAWarning) {
  // HF: the ratio is used only if both mscale and mscale_all_dim are truthy; else get_mscale(f).
  RopeConfig c = hf_llama(ScalingType::Yarn);
  c.factor = 40.0;
  c.mscale = 0.707;
  const RopeParameters p = rope_parameters(c);
  EXPECT_DOUBLE_EQ(p.attention_factor, 0.1 * std::log(40.0) + 1.0);
  EXPECT_TRUE(any_contains(english(p.warnings), "mscale only together with mscale_all_dim"));
}

TEST(Scaling, Qwen3ExplicitFactorWinsAndTheWarningGivesBothCandidates) {
  // sm §6 / kv §5: Qwen3 M = 40960, yarn factor 4, original 32768 (d 128, base 1e6). Current HF uses
  // f = 4 (attention 1.13863); HF 4.51–4.55 used M/L0 = 1.25 (attention 1.02231).
  RopeConfig c;
  c.type = ScalingType::Yarn;
  c.head_dim = 128;
  c.base = 1e6;
  c.max_position_embeddings = 40960;
  c.factor = 4.0;
  c.original_max_position_embeddings = 32768;
  const RopeParameters p = rope_parameters(c);
  EXPECT_EQ(p.factor, 4.0);
  EXPECT_EQ(p.factor_rule.en, "explicit factor");
  EXPECT_EQ(p.original_max_position, 32768);
  EXPECT_NEAR(p.attention_factor, 1.13863, 5e-6);
  EXPECT_EQ(p.yarn_range, (std::pair{23.0, 40.0}));  // kv §5
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_THAT(p.warnings[0].en, AllOf(HasSubstr("40960 / 32768 = 1.25 differs from factor 4"), HasSubstr("1.13863"),
                                   HasSubstr("1.02231")));
}

TEST(Scaling, YarnWithoutFactorUsesMaxOverOriginal) {
  // (S5), sm §6 (HF ≥ 347328108a): f = M / L0 when factor is absent. DeepSeek-V3: 163840 / 4096 = 40.
  RopeConfig c;
  c.type = ScalingType::Yarn;
  c.head_dim = 64;
  c.max_position_embeddings = 163840;
  c.original_max_position_embeddings = 4096;
  const RopeParameters p = rope_parameters(c);
  EXPECT_EQ(p.factor, 40.0);
  EXPECT_THAT(p.factor_rule.en, HasSubstr("max_position_embeddings / original_max_position_embeddings = 163840 / 4096"));
  EXPECT_NEAR(p.attention_factor, 1.36889, 5e-6);  // kv §5 get_mscale(40)
}

// --- llama3 -------------------------------------------------------------------------------------------

TEST(Scaling, Llama3MatchesHfGoldenVector) {
  // kv §4 (HF test test_llama3_rope_numerically): factor 10, L0 2048, low/high 1/4: inv[31] = 0.010730
  // (0.0107302483), inv[40] = 3.4539e-4 (3.453924383e-4), inv[41..] = default/10, attention 1.
  const RopeParameters p = rope_parameters(llama3_config(10.0, 2048, 1.0, 4.0));
  const Eigen::VectorXd theta = frequencies(128, 1e4);
  EXPECT_TRUE(RelNear(p.inv_freq[31], 0.0107302483, 1e-9));
  EXPECT_TRUE(RelNear(p.inv_freq[40], 3.453924383e-4, 1e-9));
  for (int j = 41; j < 64; ++j) EXPECT_TRUE(RelNear(p.inv_freq[j], theta[j] / 10.0, 1e-15)) << j;
  EXPECT_EQ(p.attention_factor, 1.0);
  EXPECT_EQ(p.original_max_position, 2048);
  // HF check 2: θ_j/f <= inv_j <= θ_j for every pair.
  for (int j = 0; j < 64; ++j) {
    EXPECT_GE(p.inv_freq[j], theta[j] / 10.0 * (1 - 1e-15)) << j;
    EXPECT_LE(p.inv_freq[j], theta[j] * (1 + 1e-15)) << j;
  }
  // HF check 2: high_freq_factor 1000 makes no pair high-frequency, so every pair is scaled.
  const RopeParameters all = rope_parameters(llama3_config(10.0, 2048, 1.0, 1000.0));
  for (int j = 0; j < 64; ++j) EXPECT_LT(all.inv_freq[j], theta[j]) << j;
}

TEST(Scaling, Llama31Has29Kept6Blended29DividedPairs) {
  // kv §7 (HF _compute_llama3_parameters; Meta f = 8, lf = 1, hf = 4, L0 = 8192; d = 128, base 5e5):
  // j = 0…28 kept, 29…34 blended with inv_j/θ_j = 0.82817, 0.64374, 0.49351, 0.37112, 0.27143,
  // 0.19021 (5 decimals), 35…63 divided by 8.
  RopeConfig c = llama3_config(8.0, 8192, 1.0, 4.0);
  c.base = 5e5;
  c.max_position_embeddings = 131072;
  const RopeParameters p = rope_parameters(c);
  const Eigen::VectorXd theta = frequencies(128, 5e5);
  const double ratios[] = {0.82817, 0.64374, 0.49351, 0.37112, 0.27143, 0.19021};
  std::map<Band, int> counts;
  for (int j = 0; j < 64; ++j) {
    const Band b = p.bands[static_cast<std::size_t>(j)];
    ++counts[b];
    if (j <= 28) {
      EXPECT_EQ(b, Band::Kept) << j;
      EXPECT_EQ(p.inv_freq[j], theta[j]) << j;
    } else if (j <= 34) {
      EXPECT_EQ(b, Band::Ramped) << j;
      EXPECT_NEAR(p.inv_freq[j] / theta[j], ratios[j - 29], 5e-6) << j;
    } else {
      EXPECT_EQ(b, Band::Interpolated) << j;
      EXPECT_EQ(p.inv_freq[j], theta[j] / 8.0) << j;
    }
  }
  EXPECT_EQ(counts[Band::Kept], 29);
  EXPECT_EQ(counts[Band::Ramped], 6);
  EXPECT_EQ(counts[Band::Interpolated], 29);
  EXPECT_TRUE(p.warnings.empty());
}

/// A double x near L0 / want for which L0 / x == want exactly (NaN if none within 64 ulps).
double exact_divisor(long L0, double want) {
  const double numerator = static_cast<double>(L0);
  double up = numerator / want, down = up;
  for (int step = 0; step < 64; ++step) {
    if (numerator / up == want) return up;
    if (numerator / down == want) return down;
    up = std::nextafter(up, HUGE_VAL);
    down = std::nextafter(down, 0.0);
  }
  return std::nan("");
}

TEST(Scaling, Llama3BoundariesAreInclusiveAsInHf) {
  // HF: is_medium_freq = ~(λ < L0/hf) * ~(λ > L0/lf), so λ = L0/hf and λ = L0/lf are both blended
  // (sm §3 llama3). Pair 0 has λ_0 = 2π exactly; choose hf, then lf, so that the boundary is exactly 2π.
  const long L0 = 8192;
  const double at_2pi = exact_divisor(L0, kTwoPi);
  ASSERT_TRUE(std::isfinite(at_2pi));
  ASSERT_EQ(static_cast<double>(L0) / at_2pi, kTwoPi);
  // λ_0 = L0/hf: blended with s = (L0/λ_0 − lf)/(hf − lf) = 1, i.e. θ_0.
  RopeParameters p = rope_parameters(llama3_config(8.0, L0, 1.0, at_2pi));
  EXPECT_EQ(p.bands[0], Band::Ramped);
  EXPECT_TRUE(RelNear(p.inv_freq[0], 1.0, 1e-12));
  // λ_0 = L0/lf: blended with s = 0, i.e. θ_0/f.
  p = rope_parameters(llama3_config(8.0, L0, at_2pi, 2.0 * at_2pi));
  EXPECT_EQ(p.bands[0], Band::Ramped);
  EXPECT_TRUE(RelNear(p.inv_freq[0], 1.0 / 8.0, 1e-12));
}

TEST(Scaling, Llama3NeedsAllFourParameters) {
  // HF _validate_llama3_rope_parameters: factor, original_max_position_embeddings, low_freq_factor,
  // high_freq_factor are required keys (KeyError); there are no defaults (sm §4).
  RopeConfig c = llama3_config(8.0, 8192, 1.0, 4.0);
  c.original_max_position_embeddings.reset();
  EXPECT_THAT([&] { rope_parameters(c); }, ThrowsMessage<InvalidArgument>(HasSubstr("llama3 needs original_max_position_embeddings")));
  c = llama3_config(8.0, 8192, 1.0, 4.0);
  c.factor.reset();
  EXPECT_THAT([&] { rope_parameters(c); }, ThrowsMessage<InvalidArgument>(HasSubstr("llama3 needs factor")));
  c = llama3_config(8.0, 8192, 1.0, 4.0);
  c.low_freq_factor.reset();
  EXPECT_THAT([&] { rope_parameters(c); }, ThrowsMessage<InvalidArgument>(HasSubstr("llama3 needs low_freq_factor")));
  c = llama3_config(8.0, 8192, 1.0, 4.0);
  c.high_freq_factor.reset();
  EXPECT_THAT([&] { rope_parameters(c); }, ThrowsMessage<InvalidArgument>(HasSubstr("llama3 needs high_freq_factor")));
  // L0 / 0 is a ZeroDivisionError in HF.
  EXPECT_THAT([] { rope_parameters(llama3_config(8.0, 8192, 0.0, 4.0)); },
              ThrowsMessage<InvalidArgument>(HasSubstr("llama3 low_freq_factor must be > 0 (got 0)")));
}

// --- longrope -----------------------------------------------------------------------------------------

TEST(Scaling, LongRopeAttentionMatchesHf) {
  // kv §4: sqrt(1 + ln 10 / ln 2048) = 1.1410492817. HF test test_longrope_rope_numerically: factors 2,
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
  // (S12), sm §3/§5 (HF ≥ 4.48): long_factor iff seq_len > L0; no seq_len → short. HF test: short
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
  // sm §10 / kv §5: Phi-3-mini-128k: head_dim 96, longrope, top-level original 4096, M 131072, no factor
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
  // sm §6 recommendation: warn with both candidates. Phi-3 lists with factor 16 but M/L0 = 32.
  RopeConfig c = longrope_config(96, 131072, 4096);
  c.factor = 16.0;
  const RopeParameters p = rope_parameters(c);
  EXPECT_EQ(p.factor, 16.0);
  ASSERT_EQ(p.warnings.size(), 1u);
  // sqrt(1 + ln 16/ln 4096) = 1.15470 (ln 16/ln 4096 = 1/3), sqrt(1 + ln 32/ln 4096) = 1.19024.
  EXPECT_THAT(p.warnings[0].en, AllOf(HasSubstr("131072 / 4096 = 32 differs from factor 16"), HasSubstr("1.1547"), HasSubstr("1.19024")));
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
  EXPECT_THAT([&] { rope_parameters(c); }, ThrowsMessage<InvalidArgument>(HasSubstr("longrope short_factor[3] must be > 0 (got 0)")));
  c = longrope_config(96, 131072, 4096);
  c.long_factor[7] = std::nan("");
  EXPECT_THAT([&] { rope_parameters(c); }, ThrowsMessage<InvalidArgument>(HasSubstr("longrope long_factor[7] must be a finite number")));
}

// --- proportional -------------------------------------------------------------------------------------

TEST(Scaling, ProportionalRotatesLeadingPairsWithFullHeadDimExponentAndZerosTheRest) {
  // (S14), sm §3 (HF v5.6-dev _compute_proportional_rope_parameters): Gemma-4-style global layer,
  // head_dim 512, partial_rotary_factor 0.25: n = int(0.25·512 // 2) = 64 rotated pairs with
  // θ_j = base^(−2j/512), pairs 64…255 zero; head_dim/2 = 256 entries; attention 1.
  RopeConfig c;
  c.type = ScalingType::Proportional;
  c.head_dim = 512;
  c.base = 1e6;
  c.partial_rotary_factor = 0.25;
  RopeParameters p = rope_parameters(c);
  ASSERT_EQ(p.inv_freq.size(), 256);
  ASSERT_EQ(p.bands.size(), 256u);
  for (int j = 0; j < 256; ++j) {
    if (j < 64) {
      EXPECT_DOUBLE_EQ(p.inv_freq[j], std::pow(1e6, -2.0 * j / 512.0)) << j;
      EXPECT_EQ(p.bands[static_cast<std::size_t>(j)], Band::None) << j;
    } else {
      EXPECT_EQ(p.inv_freq[j], 0.0) << j;
      EXPECT_EQ(p.bands[static_cast<std::size_t>(j)], Band::Unrotated) << j;
    }
  }
  EXPECT_EQ(p.factor, 1.0);  // default 1
  EXPECT_EQ(p.attention_factor, 1.0);
  // Every entry is divided by the factor; the count floors: int(0.3·128 // 2) = int(38.4 // 2) = 19.
  c.head_dim = 128;
  c.partial_rotary_factor = 0.3;
  c.factor = 8.0;
  p = rope_parameters(c);
  ASSERT_EQ(p.inv_freq.size(), 64);
  EXPECT_DOUBLE_EQ(p.inv_freq[18], std::pow(1e6, -36.0 / 128.0) / 8.0);
  EXPECT_EQ(p.inv_freq[19], 0.0);
  // 100 · 0.25 = 25 is an odd rotary dim elsewhere, but proportional rotates int(25 // 2) = 12 pairs.
  c.head_dim = 100;
  c.partial_rotary_factor = 0.25;
  p = rope_parameters(c);
  ASSERT_EQ(p.inv_freq.size(), 50);
  EXPECT_GT(p.inv_freq[11], 0.0);
  EXPECT_EQ(p.inv_freq[12], 0.0);
}

// --- ReRoPE -------------------------------------------------------------------------------------------

TEST(Scaling, ReRopeClampsTheDistanceToTheWindow) {
  // (S16): g(t) = sign(t)·min(|t|, w) (seed 004; Su Jianlin, kexue.fm 9708).
  EXPECT_EQ(rerope_distance(3.0, 512.0), 3.0);
  EXPECT_EQ(rerope_distance(512.0, 512.0), 512.0);
  EXPECT_EQ(rerope_distance(10000.0, 512.0), 512.0);
  EXPECT_EQ(rerope_distance(-10000.0, 512.0), -512.0);
  EXPECT_EQ(rerope_distance(-7.0, 512.0), -7.0);
  EXPECT_EQ(rerope_distance(5.0, 0.0), 0.0);
}

TEST(Scaling, LeakyReRopeIsLinearInsideTheWindowAndShallowerBeyond) {
  // (S17): g(t) = t for |t| <= w, sign(t)·(w + (|t| − w)/k) beyond. Seed 004 (lines ~100–112) writes the
  // slope as (T_max − w)/(T'_max − w): with k = (T'_max − w)/(T_max − w) the new length T'_max maps to
  // the trained T_max. T_max = 4096, T'_max = 16384, w = 512 → k = 15872/3584.
  const double k = (16384.0 - 512.0) / (4096.0 - 512.0);
  EXPECT_EQ(leaky_rerope_distance(100.0, 512.0, k), 100.0);
  EXPECT_EQ(leaky_rerope_distance(512.0, 512.0, k), 512.0);
  EXPECT_DOUBLE_EQ(leaky_rerope_distance(16384.0, 512.0, k), 4096.0);
  EXPECT_DOUBLE_EQ(leaky_rerope_distance(-16384.0, 512.0, k), -4096.0);
  EXPECT_DOUBLE_EQ(leaky_rerope_distance(1024.0, 512.0, 4.0), 640.0);  // 512 + 512/4
  // k = 1 is the identity, and a huge k approaches ReRoPE.
  EXPECT_EQ(leaky_rerope_distance(9999.0, 512.0, 1.0), 9999.0);
  EXPECT_NEAR(leaky_rerope_distance(9999.0, 512.0, 1e12), rerope_distance(9999.0, 512.0), 1e-6);
}

TEST(Scaling, ReRopeRejectsBadWindowAndSlope) {
  EXPECT_THAT([] { rerope_distance(1.0, -1.0); }, ThrowsMessage<InvalidArgument>(HasSubstr("window w must be >= 0 (got -1)")));
  EXPECT_THAT([] { leaky_rerope_distance(1.0, 8.0, 0.5); },
              ThrowsMessage<InvalidArgument>(HasSubstr("k must be >= 1 (got 0.5)")));
  EXPECT_THAT([] { leaky_rerope_distance(1.0, 8.0, std::nan("")); }, ThrowsMessage<InvalidArgument>(HasSubstr("finite")));
  EXPECT_THAT([] { rerope_distance(HUGE_VAL, 8.0); }, ThrowsMessage<InvalidArgument>(HasSubstr("distance t must be a finite number")));
}

// --- names --------------------------------------------------------------------------------------------

TEST(Scaling, TypeNamesRoundTripAndLegacyAliasesParse) {
  for (ScalingType t : {ScalingType::Default, ScalingType::Linear, ScalingType::Ntk, ScalingType::Dynamic, ScalingType::Yarn,
                        ScalingType::Llama3, ScalingType::LongRope, ScalingType::Proportional}) {
    EXPECT_EQ(parse_scaling_type(to_string(t)), t) << to_string(t);
  }
  EXPECT_EQ(to_string(ScalingType::LongRope), "longrope");
  EXPECT_EQ(parse_scaling_type("su"), ScalingType::LongRope);  // HF legacy name (sm §3 note on types)
  EXPECT_EQ(parse_scaling_type("none"), ScalingType::Default);
  EXPECT_THAT([] { parse_scaling_type("YaRN2"); },
              ThrowsMessage<InvalidArgument>(AllOf(HasSubstr("'YaRN2'"), HasSubstr("default, linear, ntk, dynamic, yarn, llama3, longrope or proportional"))));
}

TEST(Scaling, BandNames) {
  EXPECT_EQ(to_string(Band::None), "none");
  EXPECT_EQ(to_string(Band::Kept), "kept");
  EXPECT_EQ(to_string(Band::Ramped), "ramped");
  EXPECT_EQ(to_string(Band::Interpolated), "interpolated");
  EXPECT_EQ(to_string(Band::Unrotated), "unrotated");
}

// --- validation ---------------------------------------------------------------------------------------

TEST(Scaling, RejectsAMissingRequiredFactor) {
  // HF _check_received_keys: `factor` is required for linear, dynamic, yarn, llama3 (KeyError). ntk
  // (not mainline) needs it too; yarn may instead derive it from M / L0 (S5).
  for (ScalingType t : {ScalingType::Linear, ScalingType::Ntk, ScalingType::Dynamic}) {
    RopeConfig c = hf_llama(t);
    EXPECT_THAT([&] { rope_parameters(c); },
                ThrowsMessage<InvalidArgument>(HasSubstr(fmt::format("{} needs factor", to_string(t)))));
  }
  RopeConfig c = hf_llama(ScalingType::Yarn);
  c.max_position_embeddings.reset();
  c.original_max_position_embeddings = 4096;
  EXPECT_THAT([&] { rope_parameters(c); }, ThrowsMessage<InvalidArgument>(HasSubstr("yarn needs factor, or max_position_embeddings")));
  c.original_max_position_embeddings.reset();
  c.factor = 4.0;
  EXPECT_THAT([&] { rope_parameters(c); }, ThrowsMessage<InvalidArgument>(HasSubstr("yarn needs original_max_position_embeddings")));
  // dynamic reads config.max_position_embeddings.
  c = hf_llama(ScalingType::Dynamic);
  c.factor = 2.0;
  c.max_position_embeddings.reset();
  EXPECT_THAT([&] { rope_parameters(c); }, ThrowsMessage<InvalidArgument>(HasSubstr("dynamic needs max_position_embeddings")));
}

TEST(Scaling, RejectsANonPositiveOrNonFiniteFactor) {
  for (ScalingType t : {ScalingType::Linear, ScalingType::Ntk, ScalingType::Dynamic, ScalingType::Yarn, ScalingType::Proportional}) {
    RopeConfig c = hf_llama(t);
    c.factor = -2.0;
    EXPECT_THAT([&] { rope_parameters(c); }, ThrowsMessage<InvalidArgument>(HasSubstr("factor must be > 0 (got -2)"))) << to_string(t);
    c.factor = 0.0;
    EXPECT_THAT([&] { rope_parameters(c); }, ThrowsMessage<InvalidArgument>(HasSubstr("factor must be > 0 (got 0)"))) << to_string(t);
    c.factor = std::nan("");
    EXPECT_THAT([&] { rope_parameters(c); }, ThrowsMessage<InvalidArgument>(HasSubstr("factor must be a finite number (got nan)")))
        << to_string(t);
  }
  EXPECT_THAT([] { rope_parameters(llama3_config(-2.0, 8192, 1.0, 4.0)); },
              ThrowsMessage<InvalidArgument>(HasSubstr("factor must be > 0 (got -2)")));
}

TEST(Scaling, RejectsBadDimensionsAndBase) {
  RopeConfig c = hf_llama(ScalingType::Linear);
  c.factor = 2.0;
  c.head_dim = 100;
  c.partial_rotary_factor = 0.25;
  EXPECT_THAT([&] { rope_parameters(c); },
              ThrowsMessage<InvalidArgument>(HasSubstr("rotary dimension d = int(head_dim · partial_rotary_factor) = int(100 · 0.25) = 25 must be even")));
  c.head_dim = 3;
  c.partial_rotary_factor = 0.5;  // int(1.5) = 1
  EXPECT_THAT([&] { rope_parameters(c); }, ThrowsMessage<InvalidArgument>(HasSubstr("= 1 must be even and >= 2")));
  c.head_dim = 128;
  c.partial_rotary_factor = 1.5;
  EXPECT_THAT([&] { rope_parameters(c); }, ThrowsMessage<InvalidArgument>(HasSubstr("partial_rotary_factor must be in (0, 1] (got 1.5)")));
  c.partial_rotary_factor = 1.0;
  c.head_dim = 0;
  EXPECT_THAT([&] { rope_parameters(c); }, ThrowsMessage<InvalidArgument>(HasSubstr("head_dim must be between 2 and 65536 (got 0)")));
  c.head_dim = 128;
  for (double base : {1.0, 0.5, std::nan(""), HUGE_VAL}) {
    c.base = base;
    EXPECT_THAT([&] { rope_parameters(c); }, ThrowsMessage<InvalidArgument>(HasSubstr("base must be a finite number > 1"))) << base;
  }
  // ntk and dynamic raise to d/(d−2): a ZeroDivisionError in HF for d = 2.
  for (ScalingType t : {ScalingType::Ntk, ScalingType::Dynamic}) {
    RopeConfig two = hf_llama(t);
    two.head_dim = 2;
    two.factor = 2.0;
    EXPECT_THAT([&] { rope_parameters(two); }, ThrowsMessage<InvalidArgument>(HasSubstr("needs a rotary dimension d > 2")));
  }
  // proportional with no rotated pair: int(0.25 · 4 // 2) = 0.
  RopeConfig prop;
  prop.type = ScalingType::Proportional;
  prop.head_dim = 4;
  prop.partial_rotary_factor = 0.25;
  EXPECT_THAT([&] { rope_parameters(prop); }, ThrowsMessage<InvalidArgument>(HasSubstr("= 0 pairs")));
  prop.head_dim = 81;
  EXPECT_THAT([&] { rope_parameters(prop); }, ThrowsMessage<InvalidArgument>(HasSubstr("proportional needs an even head_dim")));
}

TEST(Scaling, RejectsBadYarnParameters) {
  RopeConfig c = hf_llama(ScalingType::Yarn);
  c.factor = 4.0;
  c.beta_fast = -1.0;  // math.log of a negative number in HF
  EXPECT_THAT([&] { rope_parameters(c); }, ThrowsMessage<InvalidArgument>(HasSubstr("yarn beta_fast must be > 0 (got -1)")));
  c.beta_fast = HUGE_VAL;
  EXPECT_THAT([&] { rope_parameters(c); }, ThrowsMessage<InvalidArgument>(HasSubstr("yarn beta_fast must be a finite number")));
  c.beta_fast.reset();
  c.attention_factor = std::nan("");
  EXPECT_THAT([&] { rope_parameters(c); }, ThrowsMessage<InvalidArgument>(HasSubstr("yarn attention_factor must be a finite number")));
  c.attention_factor.reset();
  c.mscale = 1.0;
  c.mscale_all_dim = -10.0 / std::log(4.0);  // get_mscale(4, m) = 0: HF divides by zero
  EXPECT_THAT([&] { rope_parameters(c); }, ThrowsMessage<InvalidArgument>(HasSubstr("division by zero")));
  EXPECT_THAT([] { yarn_correction_dim(0.0, 128, 1e4, 4096); }, ThrowsMessage<InvalidArgument>(HasSubstr("must be > 0")));
  EXPECT_THAT([] { yarn_correction_dim(32.0, 128, 1e4, 0); },
              ThrowsMessage<InvalidArgument>(HasSubstr("original_max_position_embeddings must be >= 1 (got 0)")));
  EXPECT_THAT([] { yarn_get_mscale(std::nan("")); }, ThrowsMessage<InvalidArgument>(HasSubstr("finite")));
}

TEST(Scaling, RejectsBadPositions) {
  RopeConfig c = hf_llama(ScalingType::Dynamic);
  c.factor = 2.0;
  c.seq_len = 0;
  EXPECT_THAT([&] { rope_parameters(c); }, ThrowsMessage<InvalidArgument>(HasSubstr("seq_len must be >= 1 (got 0)")));
  c.seq_len.reset();
  c.max_position_embeddings = -5;
  EXPECT_THAT([&] { rope_parameters(c); }, ThrowsMessage<InvalidArgument>(HasSubstr("max_position_embeddings must be >= 1 (got -5)")));
  RopeConfig l = longrope_config(96, 131072, 1);  // ln L0 = 0 in the attention factor
  EXPECT_THAT([&] { rope_parameters(l); }, ThrowsMessage<InvalidArgument>(HasSubstr("needs original_max_position_embeddings >= 2")));
}

TEST(Scaling, HfWarningsAreWarningsNotErrors) {
  // HF only logs these (sm §4; HF _validate_*): beta_fast < beta_slow, factor < 1, high <= low freq
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
  EXPECT_TRUE(any_contains(english(p.warnings), "high_freq_factor 1 <= low_freq_factor 4"));
  EXPECT_TRUE(any_contains(english(p.warnings), "original_max_position_embeddings 8192 >= max_position_embeddings 8192"));

  c = hf_llama(ScalingType::Linear);
  c.factor = 2.0;
  c.beta_fast = 32.0;
  c.original_max_position_embeddings = 4096;
  p = rope_parameters(c);
  EXPECT_TRUE(any_contains(english(p.warnings), "rope_type linear does not use: original_max_position_embeddings, beta_fast"));
  EXPECT_TRUE(rope_parameters(hf_llama(ScalingType::Default)).warnings.empty());
}

// --- NumPy reference ----------------------------------------------------------------------------------

std::map<std::string, std::vector<double>> read_lists() {
  std::map<std::string, std::vector<double>> lists;
  const auto csv = test::read_reference("scaling_lists.csv");
  EXPECT_EQ(csv.header, (std::vector<std::string>{"name", "values"}));
  for (const auto& row : csv.rows) {
    const Eigen::VectorXd v = test::parse_vector(row.at(1));
    lists[row.at(0)] = std::vector<double>(v.data(), v.data() + v.size());
  }
  return lists;
}

/// Builds the RopeConfig of one grid row from its type, d (head_dim), base and `key=value;…` params.
RopeConfig config_of(const std::vector<std::string>& row, const std::map<std::string, std::vector<double>>& lists) {
  RopeConfig c;
  c.type = parse_scaling_type(row.at(0));
  c.head_dim = std::stoi(row.at(1));
  c.base = std::stod(row.at(2));
  for (const std::string& item : test::split(row.at(4), ';')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) throw std::runtime_error("bad params item '" + item + "'");
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    auto list = [&] {
      if (value.empty() || value[0] != '@') throw std::runtime_error("expected @list for " + key);
      return lists.at(value.substr(1));
    };
    if (key == "factor") c.factor = std::stod(value);
    else if (key == "max_position_embeddings") c.max_position_embeddings = std::stol(value);
    else if (key == "original_max_position_embeddings") c.original_max_position_embeddings = std::stol(value);
    else if (key == "seq_len") c.seq_len = std::stol(value);
    else if (key == "beta_fast") c.beta_fast = std::stod(value);
    else if (key == "beta_slow") c.beta_slow = std::stod(value);
    else if (key == "truncate") c.truncate = value == "true";
    else if (key == "mscale") c.mscale = std::stod(value);
    else if (key == "mscale_all_dim") c.mscale_all_dim = std::stod(value);
    else if (key == "attention_factor") c.attention_factor = std::stod(value);
    else if (key == "low_freq_factor") c.low_freq_factor = std::stod(value);
    else if (key == "high_freq_factor") c.high_freq_factor = std::stod(value);
    else if (key == "partial_rotary_factor") c.partial_rotary_factor = std::stod(value);
    else if (key == "short_factor") c.short_factor = list();
    else if (key == "long_factor") c.long_factor = list();
    else throw std::runtime_error("unknown params key '" + key + "'");
  }
  return c;
}

TEST(Scaling, MatchesNumpyReferenceGrid) {
  // tests/reference/scaling.py computes every method naively from sm §3 in NumPy float64 over
  // type × d ∈ {64, 128} × base ∈ {1e4, 5e5} × factor ∈ {2, 8, 32}; rows agree to 1e-12 relative
  // (inv_freq and attention factor; zeros exactly).
  const auto csv = test::read_reference("scaling_grid.csv");
  ASSERT_EQ(csv.header, (std::vector<std::string>{"type", "d", "base", "factor", "params", "pair", "inv_freq", "attention_factor"}));
  ASSERT_GT(csv.rows.size(), 9000u);
  const auto lists = read_lists();
  std::set<std::string> types;
  double worst = 0.0;
  std::size_t configs = 0;
  for (std::size_t r = 0; r < csv.rows.size();) {
    const auto& first = csv.rows[r];
    const std::string key = first[0] + "," + first[1] + "," + first[2] + "," + first[4];
    types.insert(first[0]);
    const RopeParameters p = rope_parameters(config_of(first, lists));
    ++configs;
    EXPECT_EQ(p.factor, std::stod(first[3])) << key;
    std::size_t n = 0;
    for (; r < csv.rows.size(); ++r, ++n) {
      const auto& row = csv.rows[r];
      if (row[0] + "," + row[1] + "," + row[2] + "," + row[4] != key) break;
      const int j = std::stoi(row[5]);
      ASSERT_EQ(static_cast<std::size_t>(j), n) << key;
      ASSERT_LT(j, p.inv_freq.size()) << key;
      const double want = std::stod(row[6]);
      const double want_a = std::stod(row[7]);
      if (want == 0.0) {
        EXPECT_EQ(p.inv_freq[j], 0.0) << key << " pair " << j;
      } else {
        const double rel = std::abs(p.inv_freq[j] - want) / std::abs(want);
        worst = std::max(worst, rel);
        EXPECT_LE(rel, 1e-12) << key << " pair " << j << ": " << p.inv_freq[j] << " vs " << want;
      }
      const double rel_a = std::abs(p.attention_factor - want_a) / std::abs(want_a);
      worst = std::max(worst, rel_a);
      EXPECT_LE(rel_a, 1e-12) << key << " attention " << p.attention_factor << " vs " << want_a;
    }
    EXPECT_EQ(static_cast<Eigen::Index>(n), p.inv_freq.size()) << key;
  }
  EXPECT_EQ(types, (std::set<std::string>{"default", "linear", "ntk", "dynamic", "yarn", "llama3", "longrope", "proportional"}));
  std::cout << "[ INFO     ] scaling_grid.csv: " << configs << " configurations, " << csv.rows.size()
            << " rows, max relative difference " << worst << '\n';
}

}  // namespace
TEST(Scaling, AnEffectiveBaseThatOverflowsIsRejected) {
  // base·f^(d/(d−2)) with f = 1e300 is beyond the largest double: every θ_i but θ_0 would be 0.
  RopeConfig c;
  c.head_dim = 8;
  c.type = ScalingType::Ntk;
  c.factor = 1e300;
  EXPECT_THAT([&] { rope_parameters(c); }, ThrowsMessage<InvalidArgument>(HasSubstr("overflows")));
}

}  // namespace rope
