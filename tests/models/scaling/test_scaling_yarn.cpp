#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/models/model_config.hpp"
#include "rope/models/rope_float32.hpp"
#include "rope/models/rope_spec.hpp"
#include "rope/models/scaling/scaling.hpp"
#include "models/scaling/scaling_test_util.hpp"

// YaRN (S6)–(S10): rope/models/scaling/scaling_yarn.cpp. Sources: tests/models/scaling/scaling_test_util.hpp.

namespace rope {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::ThrowsMessage;
using namespace scaling_test;

/// β with c(β) = target for d = 128, base 1e4, L0 = 2048 (inverting (S6)).
double beta_for_correction_dim(double target) {
  return 2048.0 / (kTwoPi * std::exp(2.0 * target * std::log(1e4) / 128.0));
}

RopeConfig gpt_oss(bool truncate) {
  // docs/scaling.md §11: gpt-oss d = 64, base 1.5e5, yarn f = 32, β 32/1, L0 = 4096, truncate false, M = 131072.
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

TEST(Scaling, YarnMatchesHfGoldenVector) {
  // docs/scaling.md §11 (HF test test_yarn_rope_numerically): factor 10, β 32/1, L0 = M = 2048: range [16, 41];
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
  // HF: `beta_fast or 32`, `beta_slow or 1` (docs/scaling.md yarn).
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
  // docs/scaling.md §11: raw (c(32), c(1)) and truncated range [floor, ceil] clamped to [0, d−1].
  struct Row {
    int d;
    double base;
    long L0;
    double raw_low, raw_high, low, high;
  };
  const Row rows[] = {{128, 1e4, 4096, 20.944, 45.027, 20, 46},    // Llama-2
                      {128, 1e4, 2048, 16.128, 40.210, 16, 41},    // Llama-1 / HF test
                      {64, 1e4, 4096, 10.472, 22.513, 10, 23},     // DeepSeek-V3 rope part
                      {128, 1e6, 32768, 23.596, 39.651, 23, 40}};  // Qwen3 ×4
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
  // HF find_correction_range returns min(high, dim − 1) with dim = d, not d/2 − 1 (docs/scaling.md yarn). With
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

TEST(Scaling, GptOssUntruncatedRangeDiffersInNinePairsByUpTo76Percent) {
  // docs/scaling.md §11: raw range 8.093 – 17.398 used untruncated; truncated and untruncated ramps differ in 9 of 32
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
  // docs/scaling.md §11: gpt-oss attention factor get_mscale(32) = 1.34657; M / L0 = 32 = factor, so no warning.
  EXPECT_NEAR(untruncated.attention_factor, 1.34657, 5e-6);
  EXPECT_TRUE(untruncated.warnings.empty());
}

TEST(Scaling, GetMscaleMatchesTheTemperatureTable) {
  // docs/scaling.md §11 (YaRN arXiv:2309.00071, jquesnelle/yarn Errata.md): mscale = 0.1·ln s + 1 and logits × mscale²,
  // both quoted to 5 decimals.
  const std::tuple<double, double, double> table[] = {
      {1.25, 1.02231, 1.04513}, {2, 1.06931, 1.14343},  {4, 1.13863, 1.29648},  {8, 1.20794, 1.45913},
      {10, 1.23026, 1.51354},   {16, 1.27726, 1.63139}, {32, 1.34657, 1.81326}, {40, 1.36889, 1.87385},
      {64, 1.41589, 2.00474},   {128, 1.48520, 2.20583}};
  for (const auto& [s, m, logit] : table) {
    EXPECT_NEAR(yarn_get_mscale(s), m, 5e-6) << s;
    EXPECT_NEAR(yarn_get_mscale(s) * yarn_get_mscale(s), logit, 5e-6) << s;
  }
  // docs/scaling.md §11: yarn d = 128, base 1e4, f = 4, L0 = 4096 → 1.138629436111989.
  EXPECT_DOUBLE_EQ(yarn_get_mscale(4.0), 1.138629436111989);
  // (S9): 1 for s <= 1 whatever m (HF's guard since 4.51).
  for (double s : {1.0, 0.5, 1e-9}) EXPECT_EQ(yarn_get_mscale(s, 0.707), 1.0) << s;
  EXPECT_DOUBLE_EQ(yarn_get_mscale(40.0, 0.707), 0.0707 * std::log(40.0) + 1.0);
}

TEST(Scaling, DeepSeekV3MscaleRatioIsOne) {
  // docs/scaling.md §11: DeepSeek-V3 rope part d = 64, base 1e4, yarn f = 40, L0 = 4096, M = 163840,
  // mscale = mscale_all_dim = 1 → rope attention get_mscale(40, 1)/get_mscale(40, 1) = 1.0
  // (sglang PR 22711). The softmax scale's get_mscale(40, 1)² = 1.87385 is DeepSeek-V3's attention, not YaRN's: the
  // family table's softmax_scale (tests/models/families/test_family_layers.cpp), so YaRN's own notes do not say it.
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
  EXPECT_FALSE(any_contains(english(p.notes), "softmax"));
  EXPECT_EQ(p.yarn_range, (std::pair{10.0, 23.0}));
  EXPECT_TRUE(p.warnings.empty());  // 163840 / 4096 = 40 = factor
  // DeepSeek-V2-Lite (docs/scaling.md): mscale = mscale_all_dim = 0.707, same ratio 1.
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
  // docs/scaling.md §11: Qwen3 M = 40960, yarn factor 4, original 32768 (d 128, base 1e6). Current HF uses
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
  EXPECT_EQ(p.yarn_range, (std::pair{23.0, 40.0}));  // docs/scaling.md §11
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_THAT(p.warnings[0].en, AllOf(HasSubstr("40960 / 32768 = 1.25 differs from factor 4"), HasSubstr("1.13863"),
                                      HasSubstr("1.02231")));
}

TEST(Scaling, YarnWithoutFactorUsesMaxOverOriginal) {
  // (S5), docs/scaling.md (HF ≥ 347328108a): f = M / L0 when factor is absent. DeepSeek-V3: 163840 / 4096 = 40.
  RopeConfig c;
  c.type = ScalingType::Yarn;
  c.head_dim = 64;
  c.max_position_embeddings = 163840;
  c.original_max_position_embeddings = 4096;
  const RopeParameters p = rope_parameters(c);
  EXPECT_EQ(p.factor, 40.0);
  EXPECT_THAT(p.factor_rule.en,
              HasSubstr("max_position_embeddings / original_max_position_embeddings = 163840 / 4096"));
  EXPECT_NEAR(p.attention_factor, 1.36889, 5e-6);  // docs/scaling.md §11 get_mscale(40)
}

// YaRN's errors name the config key and the option that gives it (issue 63 item 3; the command line's namer, which
// rope_tests links, spells them --beta-fast, Python beta_fast=).
TEST(Scaling, RejectsBadYarnParameters) {
  RopeConfig c = hf_llama(ScalingType::Yarn);
  c.factor = 4.0;
  c.beta_fast = -1.0;  // math.log of a negative number in HF
  EXPECT_THAT([&] { rope_parameters(c); },
              ThrowsMessage<InvalidArgument>(HasSubstr("yarn beta_fast (--beta-fast) must be > 0 (got -1)")));
  c.beta_fast = HUGE_VAL;
  EXPECT_THAT([&] { rope_parameters(c); },
              ThrowsMessage<InvalidArgument>(HasSubstr("yarn beta_fast (--beta-fast) must be a finite number")));
  c.beta_fast.reset();
  c.attention_factor = std::nan("");
  EXPECT_THAT(
      [&] { rope_parameters(c); },
      ThrowsMessage<InvalidArgument>(HasSubstr("yarn attention_factor (--attention-factor) must be a finite number")));
  c.attention_factor.reset();
  c.mscale = 1.0;
  c.mscale_all_dim = -10.0 / std::log(4.0);  // get_mscale(4, m) = 0: HF divides by zero
  EXPECT_THAT([&] { rope_parameters(c); },
              ThrowsMessage<InvalidArgument>(HasSubstr("mscale_all_dim (--mscale-all-dim) -7.2134752")));
  EXPECT_THAT([] { yarn_correction_dim(0.0, 128, 1e4, 4096); },
              ThrowsMessage<InvalidArgument>(HasSubstr("must be > 0")));
  EXPECT_THAT([] { yarn_correction_dim(32.0, 128, 1e4, 0); },
              ThrowsMessage<InvalidArgument>(
                  HasSubstr("original_max_position_embeddings (--original-max-position) must be >= 1 (got 0)")));
  EXPECT_THAT([] { yarn_get_mscale(std::nan("")); }, ThrowsMessage<InvalidArgument>(HasSubstr("finite")));
}

// --yarn-variant (RopeConfig::yarn_variant) against the NumPy port tests/reference/yarn_variants.py (vLLM
// telechat3_scaling_rope.py @ d5a17e0517, grok1_scaling_rope.py @ e443db5afd), d = 128, base 5e5, L0 = 8192, f = 4
// (correction range [18, 35]). The port computes in float32 as vLLM does; the numbers below are its output
// (`python3 -c "import yarn_variants as y; print(y.inv_freq(v)[j], y.mscale(v))"` in tests/reference). rope's
// rope_parameters computes in float64: the tolerance is relative 4e-6 on θ_j, float32's ε (1.19e-7) times the ~30
// roundings of the port's chain (base^(2j/d) in float32 amplifies its exponent's rounding by ln base ≈ 13; yarn-log
// then takes a log and an exp), and 1e-12 on the attention factor (the port computes it in float64).
// The float32 path (inv_freq_float32, --float32) is held to the same bound. Measured with `rope frequencies
// --yarn-variant V --csv -` over all 64 pairs: 1.3e-7 (hf, telechat3), 5.8e-7 (grok-yarn-log), 9.5e-8
// (grok-theta-scale).
struct YarnVariantCase {
  std::string name;
  YarnVariant variant;
  double attention_factor;
  std::vector<std::pair<int, double>> inv_freq;  ///< (pair j, the port's θ_j)
};

class YarnVariantPort : public ::testing::TestWithParam<YarnVariantCase> {};

RopeConfig yarn_variant_config(YarnVariant v) {
  RopeConfig c;
  c.type = ScalingType::Yarn;
  c.head_dim = 128;
  c.base = 5e5;
  c.factor = 4.0;
  c.original_max_position_embeddings = 8192;
  c.yarn_variant = v;
  return c;
}

TEST(YarnVariant, GrokThetaScaleOverflowNamesItsEffectiveBaseAndInputs) {
  // Issue 62 item 8: an L0 just above 2π makes base^(ln(L0·f/2π)/ln(L0/2π)) overflow; the message blamed "base
  // must be a finite number > 1 (got inf)", a value nobody typed.
  for (const auto& [factor, l0] : {std::pair{1e300, 8192L}, std::pair{1e10, 7L}}) {
    RopeConfig c = yarn_variant_config(YarnVariant::GrokThetaScale);
    c.factor = factor;
    c.original_max_position_embeddings = l0;
    EXPECT_THAT([&] { rope_parameters(c); },
                ThrowsMessage<InvalidArgument>(
                    AllOf(HasSubstr("yarn variant grok-theta-scale: the effective base base^(ln(L0·f/2π)/ln(L0/2π)) "
                                    "overflows (base 500000, factor f = "),
                          HasSubstr("original_max_position_embeddings L0 = " + std::to_string(l0) + ")"),
                          Not(HasSubstr("got inf")))));
  }
}

TEST(YarnVariant, GrokThetaScaleBelowOneNamesItsEffectiveBaseAndInputs) {
  // Issue 77 item 8 (round 5's): f 0.5, L0 7 gave "base must be a finite number > 1 (got 2.17e-22)", a base nobody
  // typed; the effective base is named with f and L0.
  RopeConfig c = yarn_variant_config(YarnVariant::GrokThetaScale);
  c.factor = 0.5;
  c.original_max_position_embeddings = 7;
  EXPECT_THAT([&] { rope_parameters(c); },
              ThrowsMessage<InvalidArgument>(
                  AllOf(HasSubstr("yarn variant grok-theta-scale: the effective base base^(ln(L0·f/2π)/ln(L0/2π)) = "),
                        HasSubstr("must be > 1 (base 500000, factor f = 0.5, original_max_position_embeddings L0 = 7): "
                                  "f·L0 must exceed 2π"),
                        Not(HasSubstr("base must be a finite number")))));
}

TEST_P(YarnVariantPort, FrequenciesAndAttentionFactorEqualThePort) {
  const auto& [name, variant, attention, pairs] = GetParam();
  const RopeConfig c = yarn_variant_config(variant);
  const RopeParameters p = rope_parameters(c);
  EXPECT_NEAR(p.attention_factor, attention, 1e-12) << name;
  ModelConfig m;
  m.rope = c;
  const RopeSpec spec = make_spec(m);
  const Eigen::VectorXf f32 = inv_freq_float32(spec);
  for (const auto& [j, want] : pairs) {
    EXPECT_NEAR(p.inv_freq[j] / want, 1.0, 4e-6) << name << " pair " << j;
    EXPECT_NEAR(static_cast<double>(f32[j]) / want, 1.0, 4e-6) << name << " float32 pair " << j;
  }
}

INSTANTIATE_TEST_SUITE_P(Port, YarnVariantPort,
                         ::testing::Values(YarnVariantCase{"hf",
                                                           YarnVariant::Hf,
                                                           1.138629436111989,
                                                           {{0, 1.0},
                                                            {16, 0.03760603070259094},
                                                            {24, 0.00536225363612175},
                                                            {28, 0.0017946315929293633},
                                                            {32, 0.0005407286807894707},
                                                            {40, 6.856204709038138e-05},
                                                            {63, 6.137851755738666e-07}}},
                                           YarnVariantCase{"telechat3",
                                                           YarnVariant::Telechat3,
                                                           1.0970406052783923,
                                                           {{0, 1.0},
                                                            {16, 0.03760603070259094},
                                                            {24, 0.00536225363612175},
                                                            {28, 0.0017946315929293633},
                                                            {32, 0.0005407286807894707},
                                                            {40, 6.856204709038138e-05},
                                                            {63, 6.137851755738666e-07}}},
                                           YarnVariantCase{"grok_yarn_log",
                                                           YarnVariant::GrokYarnLog,
                                                           1.0,
                                                           {{0, 1.0},
                                                            {16, 0.03760603442788124},
                                                            {24, 0.004470896441489458},
                                                            {28, 0.001420847955159843},
                                                            {32, 0.00045154496910981834},
                                                            {40, 6.856204709038138e-05},
                                                            {63, 6.137848913567723e-07}}},
                                           YarnVariantCase{"grok_theta_scale",
                                                           YarnVariant::GrokThetaScale,
                                                           1.0,
                                                           {{0, 1.0},
                                                            {16, 0.019948264583945274},
                                                            {24, 0.00281745963729918},
                                                            {28, 0.0010588489240035415},
                                                            {32, 0.0003979332686867565},
                                                            {40, 5.6203432905022055e-05},
                                                            {63, 2.0224436525495548e-07}}}),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace rope
