// rope extrapolation: the critical dimension, extrapolation bound, critical base and small-base
// thresholds of "Scaling Laws of RoPE-based Extrapolation" (Liu et al. 2023), docs/calculators.md
// (C6)–(C9); the figure is rope wavelengths' with the training (and tuning) length.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <memory>
#include <optional>

#include "rope/cli/commands.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/figure_options.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/report_output.hpp"
#include "rope/io/csv.hpp"
#include "rope/report/extrapolation_report.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/core/parse.hpp"
#include "rope/cli/figures/wavelength_figure.hpp"

namespace rope::cli {

struct ExtrapolationOptions {
  ExtrapolationRequest request;
  FigureOptions figure;
};

namespace {

/// rope wavelengths' figure of the base and each tuning base, with the training (and tuning) length.
void draw_extrapolation(const ExtrapolationRun& run, const FigureOptions& f) {
  if (!f.wanted()) return;
  const ExtrapolationRequest& q = run.request;
  std::vector<WavelengthCurve> curves{{"base = " + format_number(q.base), "", wavelengths(frequencies(q.dim, q.base))}};
  for (double beta : q.tune_bases) {
    if (beta != q.base) curves.push_back({"β = " + format_number(beta), "", wavelengths(frequencies(q.dim, beta))});
  }
  std::vector<double> contexts{q.train_length};
  if (q.tune_length && *q.tune_length != q.train_length) contexts.push_back(*q.tune_length);
  plot::Figure fig = wavelength_figure(f, q.dim, "", contexts, curves);
  fig.title = f.tr().tr("Critical dimension d_extra = {0} of d = {1}, base {2}, trained on T = {3}",
                        run.critical.dimension, q.dim, format_number(q.base), format_number(q.train_length));
  draw(fig, f);
}

}  // namespace

int run_extrapolation(const ExtrapolationOptions& opt, std::ostream& out) {
  check_figure_options(opt.figure);
  const ExtrapolationRun run = rope::run_extrapolation(opt.request);
  emit_report(out, run, {false, opt.figure.tr().lang()}, [&] { draw_extrapolation(run, opt.figure); });
  return kOk;
}

Command add_extrapolation_command(CLI::App& app) {
  auto opt = std::make_shared<ExtrapolationOptions>();
  CLI::App* sub = app.add_subcommand("extrapolation",
                                     "Critical dimension, extrapolation bound and critical base (Liu et al. 2023)");
  add_dim_option(*sub, opt->request.dim);
  add_base_option(*sub, opt->request.base);
  add_real_option(*sub, "-T,--train-length", opt->request.train_length, "pre-training context length T, > 2π")
      ->required();
  sub->add_option_function<std::string>(
         "--tune-length",
         [opt](const std::string& text) { opt->request.tune_length = parse_real(text, "--tune-length"); },
         "fine-tuning length T_tune, > 2π: adds the critical base β₀ and the thresholds β₁ β₂ β₃")
      ->type_name("NUM");
  add_reals_option(*sub, "--tune-base", opt->request.tune_bases,
                   "base β used with the pre-trained critical dimension, for T_extra; repeatable (default: --base)");
  add_figure_options(*sub, opt->figure);
  sub->footer(
      "Example:\n  rope extrapolation --dim 128 --base 10000 --train-length 4096 --tune-length 16384\n"
      "  rope extrapolation --train-length 4096 --tune-base 500 --tune-base 1000000 --png extrapolation.png");
  return {sub, [opt](std::ostream& out) { return run_extrapolation(*opt, out); }};
}

}  // namespace rope::cli
