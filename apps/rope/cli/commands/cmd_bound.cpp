// rope bound: the criterion of "Base of RoPE Bounds Context Length" (Men et al. 2024) over a grid of
// bases, docs/calculators.md (C1)–(C5): min_{m≤L} B(m) against the base, pass/fail, pass intervals.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <memory>
#include <optional>

#include "rope/cli/commands.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/figure_options.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/report_output.hpp"
#include "rope/report/bound_report.hpp"

namespace rope::cli {

struct BoundOptions {
  BoundRequest request;
  std::string csv;
  FigureOptions figure;
};

int run_bound(const BoundOptions& opt, std::ostream& out) {
  check_figure_options(opt.figure);
  BoundRequest request = opt.request;
  request.csv = !opt.csv.empty();
  const BoundRun run = rope::run_bound(request);
  const Text t = opt.figure.tr();
  emit_report(out, run, {false, t.lang(), std::nullopt, opt.csv}, [&] { draw(bound_figure(run, t), opt.figure); });
  return kOk;
}

Command add_bound_command(CLI::App& app) {
  auto opt = std::make_shared<BoundOptions>();
  CLI::App* sub =
      app.add_subcommand("bound", "Base of RoPE bounds context length: min B(m) against the base, pass intervals");
  add_long_option(*sub, "-L,--context", opt->request.context,
                  fmt::format("context length L: every integer m in [0, L] is checked (1 … {})", kMaxBoundContext))
      ->required();
  add_dim_option(*sub, opt->request.dim);
  sub->add_option("--base-range", opt->request.base_range,
                  "bases from LO to HI, 1 < LO < HI (default: F/4,8F with F = 0.0424·L^1.628)")
      ->type_name("LO,HI");
  add_int_option(*sub, "--per-decade", opt->request.per_decade, 0,
                 fmt::format("grid points 10^(k/P) per decade (1 … {}; default 400 below L = 65536, 100 from there)",
                             kMaxPerDecade))
      ->default_str("");  // the default depends on L: the help says it
  sub->add_option("--csv", opt->csv, "write base,min_B,argmin_m,passes for every grid base to FILE ('-' for stdout)")
      ->type_name("FILE");
  add_figure_options(*sub, opt->figure);
  sub->footer(
      fmt::format("At most {} grid points.\nExample:\n  rope bound --context 1024 --png bound.png\n"
                  "  rope bound --context 1048576 --dim 128 --csv bound.csv",
                  kMaxBoundGridPoints));
  return {sub, [opt](std::ostream& out) { return run_bound(*opt, out); }};
}

}  // namespace rope::cli
