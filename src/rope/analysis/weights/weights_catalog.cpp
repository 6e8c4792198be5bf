// The catalog of q/k row permutations (weights_catalog.hpp), built on analysis/weights/permutation.hpp's (G1).
#include "rope/analysis/weights/weights_catalog.hpp"

#include <numeric>

#include "rope/analysis/weights/permutation.hpp"

namespace rope {

const std::vector<WeightMapRow>& weight_map_catalog() {
  static const std::vector<WeightMapRow> rows = {
      {WeightMap::Identity, "identity", msg("every row stays where it is"),
       msg("the candidate's rows equal the reference's, row for row"),
       msg("the permutation is missing: the candidate keeps the reference's row order, which its engine pairs "
           "another way, so each rotation mixes channels of different pairs"),
       "", ""},
      {WeightMap::HfToGguf, "hf-to-gguf",
       msg("in each head of d rows, row 2j + s holds row s·d/2 + j: Hugging Face's half pairs become adjacent"),
       msg("candidate row h·d + 2j + s matches reference row h·d + s·d/2 + j"),
       msg("llama.cpp's converter permutation (LlamaModel.permute): right for a NORM engine fed Hugging Face's "
           "half-paired rows, wrong anywhere else"),
       "n_head (q), n_head_kv (k)", "llama.cpp conversion/llama.py LlamaModel.permute @ de3ff815ea7d"},
      {WeightMap::GgufToHf, "gguf-to-hf",
       msg("the inverse: in each head, row s·d/2 + j holds row 2j + s, adjacent pairs back to halves"),
       msg("candidate row h·d + s·d/2 + j matches reference row h·d + 2j + s"),
       msg("the reverse permutation (GGUF or Meta to Hugging Face): right for a half-pairing engine fed llama.cpp's "
           "rows"),
       "n_head (q), n_head_kv (k)", "transformers integrations/ggml.py _reverse_permute_weights"},
      {WeightMap::HfToGgufTwice, "hf-to-gguf-twice", msg("the converter's permutation applied twice"),
       msg("candidate row r matches reference row order[order[r]], order the converter's map"),
       msg("permuted twice: a converter applied the permutation to rows it had already permuted, or used the "
           "forward reshape as its own inverse (an involution only at d = 4); the engine's pairs hold channels of "
           "different pairs"),
       "n_head (q), n_head_kv (k)", "onnxruntime/mobius PR #396"},
      {WeightMap::KWithQueryHeads, "hf-to-gguf-k-with-query-heads",
       msg("k permuted with the query head count n_head instead of n_head_kv: groups of n_head_kv·d/n_head rows"),
       msg("candidate k row matches the converter's map built with n_head on k's rows"),
       msg("k permuted with the query head count (llama.cpp #2376, #3018, fixed by PR #3364): rows of different "
           "pairs meet, the model attends elsewhere"),
       "n_head (on k)", "llama.cpp #2376, #3018; PR #3364"},
  };
  return rows;
}

const WeightMapRow* find_weight_map(WeightMap map) {
  for (const WeightMapRow& row : weight_map_catalog()) {
    if (row.map == map) return &row;
  }
  return nullptr;
}

std::string_view to_string(WeightMap map) {
  const WeightMapRow* row = find_weight_map(map);
  return row ? row->name : "unknown";
}

std::optional<WeightMap> parse_weight_map(std::string_view name) {
  for (const WeightMapRow& row : weight_map_catalog()) {
    if (row.name == name) return row.map;
  }
  if (name == "unknown") return WeightMap::Unknown;
  return std::nullopt;
}

std::optional<std::vector<long>> weight_map_order(WeightMap map, const WeightShape& s) {
  if (s.rows < 1 || s.rows > kMaxPermuteRows) return std::nullopt;
  std::vector<long> order(static_cast<std::size_t>(s.rows));
  switch (map) {
    case WeightMap::Identity:
      std::iota(order.begin(), order.end(), 0L);
      return order;
    case WeightMap::HfToGguf:
      if (!gguf_permutable(s.rows, s.heads)) return std::nullopt;
      return gguf_row_order(s.rows, s.heads);
    case WeightMap::GgufToHf: {
      if (!gguf_permutable(s.rows, s.heads)) return std::nullopt;
      const std::vector<long> forward = gguf_row_order(s.rows, s.heads);
      for (std::size_t r = 0; r < forward.size(); ++r)
        order[static_cast<std::size_t>(forward[r])] = static_cast<long>(r);
      return order;
    }
    case WeightMap::HfToGgufTwice: {
      if (!gguf_permutable(s.rows, s.heads)) return std::nullopt;
      const std::vector<long> forward = gguf_row_order(s.rows, s.heads);
      // Applied twice: C = P(P R), so row r holds (P R)[forward[r]] = R[forward[forward[r]]].
      for (std::size_t r = 0; r < forward.size(); ++r) order[r] = forward[static_cast<std::size_t>(forward[r])];
      return order;
    }
    case WeightMap::KWithQueryHeads:
      if (!s.key || !gguf_permutable(s.rows, s.query_heads)) return std::nullopt;
      return gguf_row_order(s.rows, s.query_heads);
    case WeightMap::Unknown:
      return std::nullopt;
  }
  return std::nullopt;
}

std::vector<DistinctMap> distinct_maps(const WeightShape& shape) {
  std::vector<DistinctMap> out;
  for (const WeightMapRow& row : weight_map_catalog()) {
    auto order = weight_map_order(row.map, shape);
    if (!order) continue;
    bool merged = false;
    for (DistinctMap& d : out) {
      if (d.order == *order) {
        d.maps.push_back(row.map);
        merged = true;
      }
    }
    if (!merged) out.push_back({std::move(*order), {row.map}});
  }
  return out;
}

}  // namespace rope
