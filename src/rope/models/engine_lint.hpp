/// @file
/// `rope inspect --lint`: where engines that read a config.json otherwise than Hugging Face transformers 5 will
/// compute another RoPE (docs/scaling.md, "Two generations of keys"). transformers 5 reads `rope_scaling or
/// rope_parameters` (a truthy rope_scaling wins), takes rope_theta from that block before the top-level key, and, for
/// an unscaled model, reports config.rope_scaling = {"rope_type": "default", "rope_theta": …} (never None), while
/// ROPE_INIT_FUNCTIONS has no "default" (unslothai/unsloth PR #6223, read on transformers 5.11.0; ROCm/aiter PR #4742).
/// Engines written for 4.x take a truthy rope_scaling as "scaled", or read only rope_scaling and the top-level
/// rope_theta and partial_rotary_factor: each finding names the keys, what HF v5 computes and what such an engine does.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rope/core/message.hpp"

namespace rope {

struct EngineLint {
  std::string name;               ///< the file or preset
  std::vector<Message> findings;  ///< one sentence each; empty: every reader computes what HF v5 does
};

/// The findings for a config.json's text (`name` starts its errors, as parse_model_config's).
/// @throws InvalidArgument for text that is not a JSON object (the reader's rules, docs/errors.md).
EngineLint engine_lint(std::string_view json_text, const std::string& name);

/// The same for a file (IoError when it cannot be read; a GGUF file is refused: its keys are llama.cpp's) or a preset.
EngineLint engine_lint_file(const std::string& path);
EngineLint engine_lint_preset(std::string_view name);

}  // namespace rope
