#include "rope/models/presets.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "rope/core/error.hpp"
#include "rope/core/suggest.hpp"
#include "rope/io/json_reader.hpp"
#include "rope/models/model_config.hpp"

namespace rope {

namespace detail {
// Defined in the model_presets.cpp that src/CMakeLists.txt generates from data/models/*.json,
// in file-name order.
std::size_t embedded_preset_count();
const char* embedded_preset_name(std::size_t i);
const char* embedded_preset_json(std::size_t i);
}  // namespace detail

std::string_view preset_text(std::string_view name) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < detail::embedded_preset_count(); ++i) {
    if (name == detail::embedded_preset_name(i)) return detail::embedded_preset_json(i);
    names.emplace_back(detail::embedded_preset_name(i));
  }
  std::sort(names.begin(), names.end());
  const std::string suggestion = closest_match(name, names);
  if (!suggestion.empty()) {
    throw InvalidArgument(error_msg("unknown model preset '{0}'; did you mean {1}? ({2})", name, suggestion,
                                    option_name("inspect.list")));
  }
  throw InvalidArgument(error_msg("unknown model preset '{0}' (known: {1})", name, detail::join(names)));
}

ModelConfig load_preset(std::string_view name) { return parse_model_config(preset_text(name), std::string(name)); }

std::vector<PresetInfo> list_presets() {
  std::vector<PresetInfo> out;
  for (std::size_t i = 0; i < detail::embedded_preset_count(); ++i) {
    const std::string name = detail::embedded_preset_name(i);
    const detail::json doc = detail::parse_json(detail::embedded_preset_json(i), name, kMaxConfigBytes);
    std::string description, description_zh;
    if (doc.is_object()) {
      const detail::Reader r(name);
      if (const detail::json* meta = r.object(doc, "", "_rope_preset")) {
        description = r.string(*meta, "_rope_preset", "description").value_or("");
        description_zh = r.string(*meta, "_rope_preset", "description_zh").value_or(description);
      }
    }
    out.push_back({name, description, description_zh});
  }
  std::sort(out.begin(), out.end(), [](const PresetInfo& a, const PresetInfo& b) { return a.name < b.name; });
  return out;
}

}  // namespace rope
