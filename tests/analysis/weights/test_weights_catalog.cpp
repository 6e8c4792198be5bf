// The catalog of q/k row permutations (analysis/weights/weights_catalog.hpp): each map against its definition in
// docs/weights.md, and the shapes where two maps are one permutation (issue 64, "Maps that coincide").
#include "rope/analysis/weights/weights_catalog.hpp"

#include <gtest/gtest.h>
#include <numeric>

namespace rope {
namespace {

std::vector<long> catalog_order(WeightMap m, long rows, long heads, long query_heads = 0, bool key = false) {
  return *weight_map_order(m, {rows, heads, query_heads ? query_heads : heads, key});
}

TEST(WeightsCatalog, HfToGgufIsTheConvertersMap) {
  // GGUF row h·d + 2j + s holds HF row h·d + s·d/2 + j: d = 8, two heads.
  EXPECT_EQ(catalog_order(WeightMap::HfToGguf, 16, 2),
            (std::vector<long>{0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15}));
}

TEST(WeightsCatalog, GgufToHfUndoesIt) {
  const auto fwd = catalog_order(WeightMap::HfToGguf, 48, 3);
  const auto inv = catalog_order(WeightMap::GgufToHf, 48, 3);
  for (std::size_t r = 0; r < fwd.size(); ++r) EXPECT_EQ(fwd[static_cast<std::size_t>(inv[r])], static_cast<long>(r));
}

TEST(WeightsCatalog, KBugCutsKIntoQueryHeadGroups) {
  // k of 2 KV heads × d = 8 permuted with 4 query heads: groups of 4 rows, each (0 2 1 3).
  EXPECT_EQ(catalog_order(WeightMap::KWithQueryHeads, 16, 2, 4, true),
            (std::vector<long>{0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15}));
  EXPECT_FALSE(weight_map_order(WeightMap::KWithQueryHeads, {16, 2, 4, false}));  // not on q
  EXPECT_FALSE(weight_map_order(WeightMap::KWithQueryHeads, {16, 2, 16, true}));  // 16 rows, 16 heads: no halves
}

struct Coincide {
  const char* name;
  WeightShape shape;
  std::vector<std::vector<WeightMap>> groups;  // the distinct permutations' names, in catalog order
};
class WeightsCoincide : public ::testing::TestWithParam<Coincide> {};

TEST_P(WeightsCoincide, DistinctMapsGroupThem) {
  const auto got = distinct_maps(GetParam().shape);
  std::vector<std::vector<WeightMap>> names;
  for (const DistinctMap& d : got) names.push_back(d.maps);
  EXPECT_EQ(names, GetParam().groups);
}

using CatalogMap = WeightMap;
INSTANTIATE_TEST_SUITE_P(
    Shapes, WeightsCoincide,
    ::testing::Values(
        // d = 4: the converter's map is an involution, so twice is identity.
        Coincide{"d4",
                 {8, 2, 2, false},
                 {{CatalogMap::Identity, CatalogMap::HfToGgufTwice}, {CatalogMap::HfToGguf, CatalogMap::GgufToHf}}},
        // d = 8: applying it twice is its inverse (order 3).
        Coincide{"d8",
                 {16, 2, 2, false},
                 {{CatalogMap::Identity}, {CatalogMap::HfToGguf}, {CatalogMap::GgufToHf, CatalogMap::HfToGgufTwice}}},
        Coincide{"d16",
                 {32, 2, 2, false},
                 {{CatalogMap::Identity}, {CatalogMap::HfToGguf}, {CatalogMap::GgufToHf}, {CatalogMap::HfToGgufTwice}}},
        // k with as many heads as q: the bug is the converter's own map.
        Coincide{"mha_k",
                 {32, 2, 2, true},
                 {{CatalogMap::Identity},
                  {CatalogMap::HfToGguf, CatalogMap::KWithQueryHeads},
                  {CatalogMap::GgufToHf},
                  {CatalogMap::HfToGgufTwice}}},
        Coincide{"gqa_k",
                 {32, 2, 8, true},
                 {{CatalogMap::Identity},
                  {CatalogMap::HfToGguf},
                  {CatalogMap::GgufToHf},
                  {CatalogMap::HfToGgufTwice},
                  {CatalogMap::KWithQueryHeads}}}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(WeightsCatalog, NamesRoundTrip) {
  for (const WeightMapRow& row : weight_map_catalog()) {
    EXPECT_EQ(parse_weight_map(row.name), row.map);
    EXPECT_EQ(to_string(row.map), row.name);
    EXPECT_FALSE(row.message.en.empty());
  }
  EXPECT_EQ(to_string(WeightMap::Unknown), "unknown");
  EXPECT_FALSE(parse_weight_map("hf-to-ggml"));
}

}  // namespace
}  // namespace rope
