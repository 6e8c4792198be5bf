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
#include "rope/io/csv.hpp"
#include "rope/core/error.hpp"
#include "rope/analysis/extrapolation.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/core/parse.hpp"
#include "rope/cli/figures/wavelength_figure.hpp"

namespace rope::cli {

inline constexpr std::size_t kMaxTuneBases = 16;

struct ExtrapolationOptions {
  int dim = 128;
  double base = kDefaultBase;
  double train_length = 0;
  std::optional<double> tune_length;
  std::vector<double> tune_bases;  ///< empty: the base itself
  FigureOptions figure;
};

namespace {

std::string num(double x) { return fmt::format("{:.1f}", x); }

}  // namespace

int run_extrapolation(const ExtrapolationOptions& opt, std::ostream& out) {
  check_figure_options(opt.figure);
  const Text t = opt.figure.tr();
  if (opt.tune_bases.size() > kMaxTuneBases) {
    throw InvalidArgument(
        error_msg("at most {0} {1} values (got {2})", kMaxTuneBases, option_name("tune_base"), opt.tune_bases.size()));
  }
  const int d = opt.dim;
  const CriticalDimension c = critical_dimension(d, opt.base, opt.train_length);
  std::vector<double> betas = opt.tune_bases.empty() ? std::vector<double>{opt.base} : opt.tune_bases;
  std::vector<double> bounds;
  for (double beta : betas) bounds.push_back(extrapolation_bound(d, beta, c.dimension));
  std::optional<double> beta0;
  std::optional<SmallBaseThresholds> small;
  if (opt.tune_length) {
    beta0 = critical_base(opt.base, opt.train_length, *opt.tune_length);
    small = small_base_thresholds(*opt.tune_length);
  }

  if (opt.figure.wanted()) {
    std::vector<WavelengthCurve> curves{
        {"base = " + format_number(opt.base), "", wavelengths(frequencies(d, opt.base))}};
    for (double beta : opt.tune_bases) {
      if (beta != opt.base) curves.push_back({"β = " + format_number(beta), "", wavelengths(frequencies(d, beta))});
    }
    std::vector<double> contexts{opt.train_length};
    if (opt.tune_length && *opt.tune_length != opt.train_length) contexts.push_back(*opt.tune_length);
    plot::Figure fig = wavelength_figure(opt.figure, d, "", contexts, curves);
    fig.title = t.tr("Critical dimension d_extra = {0} of d = {1}, base {2}, trained on T = {3}", c.dimension, d,
                     format_number(opt.base), format_number(opt.train_length));
    draw(fig, opt.figure);
  }

  const int half = d / 2;
  out << t.tr("Scaling laws of RoPE-based extrapolation (Liu et al. 2023; docs/calculators.md (C6)–(C9)):\n");
  out << t.tr("  d = {0}, base = {1}, training length T = {2}\n\n", d, format_number(opt.base),
              format_number(opt.train_length));
  out << t.tr("critical dimension (C6): x = (d/2)·log_base(T/2π) = {0:.4f}, d_extra = 2·⌈x⌉ = {1}\n", c.x, c.dimension);
  if (c.capped) {
    out << t.tr("  x > d/2 = {0}: every pair completes a full turn within T, so d_extra = d\n", half);
  } else if (c.pairs == half) {
    out << t.tr("  every pair completes a full turn within T\n");
  } else {
    out << t.tr("  pairs 0 … {0} complete a full turn within T (λ_i < T); pairs {1} … {2} ({3} of {4}) never do\n",
                c.pairs - 1, c.pairs, half - 1, half - c.pairs, half);
  }
  out << '\n';
  out << t.tr("extrapolation bound (C7): T_extra = 2π·β^(d_extra/d), the wavelength of pair {0} under base β\n",
              c.pairs);
  bool any_outside = false;
  for (double beta : betas) any_outside = any_outside || !extrapolation_bound_applies(opt.base, beta);
  // Padded on display width (fmt counts a CJK character as 2 columns, as printing.hpp columns() does);
  // the header leaves room for the rows' footnote mark, so the last column starts where theirs does.
  out << fmt::format("  {:>16}  {:>16}{}{}\n", t.tr("base β"), "T_extra", any_outside ? " " : "",
                     opt.tune_length ? fmt::format("  {}", "T_extra ≥ T_tune") : "");
  for (std::size_t b = 0; b < betas.size(); ++b) {
    const bool applies = extrapolation_bound_applies(opt.base, betas[b]);
    // A row outside (C7)'s domain gets a footnote mark after its T_extra; the column of marks exists only
    // when some row needs one.
    std::string line = fmt::format("  {:>16}  {:>16}{}", format_number(betas[b]), num(bounds[b]),
                                   any_outside ? (applies ? " " : "*") : "");
    if (opt.tune_length) {
      line += fmt::format("  {}", !applies ? t.tr("n/a") : bounds[b] >= *opt.tune_length ? t.tr("yes") : t.tr("no"));
    }
    while (line.back() == ' ') line.pop_back();
    out << line << '\n';
  }
  if (any_outside) {
    out << t.tr(
        "  * β < base = {0}: outside the domain of (C7). Liu et al. derive T_extra for a base at least\n"
        "    the pre-training one; below it the small-base regime (C9) applies\n",
        format_number(opt.base));
  }
  if (opt.tune_length) {
    out << '\n';
    out << t.tr("critical base (C8) for tuning at T_tune = {0}: β₀ = base^(log_(T/2π)(T_tune/2π)) = {1}\n",
                format_number(*opt.tune_length), num(*beta0));
    out << t.tr("  the base whose critical pair (before rounding x up) has wavelength T_tune\n");
    out << t.tr(
        "small-base thresholds (C9), the slowest period taken as 2π·β:\n"
        "  β₁ = 2T_tune/π = {0}, β₂ = T_tune/π = {1}, β₃ = T_tune/2π = {2}\n",
        num(small->quarter), num(small->half), num(small->full));
    out << t.tr(
        "  below β₁ every pair turns at least a quarter turn within T_tune, below β₂ half a turn,\n"
        "  below β₃ a full turn\n");
  }
  return kOk;
}

Command add_extrapolation_command(CLI::App& app) {
  auto opt = std::make_shared<ExtrapolationOptions>();
  CLI::App* sub = app.add_subcommand("extrapolation",
                                     "Critical dimension, extrapolation bound and critical base (Liu et al. 2023)");
  add_dim_option(*sub, opt->dim);
  add_base_option(*sub, opt->base);
  add_real_option(*sub, "-T,--train-length", opt->train_length, "pre-training context length T, > 2π")->required();
  sub->add_option_function<std::string>(
         "--tune-length", [opt](const std::string& text) { opt->tune_length = parse_real(text, "--tune-length"); },
         "fine-tuning length T_tune, > 2π: adds the critical base β₀ and the thresholds β₁ β₂ β₃")
      ->type_name("NUM");
  add_reals_option(*sub, "--tune-base", opt->tune_bases,
                   "base β used with the pre-trained critical dimension, for T_extra; repeatable (default: --base)");
  add_figure_options(*sub, opt->figure);
  sub->footer(
      "Example:\n  rope extrapolation --dim 128 --base 10000 --train-length 4096 --tune-length 16384\n"
      "  rope extrapolation --train-length 4096 --tune-base 500 --tune-base 1000000 --png extrapolation.png");
  return {sub, [opt](std::ostream& out) { return run_extrapolation(*opt, out); }};
}

}  // namespace rope::cli
