/// @file
/// `rope permute` as one call: the settings typed or read from a model (its RoPE resolved once, models/resolve.hpp,
/// its head counts from the file), then permute_demo (permutation.hpp). report/permute_report.hpp prints the result.
#pragma once

#include <optional>
#include <string>

#include "rope/analysis/weights/permutation.hpp"
#include "rope/models/rope_spec.hpp"

namespace rope {

struct PermuteRequest {
  PermuteSettings settings;  ///< the defaults and what was typed beyond the model's facts
  std::optional<int> head_dim;
  std::optional<long> heads, kv_heads;
  std::optional<double> base;
  std::string config;        ///< a GGUF file or a config.json: the heads and the RoPE from it
  std::string layer_type;    ///< with config: the RoPE of this layer type (or layer index)
  bool csv_written = false;  ///< the scores go to a CSV file: the text does not point to it
};

struct PermuteRun {
  PermuteDemo demo;
  std::optional<RopeSpec> spec;  ///< the model's RoPE when read from config
  bool gguf = false;             ///< the config is a GGUF file
  bool csv_written = false;      ///< the request's: the text does not point to a CSV file
  bool passed() const { return demo.passed(); }
};

/// Resolves the model when asked, then permute_demo. @throws InvalidArgument as resolve_model_rope,
/// read_attention_shape and permute_demo; IoError from the file.
PermuteRun run_permute(const PermuteRequest& request);

}  // namespace rope
