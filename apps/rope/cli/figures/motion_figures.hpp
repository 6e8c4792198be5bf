/// @file
/// The frames of the animations (`--gif`): the numbers of each frame come from rope/analysis/teaching/motion.hpp,
/// these only lay them out, on axes that stay the same from frame to frame so that only what moves
/// moves.
#pragma once

#include <Eigen/Core>
#include <string>
#include <optional>
#include <vector>

#include "rope/analysis/teaching/attention.hpp"
#include "rope/analysis/teaching/explain.hpp"
#include "rope/cli/figure_options.hpp"
#include "rope/plot/plot.hpp"

namespace rope::cli {

/// The most clock hands drawn in explain's animation: beyond, the pairs are sampled evenly.
inline constexpr int kMaxHands = 8;
/// Least distance between two labels of explain's frames (q, k and the hands' numbers), in units of the
/// larger of |q| and |k|: the axes span 3 such units, so 0.16 is about 5% of the plot, two letter heights.
inline constexpr double kLabelGap = 0.16;

/// explain: q at M + c and k at N + c for c = 0 … frames − 1, turning together, and one clock hand
/// per pair of step 7 at angle (M + c)·θ_i.
std::vector<plot::Figure> explain_frames(const explain::Setup& s, const FigureOptions& f);

/// wavelengths: λ_i against i with the position m_k sweeping geometrically from 1 to `m_max`; the pairs
/// with λ_i <= m_k (a full turn completed) drawn in colour, the others grey.
std::vector<plot::Figure> wavelength_frames(const FigureOptions& f, const Eigen::VectorXd& theta,
                                            const std::string& name, double m_max);

/// attention --shift: the heatmaps of each frame's weights (one per shift) put on one colour scale,
/// 0 … the largest weight of all frames (or `top`, the largest of every encoding's frames with --compare),
/// with the shift in the axis label.
void as_shift_frames(std::vector<plot::Figure>& frames, const std::vector<long>& shifts, const FigureOptions& f,
                     std::optional<double> top = std::nullopt);

/// Gives every frame the same y range, the union of theirs (autoscaled from their series), so the
/// axes stay still.
void share_y_range(std::vector<plot::Figure>& frames);

}  // namespace rope::cli
