// A model's RoPE in a report's words (model_text.hpp).
#include "rope/report/model_text.hpp"
#include "rope/report/text.hpp"

#include "rope/models/layer_types.hpp"

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

}  // namespace rope
