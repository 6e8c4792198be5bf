// The printers of rope extrapolation (extrapolation_report.hpp).
#include "rope/report/extrapolation_report.hpp"

#include <fmt/format.h>
#include <string>

#include "rope/io/csv.hpp"
#include "rope/report/text.hpp"

namespace rope {

namespace {

std::string extrapolation_length(double x) { return fmt::format("{:.1f}", x); }

}  // namespace

Value extrapolation_value(const ExtrapolationRun& run) {
  const ExtrapolationRequest& q = run.request;
  Value v = Value::object();
  v["dim"] = q.dim;
  v["base"] = q.base;
  v["train_length"] = q.train_length;
  v["tune_length"] = q.tune_length;
  Value c = Value::object();
  c["x"] = run.critical.x;
  c["pairs"] = run.critical.pairs;
  c["dimension"] = run.critical.dimension;
  c["capped"] = run.critical.capped;
  v["critical"] = c;
  Value bounds = Value::array();
  for (std::size_t b = 0; b < run.betas.size(); ++b) {
    Value one = Value::object();
    one["beta"] = run.betas[b];
    one["t_extra"] = run.bounds[b];
    one["applies"] = extrapolation_bound_applies(q.base, run.betas[b]);
    bounds.push_back(one);
  }
  v["bounds"] = bounds;
  v["critical_base"] = run.critical_base;
  Value small;
  if (run.small) {
    small = Value::object();
    small["quarter"] = run.small->quarter;
    small["half"] = run.small->half;
    small["full"] = run.small->full;
  }
  v["small_base"] = small;
  return v;
}

void print_extrapolation(std::ostream& out, const ExtrapolationRun& run, const Text& t) {
  const ExtrapolationRequest& opt = run.request;
  const CriticalDimension& c = run.critical;
  const int d = opt.dim;
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
  for (double beta : run.betas) any_outside = any_outside || !extrapolation_bound_applies(opt.base, beta);
  // Padded on display width (fmt counts a CJK character as 2 columns, as printing.hpp columns() does);
  // the header leaves room for the rows' footnote mark, so the last column starts where theirs does.
  out << fmt::format("  {:>16}  {:>16}{}{}\n", t.tr("base β"), "T_extra", any_outside ? " " : "",
                     opt.tune_length ? fmt::format("  {}", "T_extra ≥ T_tune") : "");
  for (std::size_t b = 0; b < run.betas.size(); ++b) {
    const bool applies = extrapolation_bound_applies(opt.base, run.betas[b]);
    // A row outside (C7)'s domain gets a footnote mark after its T_extra; the column of marks exists only
    // when some row needs one.
    std::string line = fmt::format("  {:>16}  {:>16}{}", format_number(run.betas[b]),
                                   extrapolation_length(run.bounds[b]), any_outside ? (applies ? " " : "*") : "");
    if (opt.tune_length) {
      line += fmt::format("  {}", !applies                            ? t.tr("n/a")
                                  : run.bounds[b] >= *opt.tune_length ? t.tr("yes")
                                                                      : t.tr("no"));
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
                format_number(*opt.tune_length), extrapolation_length(*run.critical_base));
    out << t.tr("  the base whose critical pair (before rounding x up) has wavelength T_tune\n");
    out << t.tr(
        "small-base thresholds (C9), the slowest period taken as 2π·β:\n"
        "  β₁ = 2T_tune/π = {0}, β₂ = T_tune/π = {1}, β₃ = T_tune/2π = {2}\n",
        extrapolation_length(run.small->quarter), extrapolation_length(run.small->half),
        extrapolation_length(run.small->full));
    out << t.tr(
        "  below β₁ every pair turns at least a quarter turn within T_tune, below β₂ half a turn,\n"
        "  below β₃ a full turn\n");
  }
}

}  // namespace rope
