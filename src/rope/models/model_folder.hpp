/// @file
/// A model's folder where a config file is asked for (`--config`, `rope inspect FILE`, rope.Spec's path): the one
/// place a config path is turned into the file every reader of a model's config opens (read_model_config,
/// read_attention_shape, engine_lint_file).
#pragma once

#include <string>

namespace rope {

/// The config file that `path` names: the path itself, or for a model folder its config.json, else its
/// transformer/config.json (a diffusers pipeline's folder, as `rope weights` takes a checkpoint's folder). A GGUF is
/// a file, never a folder: it is returned as it is. @throws InvalidArgument for a folder with neither, naming both.
std::string model_config_file(const std::string& path);

}  // namespace rope
