/// @file
/// The figure of rope explain: q, k, R(Mθ)q and R(Nθ)k as arrows from the origin, the arcs of the angles
/// Mθ and Nθ, and the angle between the rotated vectors, which decides the score (docs/math.md (M8)).
#pragma once

#include "rope/analysis/teaching/explain.hpp"
#include "rope/cli/figure_options.hpp"
#include "rope/plot/plot.hpp"

namespace rope::cli {

/// The 2-D picture of steps 3 and 5 of the walkthrough, with labels in the language of `f`.
plot::Figure figure_of(const explain::Walkthrough& w, const FigureOptions& f);

/// The complex plane of explain's figures (and of its animation's frames): axis labels, a square range
/// ±lim and the two axes drawn through 0.
void plane_axes(plot::Figure& fig, const FigureOptions& f, double lim);

/// An arrowhead: two barbs of length `size` at ±25° behind the tip of the vector from the origin to `tip`.
plot::Series arrowhead(const Eigen::Vector2d& tip, double size, int color);

}  // namespace rope::cli
