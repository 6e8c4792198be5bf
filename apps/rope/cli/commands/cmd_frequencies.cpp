// rope frequencies (alias freqs): the table θ_i = base^(−2i/d), λ_i = 2π/θ_i, docs/math.md (M1), (M2).
#include <CLI/CLI.hpp>
#include <cmath>
#include <fmt/format.h>
#include <memory>
#include <optional>

#include "rope/cli/commands.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/figure_options.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/output.hpp"
#include "rope/cli/scaling_options.hpp"
#include "rope/cli/report_output.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "rope/io/csv.hpp"
#include "rope/report/frequencies_report.hpp"

namespace rope::cli {

/// --dim and --max-position when not typed.
inline constexpr int kDefaultFrequenciesDim = 128;
inline constexpr int kDefaultMaxPosition = 128;

struct FrequenciesOptions {
  std::optional<int> dim;
  std::optional<double> base;
  std::optional<double> position;
  std::string csv;
  bool json = false;
  std::optional<int> digits;        ///< --digits N: significant digits of the text table (report/digits.hpp)
  std::optional<int> max_position;  ///< last position of the cos(m·θ_i) heatmap
  FigureOptions figure;
  ScalingOptions scaling;
};

/// The heatmap has (max_position + 1) × d/2 cells; more than this is slow to draw and unreadable.
inline constexpr double kMaxHeatmapCells = 4'194'304;

/// The figure: cos(m·θ_i), rows are pairs, columns positions 0 … max-position (M1); its size checked before
/// anything is written. A context extension's frequencies say so in the title.
void draw_cos_heatmap(const FrequencyTable& table, const FrequenciesOptions& opt) {
  if (!opt.figure.wanted()) return;  // the heatmap's size limits the figure, not the table (d up to kMaxDim)
  const Eigen::VectorXd& theta = table.theta;
  const auto half = theta.size();
  const int max_position = opt.max_position.value_or(kDefaultMaxPosition);
  if (max_position < 1 || (max_position + 1.0) * static_cast<double>(half) > kMaxHeatmapCells) {
    throw InvalidArgument(fmt::format("--max-position must be >= 1 with (max-position + 1)·d/2 <= {:.0f} (got {})",
                                      kMaxHeatmapCells, max_position));
  }
  Eigen::MatrixXd z(half, max_position + 1);
  for (Eigen::Index i = 0; i < half; ++i) {
    for (int m = 0; m <= max_position; ++m) z(i, m) = std::cos(m * theta[i]);
  }
  const FigureOptions& f = opt.figure;
  const RopeConfig& c = table.rope.spec.config;
  plot::Figure fig;
  fig.title = f.tr("cos(m·θᵢ): every pair turns at its own speed (d = {0}, base = {1}{2})", 2 * half,
                   format_number(c.base), c.type != ScalingType::Default ? f.tr(", scaled") : "");
  fig.xlabel = f.tr("position m");
  fig.ylabel = f.tr("pair i (0 = fastest)");
  plot::Heatmap h;
  h.z = z;
  h.colorbar_label = "cos(m·θᵢ)";
  fig.heatmap = h;
  draw(fig, f);
}

/// The request of the options: plain RoPE of --dim and --base, or a model or method with the scaling options.
FrequenciesRequest frequencies_request(const FrequenciesOptions& opt) {
  check_figure_options(opt.figure);
  if (opt.max_position && !opt.figure.wanted()) {
    throw InvalidArgument("--max-position sets the figure's heatmap: add --png, --svg, --pdf or --output");
  }
  const DimBase flags{opt.dim, kDefaultFrequenciesDim, opt.base, kDefaultBase, std::nullopt, Layout::Interleaved};
  return {resolve(opt.scaling, flags), opt.position, opt.scaling.rope.float32};
}

int run_frequencies(const FrequenciesOptions& opt, std::ostream& out) {
  const FrequencyTable table = frequency_table(frequencies_request(opt));
  draw_cos_heatmap(table, opt);
  emit_report(out, table, {opt.json, opt.figure.tr().lang(), opt.digits, opt.csv});
  return kOk;
}

Command add_frequencies_command(CLI::App& app) {
  auto opt = std::make_shared<FrequenciesOptions>();
  CLI::App* sub = app.add_subcommand(
      "frequencies", "Table of the rotation frequencies θ_i = base^(−2i/d) and wavelengths λ_i = 2π/θ_i");
  sub->alias("freqs");
  add_dim_option(*sub, opt->dim, kDefaultFrequenciesDim);
  add_base_option(*sub, opt->base);
  add_real_option(
      *sub, "-m,--position", opt->position, 0.0,
      "also print the angles m·θ_i at this position (with a model: of its scaled frequencies, and its query scaling there)")
      ->default_str("");  // optional: no angles without it
  sub->add_option("--csv", opt->csv,
                  "write the table to FILE ('-' for stdout): pair,exponent,theta,wavelength[,angle]; with "
                  "--scaling, --config or --model: pair,theta,wavelength,original_theta,original_wavelength,ratio,band"
                  "[,axis][,theta_float32]")
      ->type_name("FILE");
  sub->add_flag("--json", opt->json, "print JSON: inv_freq (the θ_i), attention_factor, wavelength, …");
  add_digits_option(*sub, opt->digits, std::to_string(kTableDigits), kTableDigitsHelp);
  add_int_option(*sub, "--max-position", opt->max_position, kDefaultMaxPosition,
                 "last position of the figure's cos(m·θ_i) heatmap")
      ->group("Figure");
  add_figure_options(*sub, opt->figure);
  add_scaling_options(*sub, opt->scaling);
  opt->scaling.axis_blocks = true;          // (V6): the pairs' θ, λ and axis: no channel placed
  opt->scaling.rope.fope = FopeUse::Theta;  // FoPE: the kept θ, the padded pairs marked (docs/multi-axis.md §7)
  add_float32_options(*sub, opt->scaling);
  sub->footer(
      "Example:\n  rope frequencies --dim 8 --base 10000\n  rope freqs --dim 128 --csv freqs.csv\n  rope freqs --dim 64 --png cos.png\n  rope freqs --model llama-3.1-8b\n  rope freqs --dim 128 --base 500000 --scaling llama3 --factor 8 --original-max-position 8192 --low-freq-factor 1 --high-freq-factor 4");
  return {sub, [opt](std::ostream& out) { return run_frequencies(*opt, out); }};
}

}  // namespace rope::cli
