// Matching rows head block by head block (analysis/weights/weights_match.hpp) on synthetic tensors: a permutation
// outside the catalog is `unknown` with its map, ties go to the expected name, an all-zero tensor matches every map.
#include "rope/analysis/weights/weights_match.hpp"

#include <cmath>
#include <gtest/gtest.h>
#include <random>

namespace rope {
namespace {

std::vector<float> random_rows(long rows, long cols, unsigned seed) {
  std::mt19937 g(seed);
  std::normal_distribution<float> n;
  std::vector<float> v(static_cast<std::size_t>(rows * cols));
  for (float& x : v) x = n(g);
  return v;
}

std::vector<float> reordered(const std::vector<float>& v, long cols, const std::vector<long>& order) {
  std::vector<float> out(v.size());
  for (std::size_t r = 0; r < order.size(); ++r) {
    for (long j = 0; j < cols; ++j)
      out[r * static_cast<std::size_t>(cols) + static_cast<std::size_t>(j)] =
          v[static_cast<std::size_t>(order[r] * cols + j)];
  }
  return out;
}

TEST(WeightsMatch, OutsideTheCatalogIsUnknownWithItsMap) {
  const long rows = 32, cols = 64;
  const auto r = random_rows(rows, cols, 1);
  std::vector<long> order(rows);
  for (long i = 0; i < rows; ++i) order[static_cast<std::size_t>(i)] = (i / 16) * 16 + (15 - i % 16);  // reversed
  const auto c = reordered(r, cols, order);
  const WeightMatch m =
      match_weights({r.data(), rows, cols}, {c.data(), rows, cols}, {rows, 2, 2, false}, WeightMap::Identity);
  EXPECT_EQ(m.map, WeightMap::Unknown);
  EXPECT_EQ(m.order, order);
  EXPECT_TRUE(m.exact);
  EXPECT_EQ(m.residual, 0.0);
  ASSERT_TRUE(m.runner_up);
  EXPECT_GT(m.runner_up_residual, 1.0);
}

TEST(WeightsMatch, NoisyCopyMatchedByCorrelation) {
  const long rows = 32, cols = 256;
  const auto r = random_rows(rows, cols, 2);
  const auto order = *weight_map_order(WeightMap::HfToGguf, {rows, 2, 2, false});
  auto c = reordered(r, cols, order);
  const auto noise = random_rows(rows, cols, 3);
  for (std::size_t i = 0; i < c.size(); ++i) c[i] += 0.1f * noise[i];
  const WeightMatch m =
      match_weights({r.data(), rows, cols}, {c.data(), rows, cols}, {rows, 2, 2, false}, WeightMap::HfToGguf);
  EXPECT_EQ(m.map, WeightMap::HfToGguf);
  EXPECT_FALSE(m.exact);
  EXPECT_NEAR(m.residual, 0.1, 0.02);
}

TEST(WeightsMatch, ZerosTieToTheExpected) {
  const std::vector<float> z(32 * 4, 0.0f);
  const WeightMatch m = match_weights({z.data(), 32, 4}, {z.data(), 32, 4}, {32, 2, 2, false}, WeightMap::GgufToHf);
  EXPECT_EQ(m.map, WeightMap::GgufToHf);
  EXPECT_EQ(m.residual, 0.0);
}

TEST(WeightsMatch, ZerosExplainNothing) {
  const std::vector<float> z(32 * 4, 0.0f);
  EXPECT_FALSE(match_weights({z.data(), 32, 4}, {z.data(), 32, 4}, {32, 2, 2, false}, WeightMap::GgufToHf).explained);
}

// NaN residuals rank last, never break the ordering, and explain nothing: a NaN in the candidate's first head makes
// every map's residual NaN.
TEST(WeightsMatch, NanResidualsRankLastAndExplainNothing) {
  const long rows = 32, cols = 64;
  const auto r = random_rows(rows, cols, 4);
  auto c = r;
  c[5] = std::nanf("");
  const WeightMatch m =
      match_weights({r.data(), rows, cols}, {c.data(), rows, cols}, {rows, 2, 2, false}, WeightMap::Identity);
  EXPECT_TRUE(std::isnan(m.residual));
  EXPECT_FALSE(m.explained);
  const auto exact =
      match_weights({r.data(), rows, cols}, {r.data(), rows, cols}, {rows, 2, 2, false}, WeightMap::Identity);
  EXPECT_EQ(exact.map, WeightMap::Identity);
  EXPECT_TRUE(exact.explained);
}

TEST(WeightsMatch, UnrelatedRowsExplainNothing) {
  const long rows = 32, cols = 64;
  const auto r = random_rows(rows, cols, 5);
  const auto c = random_rows(rows, cols, 6);
  const WeightMatch m =
      match_weights({r.data(), rows, cols}, {c.data(), rows, cols}, {rows, 2, 2, false}, WeightMap::Identity);
  EXPECT_GT(m.residual, kWeightResidualBound);
  EXPECT_FALSE(m.explained);
}

TEST(WeightsMatch, ShapesMustAgree) {
  const std::vector<float> a(64, 1.0f);
  EXPECT_ANY_THROW(match_weights({a.data(), 16, 4}, {a.data(), 8, 8}, {16, 2, 2, false}, WeightMap::Identity));
}

}  // namespace
}  // namespace rope
