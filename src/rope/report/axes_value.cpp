#include "rope/report/axes_value.hpp"
#include "rope/report/text.hpp"

#include <string>

namespace rope {

void axes_value(Value& j, const AxisMap& map) {
  if (map.vision()) {
    j["vision"] = map.vision_kind;
    j["position_offset"] = map.position_offset;
  } else {
    j["mrope_section"] = map.source.sections;
    j["mrope_order"] = std::string(to_string(map.source.order));
  }
  j["position_axes"] = map.components();
  j["pair_axis"] = map.pair_axis;
  // HF's XD-RoPE (docs/multi-axis.md (A11)): the stream of each pair's second channel, where it is not the first's.
  if (map.split()) j["second_axis"] = map.second_axis;
}

}  // namespace rope
