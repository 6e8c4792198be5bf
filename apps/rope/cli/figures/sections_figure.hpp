/// @file
/// The ownership figure of rope sections for a vision tower: the five 2-D maps of docs/multi-axis.md §6
/// ((V2)–(V5)) at the same d and base, one row each, every pair a point at its wavelength λ_j = 2π/θ_j,
/// coloured by the axis it reads (h the patch's row, w its column).
#pragma once

#include <vector>

#include "rope/cli/figure_options.hpp"
#include "rope/models/vision_rope.hpp"
#include "rope/plot/plot.hpp"

namespace rope::cli {

/// `rows` in order, top to bottom; `chosen` is marked in its row's label.
plot::Figure vision_sections_figure(const FigureOptions& f, const std::vector<VisionPairs>& rows, VisionRope chosen);

}  // namespace rope::cli
