/// @file
/// The RoPE the command line computes with from --dim and --base alone (and --layout when given): the spec the
/// report tests print.
#pragma once

#include <optional>

#include "rope/models/resolve.hpp"

namespace rope {

inline ModelRope plain_rope(int d, double base, std::optional<Layout> layout = std::nullopt) {
  RopeOverrides o;
  o.head_dim = d;
  o.base = base;
  o.layout = layout;
  return resolve_model_rope({}, o);
}

}  // namespace rope
