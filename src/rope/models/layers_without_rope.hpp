/// @file
/// Layers without RoPE, for `rope check --layer-type`: the layer type a command line names when its layers rotate
/// nothing (defined beside resolve_model_rope, models/resolve.cpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rope/models/resolve.hpp"

namespace rope {

/// The layers a layer type names when they rotate nothing: NoPE layers (SmolLM3), the linear-attention
/// layers of Qwen3-Next and Qwen3.5, the full-attention layers of Cohere2 and EXAONE 4. Their model's code uses
/// q and k as projected, so a dump of such a layer is unchanged (rope check's expectation there); Llama 4's NoPE
/// layers leave keys unchanged and scale the query by the temperature (S20).
struct LayersWithoutRope {
  std::string model;        ///< the model's name
  std::string layer_type;   ///< the type's name ("full_attention", "linear_attention", "nope")
  std::vector<int> layers;  ///< its layer indices
  /// Llama 4's NoPE layers: the query is scaled by the temperature (S20) (keys are not); nullopt for the others.
  std::optional<NopeTemperature> temperature;
};

/// The layers `overrides.layer_type` names when they have no RoPE; nullopt when no layer type is given or it
/// names layers with RoPE (then resolve_model_rope gives their spec).
/// @throws InvalidArgument as select_layer_type for a name or index the model does not have, IoError for a file
///         that cannot be read.
std::optional<LayersWithoutRope> layers_without_rope(const ModelSource& source, const RopeOverrides& overrides);

}  // namespace rope
