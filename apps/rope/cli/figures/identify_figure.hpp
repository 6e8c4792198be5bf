/// @file
/// The figure of rope identify: the measured θ_j of every rotated pair (points) against the fitted family
/// (line) and plain RoPE of the fitted base (dashed), on a log axis (rope/analysis/identify/identify.hpp).
#pragma once

#include "rope/analysis/identify/identify.hpp"
#include "rope/cli/figure_options.hpp"
#include "rope/plot/plot.hpp"

namespace rope::cli {

plot::Figure identify_figure(const FigureOptions& f, const Identification& id);

}  // namespace rope::cli
