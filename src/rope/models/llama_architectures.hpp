/// @file
/// llama.cpp's architectures as rope knows them: the rope type llama_model_rope_type gives each
/// general.architecture name (how ggml_rope pairs the channels of a head), and what llama.cpp decides for it in
/// code with no key in the file. The GGUF reader (gguf_config.hpp) takes its rules from here.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rope {

/// llama.cpp's enum llama_rope_type: how ggml_rope pairs the channels of a head.
enum class GgufRopeType { None, Norm, Neox, Mrope, Imrope, Vision };
/// "NORM", "NEOX", "MROPE", "IMROPE", "VISION", "NONE".
std::string_view to_string(GgufRopeType type);

/// One architecture of the table (llama.cpp's general.architecture names).
struct GgufArchitecture {
  std::string_view name;      ///< "llama", "qwen2", "gpt-oss", ...
  GgufRopeType type;          ///< without dimension_sections
  GgufRopeType with_sections; ///< glm4, glm4moe: MROPE when the file has dimension_sections
  bool tested;                ///< a test file of tests/io/write_gguf.py covers it
};
/// The architectures rope maps, in llama.cpp's order of llama_model_rope_type.
const std::vector<GgufArchitecture>& gguf_architectures();

}  // namespace rope
