/// @file
/// The catalog of q/k row permutations that separate two checkpoints of one model (docs/weights.md), as one
/// table in the row shape of the check engine's variants: a name, what it does, how it is detected, the message
/// when it is found where another was expected, the parameter it is built from, and its source. Each row builds
/// its row map for a tensor of `rows` rows cut into head blocks; candidate row r holds reference row order[r].
///
/// The maps, with d the rows of a head, j < d/2, s ∈ {0, 1} (analysis/weights/permutation.hpp (G1)):
///   identity                          row r holds row r
///   hf-to-gguf                        llama.cpp conversion/llama.py LlamaModel.permute(w, n_head, n_head_kv) at
///                                     de3ff815ea7d: reshape(heads, 2, d/2, …).swapaxes(1, 2): row h·d + 2j + s
///                                     holds row h·d + s·d/2 + j; q with n_head, k with n_head_kv
///   gguf-to-hf                        its inverse (transformers integrations/ggml.py _reverse_permute_weights;
///                                     Meta → HF's convert_llama_weights_to_hf.py permute is the same map)
///   hf-to-gguf-twice                  hf-to-gguf applied to its own output
///   hf-to-gguf-k-with-query-heads     k permuted with n_head instead of n_head_kv (llama.cpp #2376, #3018,
///                                     fixed by PR #3364): groups of n_head_kv·d/n_head rows
/// For some shapes two rows build the same permutation (d = 4: hf-to-gguf = gguf-to-hf, twice = identity;
/// d = 8: twice = gguf-to-hf; n_head = n_head_kv: the k bug = hf-to-gguf); `distinct_maps` groups them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rope/core/message.hpp"

namespace rope {

enum class WeightMap { Identity, HfToGguf, GgufToHf, HfToGgufTwice, KWithQueryHeads, Unknown };

/// What a row map is built for: a tensor of `rows` rows (a weight's rows or a bias's entries) in `heads` head
/// blocks, of a model with `query_heads` query heads; `key`: a k tensor (the k bug applies to k only).
struct WeightShape {
  long rows = 0;
  long heads = 1;
  long query_heads = 1;
  bool key = false;
};

struct WeightMapRow {
  WeightMap map = WeightMap::Identity;
  std::string_view name;       ///< "hf-to-gguf"
  Message does;                ///< what it does to the rows
  Message detected;            ///< how rope tells it
  Message message;             ///< what it means when found where another map was expected
  std::string_view parameter;  ///< the head count it is built from ("n_head_kv"), or ""
  std::string_view source;     ///< file and commit of the code it ports
};

/// The catalog, in order of simplicity (identity first): the order that names a permutation two rows share.
const std::vector<WeightMapRow>& weight_map_catalog();
/// The row of `map` (Unknown has none: nullptr).
const WeightMapRow* find_weight_map(WeightMap map);
/// "identity", "hf-to-gguf", …, "unknown".
std::string_view to_string(WeightMap map);
/// The map named `name`, or nullopt.
std::optional<WeightMap> parse_weight_map(std::string_view name);

/// The row map of `map` for `shape` (candidate row r holds reference row order[r]), or nullopt where the map does
/// not apply (the converter's reshape fails; the k bug on a q tensor).
std::optional<std::vector<long>> weight_map_order(WeightMap map, const WeightShape& shape);

/// One permutation and the catalog maps that build it, in catalog order.
struct DistinctMap {
  std::vector<long> order;
  std::vector<WeightMap> maps;
};
/// The catalog's permutations for `shape`, maps that coincide grouped.
std::vector<DistinctMap> distinct_maps(const WeightShape& shape);

}  // namespace rope
