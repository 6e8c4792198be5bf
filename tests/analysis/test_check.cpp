// rope check's comparison and diagnosis (rope/analysis/check.hpp) on synthetic float64 dumps rotated by
// tests/analysis/test_dump_fixtures.hpp's independent complex form.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "analysis/test_dump_fixtures.hpp"
#include "rope/analysis/check.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"

namespace rope {
namespace {

using test::random_dump;
using test::range_positions;
using test::rotate_dump;

RopeExpectation expect_half(int d, int r, double base = kDefaultBase, double a = 1.0) {
  RopeExpectation e;
  e.layout = Layout::Half;
  e.head_dim = d;
  e.theta.resize(r / 2);
  for (int j = 0; j < r / 2; ++j) e.theta[j] = std::pow(base, -2.0 * j / r);
  e.base = base;
  e.attention_factor = a;
  return e;
}

TEST(Check, CorrectDumpPassesAndAPerturbationJustAboveToleranceFails) {
  const DumpVectors x = random_dump(40, 2, 16);
  DumpVectors y = rotate_dump(x, true, 16, kDefaultBase);
  const auto p = range_positions(40);
  const CheckReport ok = check_dump(x, y, p, expect_half(16, 16));
  EXPECT_TRUE(ok.comparison.passed());
  EXPECT_LT(ok.comparison.max_ratio, 1e-3);  // float64 rotation against float64 reference: far inside (C1)
  EXPECT_EQ(ok.comparison.total, 40 * 2 * 16);
  // (C1) at position 7, pair 3 (channels 3, 11) of head 1, float64: κ·‖x‖·(2ε + ε(1 + 7·θ_3)).
  const double theta3 = std::pow(kDefaultBase, -6.0 / 16), eps = epsilon(DType::F64);
  const double tol = kToleranceSafety * std::hypot(x.value(7, 1, 3), x.value(7, 1, 11)) * (2 * eps + eps * (1 + 7 * theta3));
  y.values[static_cast<std::size_t>((7 * 2 + 1) * 16 + 3)] += 0.9 * tol;
  EXPECT_TRUE(check_dump(x, y, p, expect_half(16, 16)).comparison.passed());
  y.values[static_cast<std::size_t>((7 * 2 + 1) * 16 + 3)] += 0.2 * tol;
  const CheckReport bad = check_dump(x, y, p, expect_half(16, 16));
  EXPECT_EQ(bad.comparison.failing, 1);
  EXPECT_EQ(bad.comparison.first_seq, 7);
  EXPECT_EQ(bad.comparison.first_group, 1);
  EXPECT_EQ(bad.comparison.first_channel, 3);
  EXPECT_NEAR(bad.comparison.first_tolerance, tol, 1e-12 * tol);
  EXPECT_FALSE(bad.diagnosis.matches);  // one wrong element is no known variant
}

TEST(Check, NamesEachPlantedBug) {
  const DumpVectors x = random_dump(24, 2, 32);
  const auto p = range_positions(24);
  const auto matches = [&](const DumpVectors& y, const RopeExpectation& e) {
    const CheckReport r = check_dump(x, y, p, e);
    EXPECT_FALSE(r.comparison.passed());
    return r.diagnosis.matches ? to_string(*r.diagnosis.matches) : std::string("none: ") + r.diagnosis.message.en;
  };
  EXPECT_EQ(matches(rotate_dump(x, false, 32, kDefaultBase), expect_half(32, 32)), "layout-swapped");
  EXPECT_EQ(matches(rotate_dump(x, true, 32, kDefaultBase, 1.0, 1.0), expect_half(32, 32)), "positions-plus-one");
  EXPECT_EQ(matches(rotate_dump(x, true, 32, kDefaultBase, 1.0, -1.0), expect_half(32, 32)), "positions-minus-one");
  EXPECT_EQ(matches(rotate_dump(x, true, 32, kDefaultBase), expect_half(32, 32, 500000.0)), "base-10000");
  EXPECT_EQ(matches(rotate_dump(x, true, 32, kDefaultBase), expect_half(32, 32, kDefaultBase, 1.25)), "scaling-ignored");
  EXPECT_EQ(matches(rotate_dump(x, true, 32, kDefaultBase), expect_half(32, 16)), "partial-rotary-whole-head");
  EXPECT_EQ(matches(rotate_dump(x, true, 8, kDefaultBase), expect_half(32, 16)), "partial-rotary-twice");
  RopeExpectation scaled = expect_half(32, 32, kDefaultBase, 1.25);
  scaled.theta /= 4.0;  // linear f = 4 with a factor: without the factor it is "attention factor missing"
  scaled.scaled = true;
  std::vector<double> quarter(16);
  for (int j = 0; j < 16; ++j) quarter[j] = scaled.theta[j];
  EXPECT_EQ(matches(rotate_dump(x, true, 32, kDefaultBase, 1.0, 0.0, {}, quarter), scaled), "attention-factor-missing");
}

TEST(Check, HeadsInTheOtherLayoutAreListed) {
  const DumpVectors x = random_dump(16, 4, 16);
  const CheckReport r = check_dump(x, rotate_dump(x, true, 16, kDefaultBase, 1.0, 0.0, {1, 3}), range_positions(16), expect_half(16, 16));
  EXPECT_EQ(r.diagnosis.swapped_groups, (std::vector<long>{1, 3}));
  EXPECT_THAT(r.diagnosis.message.en, ::testing::HasSubstr("heads 1, 3 match the interleaved layout"));
}

TEST(Check, WarnsWhenEveryPositionIsZeroAndChecksShapes) {
  const DumpVectors x = random_dump(3, 1, 8);
  const std::vector<double> zeros(3, 0.0);
  const CheckReport r = check_dump(x, x, zeros, expect_half(8, 8));
  EXPECT_TRUE(r.only_position_zero);
  EXPECT_TRUE(r.comparison.passed());  // RoPE at 0 is the identity, in every layout
  EXPECT_THROW(check_dump(x, x, {0.0, 1.0}, expect_half(8, 8)), InvalidArgument);
  EXPECT_THROW(check_dump(x, random_dump(3, 2, 8), zeros, expect_half(8, 8)), InvalidArgument);
}

}  // namespace
}  // namespace rope
