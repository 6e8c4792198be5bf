/// @file
/// The figures of rope attention: the heatmap of the attention weights A = softmax(QKᵀ/√d) of one
/// encoding, and the heatmap of ALiBi's bias −m·|i − j| (Press et al. 2021, arXiv:2108.12409).
#pragma once

#include <Eigen/Core>
#include <optional>

#include "rope/analysis/teaching/attention.hpp"
#include "rope/cli/figure_options.hpp"
#include "rope/plot/plot.hpp"

namespace rope::cli {

/// The heatmap of `a` (query i downward, key j across) for `tokens` tokens of dimension `dim` under
/// encoding `e` (`slope`: ALiBi's m). Weights below max/256 are drawn as 0. With `shared_max` (rope
/// attention --compare), the colour range is 0 … shared_max, the same in every figure, and the title says so.
/// `scale`: the model's softmax scale, shown in the title in place of 1/√d (nullopt: 1/√d).
plot::Figure attention_figure(const FigureOptions& f, Encoding e, double slope, int tokens, int dim, bool causal,
                              const Eigen::MatrixXd& a, std::optional<double> shared_max = std::nullopt,
                              std::optional<double> scale = std::nullopt);

/// The heatmap of ALiBi's bias of slope m = `slope`, that of head `head` of `heads`.
plot::Figure bias_figure(const FigureOptions& f, double slope, int head, int heads, int tokens,
                         const Eigen::MatrixXd& bias);

}  // namespace rope::cli
