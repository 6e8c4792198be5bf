/// @file
/// A multi-axis RoPE's map in a report's value: mrope_section and order, or a vision tower's kind and offset,
/// and the axis of every pair (docs/multi-axis.md).
#pragma once

#include "rope/models/axes.hpp"
#include "rope/report/value.hpp"

namespace rope {

/// Sets the map's fields on `fields`.
void axes_value(Value& fields, const AxisMap& map);

}  // namespace rope
