#include "rope/core/dtype.hpp"

#include <cmath>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <limits>

#include "rope/core/error.hpp"

namespace rope {
namespace {

TEST(DType, NamesRoundTripAndAliases) {
  for (DType t : kAllDTypes) EXPECT_EQ(parse_dtype(to_string(t)), t);
  EXPECT_EQ(parse_dtype("bfloat16"), DType::BF16);
  EXPECT_EQ(parse_dtype("half"), DType::F16);
  EXPECT_EQ(parse_dtype("float"), DType::F32);
  EXPECT_EQ(parse_dtype("double"), DType::F64);
  EXPECT_THAT([] { parse_dtype("fp8"); },
              ::testing::ThrowsMessage<InvalidArgument>(::testing::HasSubstr("f64, f32, f16 or bf16 (got 'fp8')")));
}

TEST(DType, EpsilonIsTheGapAfterOne) {
  EXPECT_EQ(epsilon(DType::F64), std::numeric_limits<double>::epsilon());
  EXPECT_EQ(epsilon(DType::F32), static_cast<double>(std::numeric_limits<float>::epsilon()));
  EXPECT_EQ(epsilon(DType::F16), 0x1p-10);
  EXPECT_EQ(epsilon(DType::BF16), 0x1p-7);
  // Derived from the rounding itself, independently of the table: 1 + ε is the next number after 1,
  // 1 + ε/2 is a tie and rounds to even (back to 1).
  for (DType t : kAllDTypes) {
    const double e = epsilon(t);
    EXPECT_EQ(round_to(t, 1 + e), 1 + e) << to_string(t);
    EXPECT_EQ(round_to(t, 1 + e / 2), 1.0) << to_string(t);
    EXPECT_EQ(round_to(t, 1 + 0.75 * e), 1 + e) << to_string(t);
  }
}

TEST(DType, Bfloat16HoldsEveryIntegerUpTo256Only) {
  EXPECT_EQ(max_exact_integer(DType::BF16), 256);
  EXPECT_EQ(max_exact_integer(DType::F16), 2048);
  EXPECT_EQ(max_exact_integer(DType::F32), 16777216);
  EXPECT_EQ(max_exact_integer(DType::F64), 9007199254740992.0);
  for (DType t : {DType::F16, DType::BF16}) {
    for (double m = 0; m <= max_exact_integer(t); ++m) ASSERT_EQ(round_to(t, m), m) << to_string(t) << " " << m;
  }
  // Above 2^p the spacing is 2 and ties go to the even significand.
  EXPECT_EQ(round_to(DType::BF16, 257), 256);  // gpt-neox#1016: 257 becomes 256
  EXPECT_EQ(round_to(DType::BF16, 258), 258);
  EXPECT_EQ(round_to(DType::BF16, 259), 260);
  EXPECT_EQ(round_to(DType::BF16, 1000), 1000);
  EXPECT_EQ(round_to(DType::BF16, 1001), 1000);  // spacing 4 in [512, 1024): 1001 is nearer 1000
  EXPECT_EQ(round_to(DType::BF16, 1048575), 1048576);
  EXPECT_EQ(round_to(DType::F16, 2049), 2048);
  EXPECT_EQ(round_to(DType::F16, 2051), 2052);
  EXPECT_EQ(round_to(DType::F32, 16777217), 16777216);
}

TEST(DType, Float16Overflows) {
  EXPECT_EQ(max_finite(DType::F16), 65504);
  EXPECT_EQ(round_to(DType::F16, 65519), 65504);
  EXPECT_TRUE(std::isinf(round_to(DType::F16, 65520)));
  EXPECT_TRUE(std::isfinite(round_to(DType::BF16, 1e38)));
}

TEST(DType, Bfloat16MergesCountedByHand) {
  // 0 … 300: 0 … 256 exact (257 values), then the even numbers 258 … 300 (22 values). The 22 odd
  // numbers 257 … 299 each merge into a neighbour: 257 → 256, 259 → 260, 261 → 260, 263 → 264 …
  const PositionMerges r = position_merges(DType::BF16, 300);
  EXPECT_EQ(r.distinct, 279);
  EXPECT_EQ(r.inexact, 22);
  EXPECT_EQ(r.merged, 22);
  EXPECT_EQ(r.overflow, 0);
  ASSERT_EQ(r.first_groups.size(), 3U);
  EXPECT_EQ(r.first_groups[0].value, 256);
  EXPECT_EQ(r.first_groups[0].first, 256);
  EXPECT_EQ(r.first_groups[0].last, 257);
  EXPECT_EQ(r.first_groups[1].value, 260);
  EXPECT_EQ(r.first_groups[1].first, 259);
  EXPECT_EQ(r.first_groups[1].last, 261);
  EXPECT_EQ(r.first_groups[2].value, 264);
  EXPECT_EQ(r.first_groups[2].first, 263);
  EXPECT_EQ(r.first_groups[2].last, 265);
  // Up to 256 nothing merges.
  EXPECT_EQ(position_merges(DType::BF16, 256).merged, 0);
  EXPECT_EQ(position_merges(DType::BF16, 257).merged, 1);
}

TEST(DType, Float16MergesAndOverflowCountedByHand) {
  // 0 … 2100: 2049 exact values, then 2050 … 2100 even (26 values); the odd 2049 … 2099 merge.
  const PositionMerges r = position_merges(DType::F16, 2100);
  EXPECT_EQ(r.distinct, 2075);
  EXPECT_EQ(r.merged, 26);
  ASSERT_FALSE(r.first_groups.empty());
  EXPECT_EQ(r.first_groups[0].value, 2048);
  EXPECT_EQ(r.first_groups[0].last, 2049);
  // 65520 … 70000 round to infinity.
  EXPECT_EQ(position_merges(DType::F16, 70000).overflow, 70000 - 65520 + 1);
  // float32 and float64 keep every position up to 2^24 apart.
  EXPECT_EQ(position_merges(DType::F32, 16777216).merged, 0);
  EXPECT_EQ(position_merges(DType::F64, 1000).merged, 0);
}

TEST(DType, MergesRejectBadRange) {
  EXPECT_THROW(position_merges(DType::BF16, -1), InvalidArgument);
  EXPECT_THROW(position_merges(DType::BF16, 2.5), InvalidArgument);
  EXPECT_THROW(position_merges(DType::BF16, 16777217), InvalidArgument);
}

}  // namespace
}  // namespace rope
