#include "rope/cli/figures/attention_figure.hpp"

#include <fmt/format.h>
#include <limits>

#include "rope/io/csv.hpp"

namespace rope::cli {

namespace {

std::string figure_name(Encoding e, double slope, const FigureOptions& f) {
  switch (e) {
    case Encoding::Rope:
      return "RoPE";
    case Encoding::Sinusoidal:
      return f.tr("additive sinusoidal");
    case Encoding::Alibi:
      return f.tr("ALiBi, m = {0}", format_number(slope));
    default:
      return f.tr("no position encoding");
  }
}

/// The weights as drawn: those below max/256, one step of a 256-colour palette, are drawn as 0. The eye
/// cannot tell them from 0, and a colour range that starts at a tiny non-zero value (1e-7) makes gnuplot
/// label the colorbar 0.000000 … 0.500000.
Eigen::MatrixXd for_display(Eigen::MatrixXd a, double top) {
  const double floor = top / 256;
  for (Eigen::Index k = 0; k < a.size(); ++k) {
    if (a.data()[k] < floor) a.data()[k] = 0.0;
  }
  return a;
}

}  // namespace

plot::Figure attention_figure(const FigureOptions& f, Encoding e, double slope, int tokens, int dim, bool causal,
                              const Eigen::MatrixXd& a, std::optional<double> shared_max, std::optional<double> scale) {
  plot::Figure fig;
  fig.title = scale ? f.tr("attention A = softmax(QKᵀ·{0}), {1}: {2} tokens, d = {3}{4}", fmt::format("{:.6g}", *scale),
                           figure_name(e, slope, f), tokens, dim, causal ? f.tr(", causal") : "")
                    : f.tr("attention A = softmax(QKᵀ/√d), {0}: {1} tokens, d = {2}{3}", figure_name(e, slope, f),
                           tokens, dim, causal ? f.tr(", causal") : "");

  // Under the causal mask a key after its query (j > i) has no weight at all, not a weight 0: such cells are
  // drawn hatched grey (no value), apart from the colour of 0.
  fig.xlabel = causal ? f.tr("key j (hatched: masked, j > i)") : f.tr("key j");
  fig.ylabel = f.tr("query i");
  plot::Heatmap h;
  h.z = for_display(a, shared_max.value_or(a.maxCoeff()));
  if (causal) {
    for (Eigen::Index i = 0; i < h.z.rows(); ++i) {
      for (Eigen::Index j = i + 1; j < h.z.cols(); ++j) h.z(i, j) = std::numeric_limits<double>::quiet_NaN();
    }
  }
  if (shared_max) {  // the colour bar says that it is shared (the title has no room left)
    h.zrange = std::pair{0.0, *shared_max};
    h.colorbar_label = f.tr("A_ij, one scale for every encoding");
  }
  h.diverging = false;
  h.rows_downward = true;
  // No colorbar label: the title names the colour, and gnuplot clips a label beside long tick labels
  // such as 0.00500 (plot.hpp leaves no room for it).
  fig.heatmap = h;
  return fig;
}

plot::Figure bias_figure(const FigureOptions& f, double slope, int head, int heads, int tokens,
                         const Eigen::MatrixXd& bias) {
  plot::Figure fig;
  fig.title = f.tr("ALiBi bias −m·|i − j| added to s_ij: m = {0} (head {1} of {2}), {3} tokens", format_number(slope),
                   head, heads, tokens);
  fig.xlabel = f.tr("key j");
  fig.ylabel = f.tr("query i");
  plot::Heatmap h;
  h.z = bias;
  h.diverging = false;  // bright 0 on the diagonal, darker with distance, as A fades
  h.rows_downward = true;
  fig.heatmap = h;
  return fig;
}

}  // namespace rope::cli
