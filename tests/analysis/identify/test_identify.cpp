// rope identify (rope/analysis/identify/identify.hpp) on synthetic float64 dumps rotated by an independent complex
// form: layout, rotary dimension, attention factor and θ_j come back to rounding (1e-9 relative), and the
// family fit recovers linear, YaRN and llama3 frequencies written from Hugging Face's formulas.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <tuple>

#include "analysis/dumps/test_dump_fixtures.hpp"
#include "rope/analysis/check/expectation.hpp"
#include "rope/analysis/identify/identify.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/dtype.hpp"
#include "rope/core/error.hpp"
#include "rope/models/vision_rope.hpp"
#include "support/expectation.hpp"

namespace rope {
namespace {

using test::random_dump;
using test::range_positions;
using test::rotate_dump;

TEST(Identify, RecoversLayoutRotaryDimFactorAndBase) {
  const DumpVectors x = random_dump(64, 2, 32);
  for (const bool half : {true, false}) {
    const Identification id = identify_rope(x, rotate_dump(x, half, 24, 500.0, 1.25), range_positions(64));
    EXPECT_EQ(id.layout, half ? PairLayout::Half : PairLayout::Interleaved);
    EXPECT_EQ(id.rotary_dim, 24);
    EXPECT_NEAR(id.attention_factor, 1.25, 1e-12);
    ASSERT_EQ(id.theta.size(), 12);
    for (int j = 0; j < 12; ++j)
      EXPECT_NEAR(id.theta[j], std::pow(500.0, -2.0 * j / 24), 1e-9 * std::pow(500.0, -2.0 * j / 24));
    EXPECT_EQ(id.fit.family, Family::Default);
    EXPECT_NEAR(id.fit.base, 500.0, 1e-6);
  }
}

TEST(Identify, ProportionalZeroFrequenciesOverTheWholeHead) {
  // HF proportional (S14): pairs (j, j + d/2) of the whole head, θ_j = base^(−2j/d) for j < 6, 0 beyond.
  const DumpVectors x = random_dump(48, 1, 32);
  std::vector<double> theta(16, 0.0);
  for (int j = 0; j < 6; ++j) theta[static_cast<std::size_t>(j)] = std::pow(10000.0, -2.0 * j / 32);
  const Identification id =
      identify_rope(x, rotate_dump(x, true, 32, 10000.0, 1.0, 0.0, {}, theta), range_positions(48));
  EXPECT_EQ(id.layout, PairLayout::Half);
  EXPECT_EQ(id.rotary_dim, 12);
  EXPECT_EQ(id.family_dim, 32);
  EXPECT_EQ(id.pairs.front(), std::make_pair(0, 16));
  EXPECT_THAT(id.notes.front().en, ::testing::HasSubstr("pairs 6 to 15 keep frequency 0"));
  EXPECT_NEAR(id.fit.base, 10000.0, 1e-6);
}

TEST(Identify, ReportsAnotherPermutationAsSuch) {
  // Pairs (0, 3) and (1, 2) of a 4-channel head: neither interleaved nor half.
  const DumpVectors x = random_dump(8, 1, 4);
  DumpVectors y = x;
  for (long s = 0; s < 8; ++s) {
    for (const auto& [a, b, t] : {std::tuple<int, int, double>{0, 3, 1.0}, {1, 2, 0.01}}) {
      const std::complex<double> w = std::complex<double>(x.value(s, 0, a), x.value(s, 0, b)) * std::polar(1.0, s * t);
      y.values[static_cast<std::size_t>(s * 4 + a)] = w.real();
      y.values[static_cast<std::size_t>(s * 4 + b)] = w.imag();
    }
  }
  const Identification id = identify_rope(x, y, range_positions(8));
  EXPECT_EQ(id.layout, PairLayout::Other);
  EXPECT_EQ(id.pairs, (std::vector<std::pair<int, int>>{{0, 3}, {1, 2}}));
  EXPECT_NEAR(id.theta[1], 0.01, 1e-12);
}

TEST(Identify, FitsTheScalingFamilies) {
  const int n = 32;
  const auto def = [&](int j) { return std::pow(10000.0, -2.0 * j / (2 * n)); };
  Eigen::VectorXd linear(n), yarn(n), llama3(n);
  for (int j = 0; j < n; ++j) {
    linear[j] = def(j) / 4;
    // HF yarn: ramp (j − 8)/(21 − 8) clamped; θ = θ/f·ramp + θ·(1 − ramp)
    const double ramp = std::min(1.0, std::max(0.0, (j - 8.0) / 13.0));
    yarn[j] = def(j) / 4 * ramp + def(j) * (1 - ramp);
    // HF llama3 with L0 = 1024, low 1, high 4: λ < 256 kept, λ > 1024 divided by 8, smooth between
    const double lambda = 2 * M_PI / def(j);
    const double smooth = (1024 / lambda - 1) / 3;
    llama3[j] = lambda < 256 ? def(j) : lambda > 1024 ? def(j) / 8 : (1 - smooth) * def(j) / 8 + smooth * def(j);
  }
  const Eigen::VectorXd exact = Eigen::VectorXd::Zero(n);
  std::vector<Message> notes;
  const FamilyFit l = detail::fit_families(linear, exact, notes).front();
  EXPECT_EQ(l.family, Family::Linear);
  EXPECT_NEAR(l.factor, 4.0, 1e-9);
  const FamilyFit y = detail::fit_families(yarn, exact, notes).front();
  EXPECT_EQ(y.family, Family::Yarn);
  EXPECT_NEAR(y.ramp_low, 8.0, 1e-6);
  EXPECT_NEAR(y.ramp_high, 21.0, 1e-6);
  EXPECT_NEAR(y.factor, 4.0, 1e-9);
  const FamilyFit b = detail::fit_families(llama3, exact, notes).front();
  EXPECT_EQ(b.family, Family::Llama3);
  EXPECT_NEAR(b.ramp_low, 256.0, 1e-6);
  EXPECT_NEAR(b.ramp_high, 1024.0, 1e-6);
  EXPECT_NEAR(b.factor, 8.0, 1e-9);
  EXPECT_LT(b.residual, 1e-9);
}

TEST(Identify, PerPairFactorsWhenNoFamilyFits) {
  // LongRoPE-like factors (S12): θ_j = base^(−2j/d) / λ_j with λ_j that no ramp or band follows.
  const int n = 16;
  Eigen::VectorXd theta(n);
  for (int j = 0; j < n; ++j)
    theta[j] = std::pow(10000.0, -2.0 * j / (2 * n)) / (1.0 + (j % 3 == 1 ? 2.0 : 0.0) + j * 0.1);
  std::vector<Message> notes;
  const auto fits = detail::fit_families(theta, Eigen::VectorXd::Zero(n), notes);
  EXPECT_EQ(fits.front().family, Family::PerPair);
  EXPECT_THAT(notes.back().en, ::testing::HasSubstr("per-pair factors"));
}

TEST(Identify, PairsAHeadWiderThan1024ByItsCandidates) {
  // Above 1024 channels only candidate pairs are costed (pairing_costs): both layouts still pair every channel, and
  // the frequencies come back as over a narrow head. A head above kMaxIdentifyDim is refused from its size.
  const DumpVectors x = random_dump(12, 1, 1028);
  for (const bool half : {true, false}) {
    const Identification id = identify_rope(x, rotate_dump(x, half, 1028, 10000.0), range_positions(12));
    EXPECT_EQ(id.layout, half ? PairLayout::Half : PairLayout::Interleaved);
    EXPECT_EQ(id.rotary_dim, 1028);
    ASSERT_EQ(id.theta.size(), 514);
    EXPECT_NEAR(id.theta[3], std::pow(10000.0, -6.0 / 1028), 1e-9);
    EXPECT_NEAR(id.fit.base, 10000.0, 1e-3);
  }
  const DumpVectors wide = random_dump(2, 1, kMaxIdentifyDim + 2);
  EXPECT_THROW(identify_rope(wide, wide, {0.0, 1.0}), InvalidArgument);
}

TEST(Identify, RefusesPositionsThatAreAllZero) {
  const DumpVectors x = random_dump(2, 1, 4);
  EXPECT_THROW(identify_rope(x, x, {0.0, 0.0}), InvalidArgument);
  const Identification id = identify_rope(x, x, {0.0, 1.0});
  EXPECT_EQ(id.rotary_dim, 0);
  EXPECT_THAT(id.notes.front().en, ::testing::HasSubstr("no channel changes"));
}

TEST(Identify, AnyIntegerPositionsOffsetsRestartsAndReversal) {
  const auto theta = [](int j) { return std::pow(10000.0, -2.0 * j / 32); };
  const DumpVectors x = random_dump(40, 2, 32);
  // Sparse positions far from 0: the periodogram needs no small consecutive ones.
  std::vector<double> sparse;
  for (int k = 0; k < 40; ++k) sparse.push_back(1 + (k * 7919) % 20000);
  Identification id = identify_rope(x, test::rotate_dump_at(x, true, 32, 10000.0, sparse), sparse);
  for (int j = 0; j < 16; ++j) EXPECT_NEAR(id.theta[j], theta(j), 1e-9) << j;
  EXPECT_EQ(id.position_offset, 0);
  EXPECT_TRUE(id.jumps.empty());
  EXPECT_EQ(id.fit.family, Family::Default);
  // Off by one: the dump at m + 1 for the positions m given.
  std::vector<double> plus_one = test::range_positions(40);
  for (double& m : plus_one) m += 1;
  id = identify_rope(x, test::rotate_dump_at(x, true, 32, 10000.0, plus_one), test::range_positions(40));
  EXPECT_EQ(id.position_offset, 1);
  EXPECT_NEAR(id.fit.base, 10000.0, 1e-6);
  EXPECT_EQ(id.fit.family, Family::Default);
  EXPECT_THAT(id.notes.back().en, ::testing::HasSubstr("positions shifted by +1"));
  // A restart at index 20 (0 … 19, 0 … 19), the positions given 0 … 39.
  std::vector<double> restart;
  for (int k = 0; k < 40; ++k) restart.push_back(k % 20);
  id = identify_rope(x, test::rotate_dump_at(x, true, 32, 10000.0, restart), test::range_positions(40));
  EXPECT_EQ(id.jumps, (std::vector<long>{20}));
  EXPECT_EQ(id.dump_positions, restart);
  EXPECT_NEAR(id.fit.base, 10000.0, 1e-6);
  EXPECT_THAT(id.notes.front().en, ::testing::HasSubstr("the positions restart at index 20"));
  // Reversed: every θ negative.
  id = identify_rope(x, test::rotate_dump_at(x, true, 32, 10000.0, test::range_positions(40), -1.0),
                     test::range_positions(40));
  EXPECT_TRUE(id.reversed);
  EXPECT_NEAR(id.theta[0], -1.0, 1e-9);
  EXPECT_NEAR(id.fit.base, 10000.0, 1e-6);
}

TEST(Identify, PositionsThatCannotDetermineTheta) {
  // Positions all even: θ and θ − π turn them alike, for θ_0 = 1.
  std::vector<double> even;
  for (int k = 0; k < 30; ++k) even.push_back(2 * k);
  const DumpVectors x = random_dump(30, 1, 8);
  const Identification id = identify_rope(x, test::rotate_dump_at(x, true, 8, 10000.0, even), even);
  EXPECT_THAT(id.undetermined, ::testing::Contains(0));
  EXPECT_THAT(id.notes.front().en, ::testing::HasSubstr("the positions cannot determine θ of pairs 0"));
  // The periodogram alone: its peak, found on a grid and refined, at 8 scattered integer positions; three
  // positions 3, 11, 40 leave another θ within 0.3 % of the peak (NumPy: max of |Σ e^(i(0.3−θ)m)|/3 away from
  // 0.3 is 0.9971), which is flagged.
  bool ambiguous = true;
  std::vector<double> m{3, 11, 40, 97, 150, 201, 333, 512};
  const auto phasors = [](const std::vector<double>& at) {
    std::vector<std::complex<double>> u;
    for (const double p : at) u.push_back(std::polar(2.0, 0.3 * p));
    return u;
  };
  EXPECT_NEAR(detail::periodogram_peak(m, phasors(m), ambiguous), 0.3, 1e-9);
  EXPECT_FALSE(ambiguous);
  m = {3, 11, 40};
  (void)detail::periodogram_peak(m, phasors(m), ambiguous);
  EXPECT_TRUE(ambiguous);
}

/// A Hugging Face spot-check (issue 53, item 5): 48 sparse positions in 1 … 131071 (131071 among them), 4 heads
/// of d = 128, rounded to `type`; the periodogram's grid would be 8·10^5 points per pair, identify follows the
/// phases of the closest positions instead (identify_theta.cpp sparse_peak) and must find the same layout and base.
struct SpotCheckCase {
  bool half;
  double base;
  DType type;
  double sign;  ///< −1: the rotation reversed
};

class IdentifySpotCheck : public ::testing::TestWithParam<SpotCheckCase> {};

TEST_P(IdentifySpotCheck, SparsePositionsTo131071FindTheLayoutAndBase) {
  const SpotCheckCase c = GetParam();
  std::mt19937_64 gen(53);
  std::uniform_int_distribution<long> pick(1, 131070);
  std::vector<double> positions{131071};
  while (positions.size() < 48) {
    const auto m = static_cast<double>(pick(gen));
    if (std::find(positions.begin(), positions.end(), m) == positions.end()) positions.push_back(m);
  }
  std::sort(positions.begin(), positions.end());
  DumpVectors x = random_dump(48, 4, 128, 11);
  for (double& v : x.values) v = round_to(c.type, v);
  x.dtype = c.type;
  DumpVectors y = test::rotate_dump_at(x, c.half, 128, c.base, positions, c.sign);
  for (double& v : y.values) v = round_to(c.type, v);
  const Identification id = identify_rope(x, y, positions);
  EXPECT_EQ(id.layout, c.half ? PairLayout::Half : PairLayout::Interleaved);
  EXPECT_EQ(id.rotary_dim, 128);
  EXPECT_EQ(id.fit.family, Family::Default);
  EXPECT_NEAR(id.fit.base / c.base, 1.0, c.type == DType::F64 ? 1e-9 : 1e-3);
  EXPECT_EQ(id.reversed, c.sign < 0);
  EXPECT_EQ(id.position_offset, 0);
  EXPECT_TRUE(id.jumps.empty());
  EXPECT_TRUE(id.undetermined.empty());
  if (c.type == DType::F64) {
    for (int j = 0; j < 64; ++j) EXPECT_NEAR(id.theta[j], c.sign * std::pow(c.base, -2.0 * j / 128), 1e-9) << j;
  }
}

INSTANTIATE_TEST_SUITE_P(Identify, IdentifySpotCheck,
                         ::testing::Values(SpotCheckCase{true, 500000.0, DType::F64, 1.0},
                                           SpotCheckCase{false, 10000.0, DType::F64, 1.0},
                                           SpotCheckCase{true, 500000.0, DType::F32, 1.0},
                                           SpotCheckCase{true, 1e6, DType::BF16, 1.0},
                                           SpotCheckCase{true, 10000.0, DType::F32, -1.0}));

/// q ~ N(0, 1) and RoPE(q) (float64, base `base`, the half or the interleaved layout) both rounded to bf16, as a
/// bf16 model's tensors; stored as `stored` (F32: saved with .float()).
std::pair<DumpVectors, DumpVectors> short_bf16_dump(double base, bool half, DType stored) {
  DumpVectors x = random_dump(24, 8, 128, 7);
  for (double& v : x.values) v = round_to(DType::BF16, v);
  x.dtype = stored;
  DumpVectors y = rotate_dump(x, half, 128, base);
  for (double& v : y.values) v = round_to(DType::BF16, v);
  return {x, y};
}

TEST(Identify, Bf16TwoClustersResolveEachPairsAlias) {
  // Positions 0 … 15 and 130816 … 131071 (tests/data/gpu's), 2 heads, d = 64, base 10000, q and RoPE(q) rounded to
  // bf16: the near cluster turns a pair too little to tell θ_j from θ_j + k·2π/m_c (m_c ≈ 130944), which turn the far
  // cluster's phases apart by ±0.006·k rad across its 255 positions, twice bf16's angle error there. Each pair's
  // frequency of that comb is the one the phases fit (identify_alias.cpp): every θ_j within 10⁻⁴ of the ladder's (an
  // alias is 2π/130944 = 4.8·10⁻⁵ away, 0.36 of θ_31), the base within 10⁻⁵ (10030.2 before, on the GPU's dump).
  std::vector<double> p;
  for (int i = 0; i < 16; ++i) p.push_back(i);
  for (int i = 130816; i < 131072; ++i) p.push_back(i);
  DumpVectors x = random_dump(static_cast<long>(p.size()), 2, 64, 5);
  for (double& v : x.values) v = round_to(DType::BF16, v);
  x.dtype = DType::BF16;
  DumpVectors y = test::rotate_dump_at(x, true, 64, 10000.0, p);
  for (double& v : y.values) v = round_to(DType::BF16, v);
  const Identification id = identify_rope(x, y, p);
  EXPECT_EQ(id.layout, PairLayout::Half);
  EXPECT_EQ(id.fit.family, Family::Default);
  EXPECT_NEAR(id.fit.base / 10000.0, 1.0, 1e-5);
  ASSERT_EQ(id.theta.size(), 32);
  for (int j = 0; j < 32; ++j) EXPECT_NEAR(id.theta[j] / std::pow(10000.0, -2.0 * j / 64), 1.0, 1e-4) << j;
  EXPECT_TRUE(id.undetermined.empty());
}

TEST(Identify, ShortBf16DumpKeepsItsLayoutAndBase) {
  // 24 positions, 8 heads, d = 128: base 500000's pairs j >= ~43 turn by less than bf16's rounding (23·θ_43 = 3.4e-3
  // rad against bf16's 2^-8 = 3.9e-3), so no norm shows their partners; the others' layout pairs them, and the base
  // comes back within 1e-3 (measured 1e-4: the slow pairs' θ are biased by the rounding and weigh little;
  // tests/cli/check_shapes.py does the same with NumPy's float32 RoPE).
  for (const double base : {10000.0, 500000.0}) {
    const auto [x, y] = short_bf16_dump(base, true, DType::BF16);
    const Identification id = identify_rope(x, y, range_positions(24));
    EXPECT_EQ(id.layout, PairLayout::Half) << base;
    ASSERT_FALSE(id.pairs.empty());
    EXPECT_EQ(id.pairs.front(), std::make_pair(0, 64));
    EXPECT_EQ(id.fit.family, Family::Default) << base;
    EXPECT_NEAR(id.fit.base / base, 1.0, 1e-3);
    EXPECT_FALSE(id.reversed);
    if (base == 500000.0) {
      ASSERT_FALSE(id.pairing_assumed.empty());
      EXPECT_GE(id.pairing_assumed.front(), 35);
      EXPECT_EQ(id.pairing_assumed.back(), static_cast<int>(id.pairs.size()) - 1);
      EXPECT_THAT(id.notes,
                  ::testing::Contains(::testing::Field(
                      &Message::en,
                      ::testing::HasSubstr(
                          "turn too little at these positions for their partners to show above the dump's rounding"))));
    }
  }
  // Interleaved: the pairs that do not move are the last channels, a partial rotary's tail or the whole head's slowest
  // pairs; 24 positions cannot tell, and rope says both (base over the rotated channels, and over the head).
  {
    const auto [x, y] = short_bf16_dump(500000.0, false, DType::BF16);
    const Identification id = identify_rope(x, y, range_positions(24));
    EXPECT_EQ(id.layout, PairLayout::Interleaved);
    ASSERT_LT(id.rotary_dim, 128);
    EXPECT_NEAR(std::pow(id.fit.base, 128.0 / id.rotary_dim) / 500000.0, 1.0, 1e-3);
    EXPECT_THAT(id.notes.back().en,
                ::testing::HasSubstr(
                    fmt::format("channels {}–127 do not move: rotary_dim {} with base", id.rotary_dim, id.rotary_dim)));
    EXPECT_THAT(id.notes.back().en, ::testing::HasSubstr("or all 128 channels with base"));
  }
  // Saved as float32 (.float()): the same bf16 numbers, identified with bf16's rounding, and said so.
  const auto [x, y] = short_bf16_dump(500000.0, true, DType::F32);
  const Identification id = identify_rope(x, y, range_positions(24));
  EXPECT_EQ(id.layout, PairLayout::Half);
  EXPECT_NEAR(id.fit.base / 500000.0, 1.0, 1e-3);
  EXPECT_THAT(id.notes.front().en, ::testing::HasSubstr("every value is a bf16 number saved as float32"));
}

TEST(Identify, StatedDtypeSetsTheRounding) {
  // A float16 model's tensors saved as float32 (24 positions, 8 heads, d = 128, base 500000): float16 numbers, which
  // are not bf16 ones. Taken as float32, the slow pairs' rounding (2^-11) looks like a change no pairing keeps the
  // norm of; stated as f16 (rope identify --dtype f16), the half layout and the base come back.
  DumpVectors x = random_dump(24, 8, 128, 7);
  for (double& v : x.values) v = round_to(DType::F16, v);
  x.dtype = DType::F32;
  DumpVectors y = rotate_dump(x, true, 128, 500000.0);
  for (double& v : y.values) v = round_to(DType::F16, v);
  const Identification guessed = identify_rope(x, y, range_positions(24));
  EXPECT_EQ(guessed.layout, PairLayout::None);
  for (DumpVectors* v : {&x, &y}) v->dtype = DType::F16, v->dtype_stated = true;
  const Identification stated = identify_rope(x, y, range_positions(24));
  EXPECT_EQ(stated.layout, PairLayout::Half);
  EXPECT_EQ(stated.fit.family, Family::Default);
  EXPECT_NEAR(stated.fit.base / 500000.0, 1.0, 1e-3);
  // Stated float32 on bf16 numbers: taken as stated, no bf16 note.
  auto [b, a] = short_bf16_dump(10000.0, true, DType::F32);
  b.dtype_stated = a.dtype_stated = true;
  a.dtype = DType::F32;
  const Identification as_f32 = identify_rope(b, a, range_positions(24));
  EXPECT_THAT(as_f32.notes, ::testing::Not(::testing::Contains(::testing::Field(
                                &Message::en, ::testing::HasSubstr("every value is a bf16 number saved as float32")))));
}

TEST(Identify, HeadsInTheOtherLayoutAreListed) {
  const DumpVectors x = random_dump(40, 4, 16);
  const Identification id = identify_rope(x, rotate_dump(x, true, 16, 10000.0, 1.0, 0.0, {1, 3}), range_positions(40));
  EXPECT_EQ(id.layout, PairLayout::Half);
  EXPECT_EQ(id.heads_paired_otherwise, (std::vector<long>{1, 3}));
  for (int j = 0; j < 8; ++j) EXPECT_NEAR(id.theta[j], std::pow(10000.0, -2.0 * j / 16), 1e-9) << j;
  EXPECT_THAT(id.notes.front().en, ::testing::HasSubstr("heads 1, 3 pair their channels as interleaved"));
}

/// Text tokens at 0 … 7, then a 24 × 24 image at t = 8 with h, w = 8 … 31, then 16 text tokens (Qwen2-VL's
/// get_rope_index layout; `text_only`: every index i at (i, i, i)), rotated by M-RoPE with `sections` in `order`
/// (HF's chunked (A2) or interleaved (A3) map).
std::pair<std::vector<AxisPosition>, DumpVectors> mrope_case(const DumpVectors& x, const std::vector<int>& sections,
                                                             SectionOrder order, bool text_only = false) {
  std::vector<AxisPosition> p = test::text_image_positions(8, 24, 16);
  if (text_only) {
    for (std::size_t i = 0; i < p.size(); ++i) p[i].value = {double(i), double(i), double(i), 0};
  }
  RopeExpectation e = test::expect_half(x.d);
  e.rope.axes = make_axis_map({sections, order}, x.d / 2);
  return {p, expected_dump(x, p, e)};
}

TEST(Identify, OpenPangusGreedyInterleaveFromAxisPositions) {
  // d = 16, 8 pairs: openPangu-VL's (A10) of [2, 3, 3] is t h w h w h w t (vLLM get_mrope_interleaved_id_list with
  // force_last, as tests/reference/openpangu_mrope.py's port gives it); Qwen3-VL's (A3) of the same counts is not.
  const DumpVectors x = random_dump(600, 2, 16);
  const auto [positions, y] = mrope_case(x, {2, 3, 3}, SectionOrder::PanguGreedy);
  const Identification id = identify_rope(x, y, positions);
  ASSERT_TRUE(id.axes.has_value());
  EXPECT_EQ(id.axes->sections, (std::vector<int>{2, 3, 3}));
  ASSERT_TRUE(id.axes->order.has_value());
  EXPECT_EQ(*id.axes->order, SectionOrder::PanguGreedy);
  EXPECT_EQ(id.axes->pair_axis, (std::vector<int>{0, 1, 2, 1, 2, 1, 2, 0}));
}

TEST(Identify, MropeSectionsFromAxisPositions) {
  // d = 16, 8 pairs: [4, 2, 2] chunked is t t t t h h w w; interleaved, t h w t h w t t; Bailing (A9), h w h w t t t t
  // (all 4, 2, 2).
  const DumpVectors x = random_dump(600, 2, 16);
  for (const SectionOrder order : {SectionOrder::Chunked, SectionOrder::Interleaved, SectionOrder::Bailing}) {
    const auto [positions, y] = mrope_case(x, {4, 2, 2}, order);
    const Identification id = identify_rope(x, y, positions);
    ASSERT_TRUE(id.axes.has_value());
    EXPECT_EQ(id.axes->sections, (std::vector<int>{4, 2, 2}));
    ASSERT_TRUE(id.axes->order.has_value());
    EXPECT_EQ(*id.axes->order, order);
    EXPECT_EQ(id.axes->pair_axis, make_axis_map({{4, 2, 2}, order}, 8).pair_axis);
    for (int j = 0; j < 8; ++j)
      EXPECT_NEAR(id.theta[j], std::pow(kDefaultBase, -2.0 * j / 16), 1e-9 * std::pow(kDefaultBase, -2.0 * j / 16));
    EXPECT_EQ(id.fit.family, Family::Default);
    EXPECT_NEAR(id.fit.base, kDefaultBase, 1e-3);
  }
  // A map no HF class makes (w before h: the h and w components exchanged): named as a pattern.
  const auto [positions, y] = mrope_case(x, {4, 2, 2}, SectionOrder::Chunked);
  std::vector<AxisPosition> hw = positions;
  for (AxisPosition& a : hw) std::swap(a.value[1], a.value[2]);
  const Identification other = identify_rope(x, y, hw);
  ASSERT_TRUE(other.axes.has_value());
  EXPECT_FALSE(other.axes->order.has_value());
  EXPECT_THAT(other.notes.back().en,
              ::testing::HasSubstr("neither Hugging Face's chunked map (A2) nor the interleaved one (A3): ttttwwhh"));
  EXPECT_EQ(other.axes->pair_axis, (std::vector<int>{0, 0, 0, 0, 2, 2, 1, 1}));
  // Base 1e14: pairs 6 and 7 (w) turn by less than 1e-9 rad across the image, below what tells the axes apart.
  {
    const DumpVectors x16 = random_dump(600, 1, 16);
    std::vector<AxisPosition> p;
    DumpVectors slow;
    std::tie(p, std::ignore) = mrope_case(x16, {4, 2, 2}, SectionOrder::Chunked);
    RopeExpectation e = test::expect_half(16, 0, 1e14);
    e.rope.axes = make_axis_map({{4, 2, 2}, SectionOrder::Chunked}, 8);
    slow = expected_dump(x16, p, e);
    const Identification partial = identify_rope(x16, slow, p);
    ASSERT_TRUE(partial.axes.has_value());
    EXPECT_TRUE(partial.axes->sections.empty());
    EXPECT_EQ(partial.axes->pair_axis, (std::vector<int>{0, 0, 0, 0, 1, 1, -1, -1}));
    EXPECT_THAT(partial.notes.front().en,
                ::testing::HasSubstr("pairs 6, 7 turn by (they turn too little between tokens whose "
                                     "t, h and w differ): the axes found are tttthh??"));
  }
  // Text tokens only, (p, p, p): every axis fits every pair alike.
  const auto [text, z] = mrope_case(x, {4, 2, 2}, SectionOrder::Chunked, true);
  const Identification none = identify_rope(x, z, text);
  ASSERT_TRUE(none.axes.has_value());
  EXPECT_TRUE(none.axes->sections.empty());
  EXPECT_EQ(none.axes->pair_axis, std::vector<int>(8, -1));
  EXPECT_NEAR(none.fit.base, kDefaultBase, 1e-3);  // θ_j still measured (at any of the equal axes)
  EXPECT_THAT(none.notes.front().en,
              ::testing::HasSubstr("the positions cannot tell which axis pairs 0, 1, 2, 3, 4, 5, 6, 7 turn by"));
}

TEST(Identify, ALatentGridsUnchangedLastChannelsAreAPartialRotaryWhereTheirNeighbourShowsItsPartner) {
  // Wan's widths (t 44, h 42, w 42), interleaved pairs, base 10^6, on a 3 × 4 × 5 grid, rotated here by hand (each
  // axis's ladder base^(−2k/d_a), models/grid_rope.hpp (G1)): the grid and its base are read. With the last 6 pairs
  // left unrotated in float64, where pair 57 before them turns enough to show its partner, those channels are a
  // partial rotary and no grid is named (a bf16 dump's unturned last pairs are the grid's:
  // tests/cli/check_diffusers.py, mistake_wan_base_1e6_bf16).
  const std::array<int, 3> widths{44, 42, 42};
  constexpr int kD = 128;
  const DumpVectors x = random_dump(60, 2, kD);
  std::vector<AxisPosition> p;
  for (int t = 0; t < 3; ++t) {
    for (int h = 0; h < 4; ++h) {
      for (int w = 0; w < 5; ++w) {
        AxisPosition a;
        a.count = 3, a.value = {double(t), double(h), double(w), 0.0};
        p.push_back(a);
      }
    }
  }
  const auto rotated = [&](int pairs) {
    DumpVectors y = x;
    for (long s = 0; s < x.seq; ++s) {
      for (long g = 0; g < x.groups(); ++g) {
        for (int a = 0, j = 0; a < 3; ++a) {
          const int n = widths[static_cast<std::size_t>(a)] / 2;
          for (int k = 0; k < n; ++k, ++j) {
            if (j >= pairs) continue;
            const double phi = p[static_cast<std::size_t>(s)][a] * std::pow(1e6, -2.0 * k / (2 * n));
            const auto i = static_cast<std::size_t>((s * x.groups() + g) * kD + 2 * j);
            const double u = x.values[i], v = x.values[i + 1];
            y.values[i] = u * std::cos(phi) - v * std::sin(phi);
            y.values[i + 1] = v * std::cos(phi) + u * std::sin(phi);
          }
        }
      }
    }
    return y;
  };
  const Identification whole = identify_rope(x, rotated(kD / 2), p);
  ASSERT_TRUE(whole.grid.has_value());
  EXPECT_EQ(whole.grid->widths, std::vector<int>(widths.begin(), widths.end()));
  EXPECT_NEAR(whole.grid->base, 1e6, 1e-3 * 1e6);
  const Identification partial = identify_rope(x, rotated(kD / 2 - 6), p);
  EXPECT_EQ(partial.rotary_dim, kD - 12);
  EXPECT_FALSE(partial.grid.has_value());
}

/// LTX's table over 128 channels (models/grid_rope.hpp (W7): 1 padding pair, then 21 frequencies ω_k =
/// (π/2)·10000^(k/20), the axes t, h, w in turn per frequency, pairs (2p, 2p + 1)) rotated here by hand on a 3 × 2 × 3
/// latent at positions t = −1 + step·f, h and w = −1 + i/32 (LTX-Video's 2g − 1; step 0.032 is its 25 fps, 8 frames per
/// latent frame, 20 base frames), with some table pairs left unturned (as a bf16 dump shows a pair turned by whole
/// turns): the case, and what identify must read.
struct LtxUnturned {
  const char* name;
  double step;                ///< t's step per latent frame
  std::vector<int> unturned;  ///< table pairs left unturned (padding counted)
  bool grid;                  ///< LTX's table read
  std::vector<int> whole_turns;
};

class IdentifyLtxUnturned : public ::testing::TestWithParam<LtxUnturned> {};

TEST_P(IdentifyLtxUnturned, ReadAsTheTableOnlyWhereItTurnsThemByWholeTurns) {
  const LtxUnturned& c = GetParam();
  constexpr int kD = 128, kF = 21;
  const DumpVectors x = random_dump(18, 2, kD);
  std::vector<AxisPosition> p;
  for (int f = 0; f < 3; ++f) {
    for (int h = 0; h < 2; ++h) {
      for (int w = 0; w < 3; ++w) {
        AxisPosition a;
        a.count = 3, a.value = {-1 + c.step * f, -1 + h / 32.0, -1 + w / 32.0, 0.0};
        p.push_back(a);
      }
    }
  }
  DumpVectors y = x;
  for (long s = 0; s < x.seq; ++s) {
    for (long g = 0; g < x.groups(); ++g) {
      for (int pair = 1; pair < kD / 2; ++pair) {
        if (std::find(c.unturned.begin(), c.unturned.end(), pair) != c.unturned.end()) continue;
        const int k = (pair - 1) / 3, axis = (pair - 1) % 3;
        const double phi = p[static_cast<std::size_t>(s)][axis] * kPi / 2 * std::pow(1e4, k / double(kF - 1));
        const auto i = static_cast<std::size_t>((s * x.groups() + g) * kD + 2 * pair);
        const double u = x.values[i], v = x.values[i + 1];
        y.values[i] = u * std::cos(phi) - v * std::sin(phi);
        y.values[i + 1] = v * std::cos(phi) + u * std::sin(phi);
      }
    }
  }
  const Identification id = identify_rope(x, y, p);
  ASSERT_EQ(id.grid.has_value(), c.grid);
  if (!c.grid) return;
  EXPECT_TRUE(id.grid->per_frequency);
  EXPECT_EQ(id.grid->widths, std::vector<int>(3, 2 * kF));
  EXPECT_EQ(id.grid->padding, 1);
  EXPECT_NEAR(id.grid->base, 1e4, 1e-6 * 1e4);  // float64 angles: the slowest pairs' fit is exact to ~1e-10
  EXPECT_EQ(id.grid->whole_turns, c.whole_turns);
  EXPECT_EQ(id.grid->whole_turns_base, c.whole_turns.empty() ? 0.0 : 1e4);
  // The faster pairs alias between tokens: the table explains them, and no note says they fit no frequency.
  for (const Message& note : id.notes) EXPECT_EQ(note.en.find("fit no frequency"), std::string::npos) << note.en;
}

// ω_15 = 500π and ω_20 = 5000π turn t's pairs 46 and 61 by whole turns at t = −1 + 0.032·f; at t = −1 + 0.03·f pair 46
// turns by 242.5 turns at f = 1 (ω_15·0.97 = 485π). Pair 40 (t's, ω_13 = (π/2)·10^2.6 ≈ 625.4) turns by 99.5 turns at
// t = −1. A missing pair the table does not turn by whole turns leaves the table unnamed.
INSTANTIATE_TEST_SUITE_P(Ltx, IdentifyLtxUnturned,
                         ::testing::Values(LtxUnturned{"every_pair_turned", 0.032, {}, true, {}},
                                           LtxUnturned{"whole_turns_46_61", 0.032, {46, 61}, true, {46, 61}},
                                           LtxUnturned{"pair_40_unturned", 0.032, {40}, false, {}},
                                           LtxUnturned{"pair_46_unturned_at_other_t", 0.03, {46}, false, {}}),
                         [](const ::testing::TestParamInfo<LtxUnturned>& info) {
                           return std::string(info.param.name);
                         });

TEST(Identify, TwoDVisionRopesByTheirMapPairsAndLadders) {
  // Patches (row, column) of a 9 × 11 grid rotated as each vision kind does (vision_rope.hpp, (V2), (V3), (V5), (V6)),
  // d = 16, base 100: the kind's map and channel pairs are found, and the base its ladders fit, to 1e-9 relative.
  // tests/cli/check_gemma4_vision.py does the same for Gemma 4 on the NumPy port's dumps of HF's code.
  const DumpVectors x = random_dump(99, 2, 16);
  std::vector<AxisPosition> p;
  for (int r = 0; r < 9; ++r) {
    for (int c = 0; c < 11; ++c) {
      AxisPosition a;
      a.count = 2, a.value[0] = r, a.value[1] = c;
      p.push_back(a);
    }
  }
  for (const VisionRope kind : {VisionRope::Qwen2VL, VisionRope::Pixtral, VisionRope::Axial, VisionRope::Gemma4}) {
    const VisionPairs pairs = vision_pairs(kind, 16, 100.0);
    RopeExpectation e;
    e.rope.head_dim = 16;
    e.rope.layout = pairs.layout;
    e.set_theta(pairs.theta);
    e.rope.config.base = 100;
    e.rope.axes = vision_axis_map(pairs);
    e.rope.axis_blocks = pairs.per_block;
    const Identification id = identify_rope(x, expected_dump(x, p, e), p);
    ASSERT_TRUE(id.vision.has_value()) << to_string(kind);
    EXPECT_EQ(id.vision->kind, to_string(kind));
    EXPECT_NEAR(id.vision->base, 100.0, 1e-7) << to_string(kind);
    // The pair layout by its name: Gemma 4's rotate_half inside each axis's block is half with axis_blocks (V6), the
    // others the head's own half or interleaved layout.
    EXPECT_EQ(id.layout, pairs.layout == Layout::Half ? PairLayout::Half : PairLayout::Interleaved) << to_string(kind);
    EXPECT_EQ(id.axis_blocks, pairs.per_block) << to_string(kind);
    EXPECT_THAT(id.notes.back().en, ::testing::HasSubstr(fmt::format("a 2-D vision RoPE, {} ", to_string(kind))));
    for (const Message& note : id.notes)
      EXPECT_THAT(note.en, ::testing::Not(::testing::HasSubstr("no family explains")));
  }
  // The rows and columns exchanged: Qwen2-VL's pairs with the column first is no kind's map.
  const VisionPairs q = vision_pairs(VisionRope::Qwen2VL, 16, 100.0);
  RopeExpectation e;
  e.rope.head_dim = 16, e.rope.layout = q.layout, e.rope.config.base = 100;
  e.set_theta(q.theta);
  e.rope.axes = vision_axis_map(q);
  std::vector<AxisPosition> swapped = p;
  for (AxisPosition& a : swapped) std::swap(a.value[0], a.value[1]);
  const Identification none = identify_rope(x, expected_dump(x, p, e), swapped);
  EXPECT_FALSE(none.vision.has_value());
  EXPECT_THAT(none.notes.back().en, ::testing::HasSubstr("the pairs' axes (wwwwhhhh, h the row, w the column)"));
}

}  // namespace
}  // namespace rope
