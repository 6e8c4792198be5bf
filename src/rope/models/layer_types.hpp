/// @file
/// Per-layer RoPE (docs/scaling.md, "Layer types"): which layers of a model use which RoPE, or none.
/// parse_model_config fills ModelConfig::layer_types for Gemma 3 (sliding and full layers), v5
/// rope_parameters keyed by layer type, and Llama 4 (RoPE and NoPE layers, with the query temperature
/// (S20) of its NoPE layers).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rope/models/model_config.hpp"

namespace rope {

/// The layer type `which` names: a type's name ("sliding_attention") or a layer index ("5"), the first type that holds
/// it; with `official`, a layer index skips the types HF's reading alone gives it (LayerTypeRope::hf_index_only).
/// @throws InvalidArgument listing the names (and the layer count) when there is no such type or layer,
///         or when the model has a single RoPE for every layer.
const LayerTypeRope& select_layer_type(const ModelConfig& model, std::string_view which, bool official = false);

/// Whether `which` is a layer index rather than a type's name.
bool is_layer_index(std::string_view which);

/// "0–4, 6–10, 12": a sorted list of layer indices with runs joined.
std::string describe_layers(const std::vector<int>& layers);

}  // namespace rope
