#include <cmath>
#include <fmt/format.h>
#include <vector>

#include "rope/core/error.hpp"
#include "rope/models/axes.hpp"
#include "rope/models/family_table.hpp"
#include "rope/models/hf_config.hpp"

// The multimodal sections of a vision-language model's config (docs/multi-axis.md §1): Qwen2-VL and
// Qwen2.5-VL write "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]} (HF's
// configuration_qwen2_vl.py rewrites the type to default and keeps the sections); Qwen3-VL writes
// "rope_scaling": {"rope_type": "default", "mrope_section": [24, 20, 20], "mrope_interleaved": true} in
// text_config. The modeling code uses the sections whatever rope_type says (modeling_qwen2_vl.py,
// modeling_qwen3_vl.py), so rope does too.

namespace rope::detail {

void ConfigParser::read_mrope() {
  // ERNIE-4.5-VL (family table: mrope_order "ernie_3d"): its 3-D map (docs/multi-axis.md) is not Qwen's and rope
  // does not model it yet; text tokens (the same position on every axis) turn as plain RoPE whatever the map.
  if (const ModelFamily* family = find_model_family(m_.model_type); family && family->mrope_order == "ernie_3d") {
    note(msg("{0}: its 3-D RoPE gives height and width the fastest pairs alternately and time the slowest ({1}); rope "
             "does not model that map yet, so it reads the model for text tokens only, whose position is the same on "
             "every axis (plain RoPE); positions per axis are refused",
             m_.model_type, family->mrope_source));
    return;
  }
  if (!scaling_.dict) return;
  const json& s = *scaling_.dict;
  const std::string& p = scaling_.path;
  const json* v = Reader::find(s, "mrope_section");
  const auto interleaved = r_.boolean(s, p, "mrope_interleaved");
  if (!v) {
    if (interleaved) {
      note(msg("{0}.mrope_interleaved without mrope_section: ignored (no sections to interleave)", p));
    }
    return;
  }
  const std::string path = child(p, "mrope_section");
  if (!v->is_array()) r_.fail(path, fmt::format("expected a list of whole numbers, got {}", v->type_name()));
  MropeSections sections;
  for (std::size_t i = 0; i < v->size(); ++i) {
    const json& x = (*v)[i];
    const std::string item = fmt::format("{}[{}]", path, i);
    const double value = r_.number_value(x, item);
    if (!(value >= 0 && value <= 65536) || value != std::floor(value)) {
      r_.fail(item, fmt::format("expected a whole number in 0 … 65536, got {}", num(value)));
    }
    sections.sections.push_back(static_cast<int>(value));
  }
  sections.order = interleaved.value_or(false) ? SectionOrder::Interleaved : SectionOrder::Chunked;
  try {
    (void)make_axis_map(sections, d_ / 2);
  } catch (const InvalidArgument& e) {
    r_.fail(path, e.what());
  }
  m_.mrope = sections;
  const std::string list = fmt::format("[{}]", fmt::join(sections.sections, ", "));
  origin("mrope_section", list, path);
  if (interleaved) origin("mrope_interleaved", *interleaved ? "true" : "false", child(p, "mrope_interleaved"));
  const bool inter = sections.order == SectionOrder::Interleaved;
  // Two sentences rather than one with "interleaved" / "in chunks" as a value: the Chinese puts an adverb there.
  note(inter ? msg("M-RoPE: every pair turns with the time, height or width position of the token, by mrope_section {0} "
                   "interleaved (docs/multi-axis.md (A1), (A3)); a text token has the same position on every axis, so for "
                   "text the frequencies are plain RoPE's",
                   list)
             : msg("M-RoPE: every pair turns with the time, height or width position of the token, by mrope_section {0} "
                   "in chunks (docs/multi-axis.md (A1), (A2)); a text token has the same position on every axis, so for "
                   "text the frequencies are plain RoPE's",
                   list));
}

}  // namespace rope::detail
