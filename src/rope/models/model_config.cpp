#include "rope/models/model_config.hpp"

#include <cstring>
#include <fmt/format.h>

#include "rope/core/error.hpp"
#include "rope/io/text_file.hpp"
#include "rope/models/hf_config.hpp"
#include "rope/models/json_reader.hpp"
#include "rope/models/layer_types.hpp"

namespace rope {

ModelConfig parse_model_config(std::string_view json_text, const std::string& name) {
  const detail::json doc = detail::parse_json(json_text, name, kMaxConfigBytes);
  ModelConfig m = detail::ConfigParser(doc, name).parse();
  detail::read_layer_types(doc, name, m);
  return m;
}

ModelConfig read_model_config(const std::string& path) {
  if (path.empty()) throw IoError("cannot read '': the config path is empty");
  // The read stops one buffer past the limit, so /dev/zero or a huge file cannot exhaust memory;
  // parse_model_config refuses a text over the limit.
  const BoundedRead file = read_file_bounded(path, kMaxConfigBytes);
  if (file.error != 0) throw IoError(fmt::format("cannot read '{}': {}", path, file.reason()));
  return parse_model_config(file.text, path);
}

}  // namespace rope
