#include "rope/models/layer_types.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "rope/core/error.hpp"
#include "rope/core/suggest.hpp"
#include "rope/io/json_reader.hpp"

// The per-layer RoPE of a resolved model (ModelConfig::layer_types): which entry a --layer-type names, the
// layers' lists as text, the query scalings of NoPE layers. hf/hf_config_layers.cpp fills layer_types.

namespace rope {

double NopeTemperature::at(double position) const {
  return std::log1p(std::floor((position + 1.0) / floor_scale)) * attn_scale + 1.0;
}

double QueryScaling::at(double position) const { return 1.0 + beta * std::log1p(std::floor(position / original)); }

bool is_layer_index(std::string_view which) {
  return !which.empty() && which.find_first_not_of("0123456789") == std::string_view::npos && which.size() < 9;
}

const LayerTypeRope& select_layer_type(const ModelConfig& m, std::string_view which, bool official) {
  if (m.layer_types.empty()) {
    throw InvalidArgument(error_msg("layer type '{0}': {1} uses one RoPE in every layer", which, m.name));
  }
  std::vector<std::string> names;
  int layers = 0;
  for (const LayerTypeRope& lt : m.layer_types) {
    if (lt.name == which) return lt;
    names.push_back(lt.name);
    for (int i : lt.layers) layers = std::max(layers, i + 1);
  }
  if (is_layer_index(which)) {
    const int index = std::stoi(std::string(which));
    for (const LayerTypeRope& lt : m.layer_types) {
      if (official && lt.hf_index_only) continue;
      for (int i : lt.layers) {
        if (i == index) return lt;
      }
    }
  }
  const std::string suggestion = closest_match(which, names);
  if (!suggestion.empty()) {
    throw InvalidArgument(
        error_msg("layer type '{0}' is not one of {1}'s; did you mean {2}?", which, m.name, suggestion));
  }
  if (layers > 0) {  // the words around the layers are the catalog's, so that they are translated too
    throw InvalidArgument(error_msg("layer type '{0}' is not one of {1}'s ({2}, or a layer 0 … {3})", which, m.name,
                                    detail::join_names(names), layers - 1));
  }
  throw InvalidArgument(
      error_msg("layer type '{0}' is not one of {1}'s ({2})", which, m.name, detail::join_names(names)));
}

std::string describe_layers(const std::vector<int>& layers) {
  std::string out;
  std::size_t i = 0;
  while (i < layers.size()) {
    std::size_t j = i;
    while (j + 1 < layers.size() && layers[j + 1] == layers[j] + 1) ++j;
    out +=
        (out.empty() ? "" : ", ") + (j == i ? std::to_string(layers[i]) : fmt::format("{}–{}", layers[i], layers[j]));
    i = j + 1;
  }
  return out;
}

}  // namespace rope
