// The fast path of verify against the dense path on the same draws, and its own properties.
#include "rope/analysis/verify/verify_fast.hpp"

#include <cmath>
#include <gtest/gtest.h>
#include <string>
#include <tuple>

#include "rope/core/dtype.hpp"
#include "rope/core/error.hpp"
#include "rope/core/random.hpp"

namespace rope {
namespace {

std::vector<VerifyDraw> draws_for(int d, double max_position, long count, std::uint64_t seed) {
  Random rng(seed);
  std::vector<VerifyDraw> out(count);
  for (VerifyDraw& x : out) {
    x.q.resize(d);
    x.k.resize(d);
    for (int j = 0; j < d; ++j) x.q[j] = rng.normal();
    for (int j = 0; j < d; ++j) x.k[j] = rng.normal();
    x.m = static_cast<double>(rng.below(static_cast<std::uint64_t>(max_position)));
    x.n = static_cast<double>(rng.below(static_cast<std::uint64_t>(max_position)));
    x.c = static_cast<double>(rng.below(static_cast<std::uint64_t>(max_position)));
  }
  return out;
}

VerifyReport on(VerifySettings s, bool dense, const std::vector<VerifyDraw>& draws) {
  s.dense = dense;
  return verify_draws(s, draws);
}

// float64, draw by draw: both paths pass every row, and the contrast, an O(1) difference computed from
// the same sums, agrees to 1e-9 relative (the two paths' cos/sin differ by a few ulp of the angle,
// (M13)'s 8·ε·(d + M) ≈ 1.5e-11 for d = 128, M = 8192; 1e-9 leaves room for sums of d terms).
// One test per dimension and layout.
class VerifyFastFloat64 : public ::testing::TestWithParam<std::tuple<int, Layout>> {};

TEST_P(VerifyFastFloat64, AgreesWithTheDenseFormDrawByDraw) {
  const auto [d, layout] = GetParam();
  VerifySettings s;
  s.dim = d;
  s.layout = layout;
  // 20 draws, 6 from d = 64 on: the dense form is O(d³) per draw (about 80 s under the sanitizers with 20).
  for (const VerifyDraw& draw : draws_for(d, 4096, d >= 64 ? 6 : 20, 7 + d)) {
    const VerifyReport fast = on(s, false, {draw}), dense = on(s, true, {draw});
    for (std::size_t r = 0; r < fast.identities.size(); ++r) {
      EXPECT_TRUE(fast.identities[r].check.passed()) << "d=" << d << " " << fast.identities[r].name;
      EXPECT_TRUE(dense.identities[r].check.passed()) << "d=" << d << " " << dense.identities[r].name;
    }
    const double scale = draw.q.norm() * draw.k.norm();
    EXPECT_NEAR(fast.contrast.max_abs_error, dense.contrast.max_abs_error, 1e-9 * scale) << "d=" << d;
    EXPECT_EQ(fast.identities[6].max_abs_error, 0.0);  // layouts: bit for bit
  }
}

INSTANTIATE_TEST_SUITE_P(DimsAndLayouts, VerifyFastFloat64,
                         ::testing::Combine(::testing::Values(2, 8, 64, 128),
                                            ::testing::Values(Layout::Interleaved, Layout::Half)),
                         [](const auto& info) {
                           return "d" + std::to_string(std::get<0>(info.param)) + "_" +
                                  std::string(to_string(std::get<1>(info.param)));
                         });

// Cast-inputs in bfloat16 and float32: both paths round the same operations to the type, so the large
// errors of the positions that bfloat16 cannot hold come out the same; the sums are accumulated in another
// order (Eigen's dot, matrix product) and rounded to T, which moves each side by at most one unit in the
// last place of T (ε·S) plus d·ε_f32·S: the test allows 3·ε_T·S per draw for scores and ε_T for matrices.
// One test per type.
class VerifyFastCastInputs : public ::testing::TestWithParam<DType> {};

TEST_P(VerifyFastCastInputs, AgreesWithTheDenseFormInLowPrecision) {
  const DType type = GetParam();
  VerifySettings s;
  s.dim = 64;
  s.dtype = type;
  s.strategy = Strategy::CastInputs;
  const double eps = epsilon(type);
  for (const VerifyDraw& draw : draws_for(64, 2000, 30, 3)) {
    const VerifyReport fast = on(s, false, {draw}), dense = on(s, true, {draw});
    const double scale = draw.q.norm() * draw.k.norm();
    for (int r : {0, 4}) {  // relative position, shift invariance
      EXPECT_NEAR(fast.identities[r].max_abs_error, dense.identities[r].max_abs_error, 3 * eps * scale)
          << to_string(type) << " " << fast.identities[r].name << " m=" << draw.m << " n=" << draw.n;
    }
    EXPECT_NEAR(fast.identities[2].max_abs_error, dense.identities[2].max_abs_error, eps) << to_string(type);
    EXPECT_NEAR(fast.contrast.max_abs_error, dense.contrast.max_abs_error, 3 * eps * scale) << to_string(type);
    EXPECT_EQ(fast.identities[6].max_abs_error, 0.0);
    EXPECT_EQ(dense.identities[6].max_abs_error, 0.0);
  }
}

INSTANTIATE_TEST_SUITE_P(Types, VerifyFastCastInputs, ::testing::Values(DType::BF16, DType::F32),
                         [](const auto& info) { return std::string(to_string(info.param)); });

TEST(VerifyFast, EveryRowUsesEveryDrawAndTheSeedDecides) {
  VerifySettings s;
  s.trials = 1000;  // not a multiple of the batch of 64
  const VerifyReport a = verify(s), b = verify(s);
  for (std::size_t r = 0; r < a.identities.size(); ++r) {
    EXPECT_EQ(a.identities[r].samples, 1000);
    EXPECT_EQ(a.identities[r].max_abs_error, b.identities[r].max_abs_error);
    EXPECT_EQ(a.identities[r].check.difference, b.identities[r].check.difference);
  }
  EXPECT_EQ(a.completed, 1000);
  EXPECT_FALSE(a.interrupted);
  // The first 64 trials are one batch: asking for 64 gives exactly the maxima over that batch, which a
  // longer run can only raise.
  s.trials = 64;
  const VerifyReport first = verify(s);
  EXPECT_LE(first.contrast.max_abs_error, a.contrast.max_abs_error);
  s.seed = 99;
  EXPECT_NE(verify(s).contrast.max_abs_error, first.contrast.max_abs_error);
}

TEST(VerifyFast, ProgressCanStopTheRunWhichReportsWhatItChecked) {
  VerifySettings s;
  s.dim = 1024;
  s.trials = 50000;  // 4 chunks of 2^24 / (64·1024) = 256 batches at d = 1024; stopped after 2
  long calls = 0;
  const VerifyReport r = verify(s, [&](long done, long total) {
    EXPECT_EQ(total, 50000);
    EXPECT_GT(done, 0);
    return ++calls < 2;
  });
  EXPECT_EQ(calls, 2);
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.completed, 2 * 256 * 64);
  EXPECT_EQ(r.identities[0].samples, r.completed);
  EXPECT_TRUE(r.all_passed());
}

// The strategies of docs/precision.md at the default positions (< 4096), d = 128.
TEST(VerifyFast, StrategiesVerdicts) {
  VerifySettings s;
  s.trials = 500;
  for (DType type : {DType::BF16, DType::F16}) {
    s.dtype = type;
    s.strategy = Strategy::AngleF32;  // the default: Hugging Face
    EXPECT_TRUE(verify(s).all_passed()) << to_string(type);
    s.strategy = Strategy::CastResult;
    EXPECT_TRUE(verify(s).all_passed()) << to_string(type);
    s.strategy = Strategy::CastInputs;  // positions above 256 (bf16) or 2048 (f16) merge
    const VerifyReport all_low = verify(s);
    EXPECT_FALSE(all_low.all_passed()) << to_string(type);
    EXPECT_FALSE(all_low.identities[0].check.passed()) << to_string(type);
    EXPECT_TRUE(all_low.identities[6].check.passed());
  }
  // The contrast of the angle-f32 run: cast-inputs fails, first with positions beyond the integers the
  // type holds (256 for bfloat16 (P2)), within the default window.
  s.dtype = DType::BF16;
  s.strategy = Strategy::AngleF32;
  const StrategyContrast c = cast_inputs_contrast(s);
  EXPECT_FALSE(c.row.check.passed());
  ASSERT_TRUE(c.fails_from.has_value());
  EXPECT_GT(*c.fails_from, 256);
  EXPECT_LE(*c.fails_from, 4096);
}

TEST(VerifyFast, StrategyToleranceModel) {
  // (P12): κ·(ε_acc·d + ε_φ·M + ε) when the angle is computed in a wider type than T.
  EXPECT_DOUBLE_EQ(strategy_tolerance(DType::BF16, Strategy::AngleF32, 128, 8192),
                   8 * (0x1p-23 * 128 + 0x1p-23 * 8192 + 0x1p-7));
  EXPECT_DOUBLE_EQ(strategy_tolerance(DType::F16, Strategy::CastResult, 64, 100),
                   8 * (0x1p-23 * 64 + 0x1p-52 * 100 + 0x1p-10));
  EXPECT_DOUBLE_EQ(strategy_tolerance(DType::F32, Strategy::CastResult, 64, 100),
                   8 * (0x1p-23 * 64 + 0x1p-52 * 100 + 0x1p-23));
  // Otherwise (P10) / (M13) unchanged.
  EXPECT_EQ(strategy_tolerance(DType::BF16, Strategy::CastInputs, 128, 4), dtype_tolerance(DType::BF16, 128, 4));
  EXPECT_EQ(strategy_tolerance(DType::F32, Strategy::AngleF32, 128, 4), dtype_tolerance(DType::F32, 128, 4));
  EXPECT_EQ(strategy_tolerance(DType::F64, Strategy::CastResult, 128, 4), dtype_tolerance(DType::F64, 128, 4));
}

TEST(VerifyFast, DenseFormRefusesAStrategyItDoesNotImplement) {
  VerifySettings s;
  s.dense = true;
  s.dtype = DType::BF16;
  s.strategy = Strategy::AngleF32;
  EXPECT_THROW(verify(s), InvalidArgument);
}

}  // namespace
}  // namespace rope
