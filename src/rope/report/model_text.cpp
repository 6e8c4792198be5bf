// A model's RoPE in a report's words (model_text.hpp).
#include "rope/report/digits.hpp"
#include "rope/report/model_text.hpp"
#include "rope/report/text.hpp"

#include <fmt/format.h>
#include <ostream>

#include "rope/io/csv.hpp"
#include "rope/models/layer_types.hpp"
#include "rope/report/printing.hpp"

namespace rope {

std::string layout_name(Layout layout, const Text& t) {
  const std::string name(to_string(layout));
  if (t.lang() != Lang::Zh) return name;  // the name says how the pairs are formed
  const std::string pairing = layout == Layout::Interleaved ? t.tr("interleaved pairing") : t.tr("half-split pairing");
  return pairing + "（" + name + "）";  // the glossary's form (po/glossary.md): 相邻配对（interleaved）
}

std::string layout_text(const ModelRope& rope, const Text& t) {
  if (rope.plain) return t.tr("{0} layout", layout_name(rope.spec.layout, t));
  return layout_description(rope.spec).in(t.lang());
}

std::vector<std::string> spec_summary(const ModelRope& rr, const Text& t) {
  const RopeSpec& s = rr.spec;
  std::vector<std::string> lines;
  const std::string channels =
      t.tr("channels {0} … {1} rotate (d = {2})", s.rotary_offset, s.rotary_offset + s.rotary_dim - 1, s.rotary_dim);
  lines.push_back(t.tr("RoPE of {0}{1}: head_dim {2}, {3}{4}; {5}", model_name(rr.spec, t.lang()), layer_text(s, t),
                       s.head_dim, channels,
                       s.partial() ? t.tr(", the other {0} pass through", s.head_dim - s.rotary_dim) : "",
                       layout_description(s).in(t.lang())));
  if (s.axes && s.axes->vision()) {
    lines.push_back(
        t.tr("2-D vision RoPE ({0}): a position m is the patch (m, m), so a distance m moves the row and the "
             "column by m each (docs/multi-axis.md §6)",
             s.axes->vision_kind));
  }
  if (s.config.type != ScalingType::Default || s.attention_factor() != 1.0) {
    const double a = s.attention_factor();
    lines.push_back(t.tr("{0} scaling f = {1}; attention factor a = {2} in cos and sin (as HF){3}",
                         to_string(s.config.type), format_number(s.params.factor), readable(a),
                         a != 1.0 ? t.tr(": scores × a² = {0} (S15)", readable(a * a)) : ""));
  }
  if (const std::optional<QueryScaling>& q = rr.model.query_scaling) {
    lines.push_back(
        t.tr("every layer multiplies the query by s(p) = 1 + {0}·ln(1 + ⌊p / {1}⌋) after RoPE (S21): scores × s(p)",
             format_number(q->beta), format_number(q->original)));
  }
  for (const LayerRope& l : rr.layers) {
    if (l.spec) continue;
    const std::optional<NopeTemperature>& temp = rr.model.nope_temperature;
    lines.push_back(
        t.tr("layers {0} ({1}) are NoPE layers: no rotation, their scores do not depend on position{2}",
             describe_layers(l.layers), l.type,
             !temp ? std::string()
                   : t.tr("; the query is multiplied by the temperature (S20), 1 below position {0} and {1} from it",
                          format_number(temp->floor_scale - 1), readable(temp->at(temp->floor_scale - 1)))));
  }
  return lines;
}

void print_summary(std::ostream& out, const std::vector<std::string>& lines) {
  for (const std::string& line : lines) out << wrap_lines("  " + line) << '\n';
}

}  // namespace rope
