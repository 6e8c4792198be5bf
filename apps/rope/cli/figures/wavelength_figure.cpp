#include "rope/cli/figures/wavelength_figure.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "rope/core/frequencies.hpp"
#include "rope/io/csv.hpp"

namespace rope::cli {

plot::Figure wavelength_figure(const FigureOptions& f, int dim, const std::string& model,
                               const std::vector<double>& contexts, const std::vector<WavelengthCurve>& curves) {
  const int half = dim / 2;
  Eigen::VectorXd pairs(half);
  for (int i = 0; i < half; ++i) pairs[i] = i;
  plot::Figure fig;
  fig.title = f.tr("RoPE wavelengths λᵢ = 2π/θᵢ, d = {0}{1}", dim, model.empty() ? "" : ", " + model);
  fig.xlabel = f.tr("pair index i");
  fig.ylabel = f.tr("wavelength λᵢ (positions per full turn)");
  fig.log_y = true;
  fig.key = plot::Figure::Key::Below;  // inside, it would cover the context labels at the top left
  double lo = curves.front().lambda[0];
  double hi = lo;
  for (std::size_t b = 0; b < curves.size(); ++b) {
    for (Eigen::Index i = 0; i < curves[b].lambda.size(); ++i) {
      if (std::isfinite(curves[b].lambda[i])) hi = std::max(hi, curves[b].lambda[i]);
    }
    fig.series.push_back({curves[b].name, pairs, curves[b].lambda, static_cast<int>(b)});
  }
  for (std::size_t c = 0; c < contexts.size(); ++c) {
    const double L = contexts[c];
    hi = std::max(hi, L);
    fig.lines.push_back({plot::ReferenceLine::Axis::Y, L, f.tr("context {0}", format_number(L)), -1});
    // Pairs that never complete a turn within L, marked on every curve; the first one annotated.
    for (std::size_t b = 0; b < curves.size(); ++b) {
      const Eigen::VectorXd& lambda = curves[b].lambda;
      const Eigen::Index first = first_pair_beyond(lambda, L);
      if (first == half) continue;
      const Eigen::Index n = half - first;
      plot::Series marked{"", pairs.tail(n), lambda.tail(n), static_cast<int>(b)};
      marked.points = true;
      if (b == 0 && c == 0) marked.label = f.tr("λᵢ > context {0}: no full turn", format_number(L));
      fig.series.push_back(marked);
      if (b == 0 && c == 0) {  // one annotation: more would cover the curves
        plot::Label label;
        label.text = f.tr("critical dimension {0} (pair {1})", 2 * first, first);
        // Bottom right, under every curve: the curves rise to the right, so that corner is empty.
        label.x = static_cast<double>(half - 1);
        label.y = lambda[first] / 15;
        label.anchor = plot::Label::Anchor::Right;
        label.arrow_x = static_cast<double>(first);
        label.arrow_y = lambda[first];
        fig.labels.push_back(label);
      }
    }
  }
  // Which end is which: small i turns fast, large i slowly.
  plot::Label high;
  high.x = 0.0;
  high.y = lo / 2.2;
  high.text = f.tr("high frequency, short wavelength");
  fig.labels.push_back(high);
  plot::Label low;
  low.x = static_cast<double>(half - 1);
  low.y = hi * 3.5;  // clear of the curves' right ends, which reach hi (one line of text is a factor ~1.6)
  low.text = f.tr("low frequency, long wavelength");
  low.anchor = plot::Label::Anchor::Right;
  fig.labels.push_back(low);
  fig.xrange = std::pair{-0.5, half - 0.5};
  fig.yrange = std::pair{lo / 4, hi * 12};
  return fig;
}

}  // namespace rope::cli
