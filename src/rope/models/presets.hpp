/// @file
/// The model presets of data/models/: subsets of real config.json files, compiled into the program
/// (src/CMakeLists.txt generates model_presets.cpp from them), so `--model NAME` works wherever rope
/// runs. data/models/README.md gives the source of every value.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rope {

struct ModelConfig;  // model_config.hpp

/// A preset from data/models/, by name (e.g. "llama-3.1-8b"), read as parse_model_config reads a
/// config.json. @throws InvalidArgument listing the names when there is none by that name.
ModelConfig load_preset(std::string_view name);

/// A preset's config.json text, as compiled in (for readers other than parse_model_config, e.g. the engines'
/// lint). @throws InvalidArgument as load_preset does when there is none by that name.
std::string_view preset_text(std::string_view name);

struct PresetInfo {
  std::string name;
  std::string description;     ///< one line: model and what is special about its RoPE
  std::string description_zh;  ///< the same in Chinese
};
/// Every preset, in name order.
std::vector<PresetInfo> list_presets();

}  // namespace rope
