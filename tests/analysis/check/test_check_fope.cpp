// rope check on FoPE (rope/models/fope.hpp (F2)–(F4), the kernel's per-head path of check_kernel.cpp): a dump of
// scaled rotations written here from the formula (identity coefficients on key-value head 0, twice the identity on
// head 1: plain RoPE on the kept pairs, doubled on head 1), query heads grouped on their key-value head, passes; the
// padded pairs with sin 1 fail and are named with their count; heads that do not divide among the key-value heads are
// refused. The engines' own computation is tests/reference/fope.py's (reference.fope).
#include <cmath>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <memory>

#include "rope/analysis/check/check.hpp"
#include "rope/core/error.hpp"
#include "support/expectation.hpp"

namespace rope {
namespace {

constexpr int kFopeD = 8, kFopeKept = 2, kFopeHeads = 4;

/// 2 key-value heads of 2 × 2 coefficients, head h the identity times (h + 1).
RopeExpectation fope_expectation() {
  RopeExpectation e = test::expect_half(kFopeD);
  FopeConfig f;
  f.sep_head = true, f.kv_heads = 2, f.max_position = 64;
  e.rope.fope = f;
  FopeCoefficients c;
  c.kept = kFopeKept, c.heads = 2;
  for (int h = 0; h < 2; ++h)
    for (int D = 0; D < kFopeKept; ++D)
      for (int j = 0; j < kFopeKept; ++j) {
        c.cos.push_back(D == j ? h + 1.0 : 0.0);
        c.sin.push_back(D == j ? h + 1.0 : 0.0);
      }
  e.fope = std::make_shared<const FopeCoefficients>(c);
  return e;
}

/// q [positions, 4 heads, 8] and its FoPE: head q on key-value head q / 2, pair j (j, j + 4) turned by m·θ_j and
/// scaled by that head's factor for j < 2, the padded pairs 2, 3 given cos 1 and sin `pad_sin`.
std::pair<DumpVectors, DumpVectors> fope_dump(const std::vector<double>& positions, double pad_sin) {
  DumpVectors x;
  x.seq = static_cast<long>(positions.size()), x.heads = kFopeHeads, x.d = kFopeD, x.dtype = DType::F64;
  for (long i = 0; i < x.seq * kFopeHeads * kFopeD; ++i) x.values.push_back(std::sin(0.7 * i + 0.3));
  DumpVectors y = x;
  for (long s = 0; s < x.seq; ++s)
    for (long g = 0; g < kFopeHeads; ++g) {
      const double scale = g / 2 + 1.0;
      for (int j = 0; j < kFopeD / 2; ++j) {
        const double theta = std::pow(kDefaultBase, -2.0 * j / kFopeD), phi = positions[s] * theta;
        const double c = j < kFopeKept ? scale * std::cos(phi) : 1.0,
                     sn = j < kFopeKept ? scale * std::sin(phi) : pad_sin;
        const std::size_t a = static_cast<std::size_t>((s * kFopeHeads + g) * kFopeD + j), b = a + kFopeD / 2;
        y.values[a] = x.values[a] * c - x.values[b] * sn;
        y.values[b] = x.values[b] * c + x.values[a] * sn;
      }
    }
  return {x, y};
}

TEST(CheckFope, ScaledRotationsPerKeyValueHeadPass) {
  const std::vector<double> positions{0, 1, 5, 63};
  const auto [x, y] = fope_dump(positions, 0.0);
  const CheckReport r = check_dump(x, y, positions, fope_expectation());
  EXPECT_TRUE(r.comparison.passed()) << r.comparison.max_ratio;
  EXPECT_EQ(r.comparison.total, 4L * kFopeHeads * kFopeD);
}

TEST(CheckFope, SinPaddedWithOneIsNamedWithThePaddedPairs) {
  const std::vector<double> positions{0, 1, 5, 63};
  const auto [x, y] = fope_dump(positions, 1.0);
  const CheckReport r = check_dump(x, y, positions, fope_expectation());
  EXPECT_FALSE(r.comparison.passed());
  ASSERT_TRUE(r.diagnosis.matches);
  EXPECT_EQ(*r.diagnosis.matches, known_variant("fope-sin-padded-one"));
  ASSERT_EQ(r.diagnosis.found.size(), 1u);
  EXPECT_EQ(r.diagnosis.found.front(), (std::pair<std::string, double>{"padded", 2}));
  EXPECT_THAT(r.diagnosis.message.en, ::testing::HasSubstr("its 2 padded pairs (pairs 2 … 3)"));
}

TEST(CheckFope, TheHeadsMustShareTheKeyValueHeads) {
  const std::vector<double> positions{0, 1};
  auto [x, y] = fope_dump(positions, 0.0);
  DumpVectors x3 = x, y3 = y;  // 3 heads of 8 channels over 2 key-value heads, the same values regrouped
  x3.heads = y3.heads = 3;
  x3.seq = y3.seq = 2;
  x3.values.resize(2 * 3 * kFopeD), y3.values.resize(2 * 3 * kFopeD);
  EXPECT_THROW(check_dump(x3, y3, positions, fope_expectation()), InvalidArgument);
}

}  // namespace
}  // namespace rope
