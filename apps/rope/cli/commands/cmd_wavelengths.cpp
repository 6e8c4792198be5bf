// rope wavelengths: λ_i = 2π/θ_i against pair i, against context lengths, docs/math.md (M2), (M16). The
// computation is rope/analysis/teaching/wavelengths_run.hpp; its report (text, JSON, CSV)
// rope/report/wavelengths_report.hpp.
#include <CLI/CLI.hpp>
#include <memory>

#include "rope/analysis/teaching/wavelengths_run.hpp"
#include "rope/cli/commands.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/figure_options.hpp"
#include "rope/cli/figures/motion_figures.hpp"
#include "rope/cli/figures/wavelength_figure.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/output.hpp"
#include "rope/cli/scaling_options.hpp"
#include "rope/cli/report_output.hpp"
#include "rope/core/constants.hpp"
#include "rope/report/wavelengths_report.hpp"

namespace rope::cli {

/// --dim when not typed.
inline constexpr int kDefaultWavelengthsDim = 128;

struct WavelengthsOptions {
  std::optional<int> dim;
  std::optional<std::vector<double>> bases;  ///< --base, repeated; nullopt: kDefaultBase
  std::vector<double> contexts;
  std::string csv;
  bool json = false;
  FigureOptions figure;
  ScalingOptions scaling;

  std::vector<double> base_values() const { return bases.value_or(std::vector<double>{kDefaultBase}); }
};

/// The request of the options: the library's rules first, then the model resolved (its original and scaled
/// wavelengths) when one is named.
WavelengthsRequest wavelengths_request(const WavelengthsOptions& opt) {
  WavelengthsRequest request;
  request.bases = opt.base_values();
  request.contexts = opt.contexts;
  request.dim = opt.dim.value_or(kDefaultWavelengthsDim);
  check_wavelengths_request(request.bases, request.contexts, opt.scaling.any());
  check_figure_options(opt.figure);
  if (opt.scaling.any()) {
    request.rope = resolve(
        opt.scaling, {opt.dim, kDefaultWavelengthsDim, opt.bases ? std::optional(request.bases.front()) : std::nullopt,
                      kDefaultBase, std::nullopt, Layout::Interleaved});
    request.named = !opt.scaling.source.preset.empty() || !opt.scaling.source.file.empty();
  }
  return request;
}

/// The figure (and the GIF) of the report's curves, each named in the language of the output: wavelength_figure
/// is rope extrapolation's too.
void draw_wavelengths(const WavelengthsRun& run, const FigureOptions& figure) {
  const Text t = figure.tr();
  std::vector<WavelengthCurve> curves;
  for (const WavelengthsCurve& c : run.curves) curves.push_back({c.name.in(t.lang()), c.column, c.lambda});
  draw(wavelength_figure(figure, run.dim, wavelengths_model(run, t), run.contexts, curves), figure);
  if (figure.animated()) {
    // The last curve (a model's scaled one) sweeps to run.sweep_end; λ = ∞ gives θ = 0.
    const WavelengthCurve& c = curves.back();
    const Eigen::VectorXd theta = (kTwoPi / c.lambda.array()).matrix();
    draw_animation(wavelength_frames(figure, theta, c.name, run.sweep_end), figure);
  }
}

int run_wavelengths(const WavelengthsOptions& opt, std::ostream& out) {
  const WavelengthsRun run = rope::run_wavelengths(wavelengths_request(opt));
  emit_report(out, run, {opt.json, opt.figure.tr().lang(), std::nullopt, opt.csv},
              [&] { draw_wavelengths(run, opt.figure); });
  return kOk;
}

Command add_wavelengths_command(CLI::App& app) {
  auto opt = std::make_shared<WavelengthsOptions>();
  CLI::App* sub = app.add_subcommand("wavelengths", "Wavelength of every pair, against context lengths");
  add_dim_option(*sub, opt->dim, kDefaultWavelengthsDim);
  add_reals_option(*sub, "-b,--base", opt->bases, {kDefaultBase}, "RoPE base, > 1; repeat for several curves");
  add_reals_option(*sub, "--context", opt->contexts, "a context length to compare with; repeatable");
  sub->add_option("--csv", opt->csv, "write pair then one wavelength column per base to FILE ('-' for stdout)")
      ->type_name("FILE");
  sub->add_flag("--json", opt->json,
                "print JSON: dim, each curve's wavelengths, and per context the first pair beyond it, …");
  add_figure_options(*sub, opt->figure);
  add_animation_options(*sub, opt->figure, "animate to a GIF: m sweeps up to --context; pairs that turned light up");
  add_scaling_options(*sub, opt->scaling);
  opt->scaling.axis_blocks = true;          // (V6): the pairs' λ per axis: no channel placed
  opt->scaling.rope.fope = FopeUse::Theta;  // FoPE: the kept θ, the padded pairs marked (docs/multi-axis.md §7)
  sub->footer(
      "Example:\n  rope wavelengths --dim 128 --base 10000 --base 500000 --context 4096 --png wavelengths.png\n"
      "  rope wavelengths --model llama-3.1-8b --png llama31.png");
  return {sub, [opt](std::ostream& out) { return run_wavelengths(*opt, out); }};
}

}  // namespace rope::cli
