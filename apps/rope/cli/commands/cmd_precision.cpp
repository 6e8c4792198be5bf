// rope precision: what float32, float16 and bfloat16 cost RoPE at long positions, docs/precision.md
// (P1)–(P9): error curves per type and strategy against a long double reference, the position where
// the angle error passes a threshold, and the positions a type merges. Table, CSV, log–log figure.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <memory>

#include "rope/cli/choice_option.hpp"
#include "rope/cli/commands.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/figure_options.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/report_output.hpp"
#include "rope/core/dtype.hpp"
#include "rope/report/precision_report.hpp"

namespace rope::cli {

struct PrecisionOptions {
  PrecisionRequest request;
  std::string csv;
  FigureOptions figure;
  bool wide = false;          ///< --wide: every merge group of the position table
  std::optional<int> digits;  ///< --digits N: significant digits of the error tables (digits.hpp); nullopt: the policy
};

int run_precision(const PrecisionOptions& opt, std::ostream& out) {
  check_figure_options(opt.figure);
  PrecisionRequest request = opt.request;
  request.csv = !opt.csv.empty();
  request.figure = opt.figure.wanted();
  const PrecisionRun run = rope::run_precision(request);
  const Text t = opt.figure.tr();
  emit_report(out, run, {false, t.lang(), opt.digits, opt.csv, opt.wide}, [&] {
    if (opt.figure.wanted()) draw(precision_figure(run, t), opt.figure);
  });
  return kOk;
}

Command add_precision_command(CLI::App& app) {
  auto opt = std::make_shared<PrecisionOptions>();
  PrecisionSettings& s = opt->request.settings;
  CLI::App* sub = app.add_subcommand(
      "precision", "How much precision RoPE loses at long positions in float32, float16 and bfloat16");
  add_int_option(*sub, "-d,--dim", s.dim, fmt::format("dimension d: even, 2 … {}", kMaxPrecisionDim));
  add_base_option(*sub, s.base);
  add_real_option(*sub, "--max-position", opt->request.max_position,
                  fmt::format("largest position P, an integer 1 … {}", format_number(kMaxPrecisionPosition)));
  add_choice_option(*sub, "--dtype", opt->request.dtypes, kDTypeWords, parse_dtype,
                    "types to compare: f64, f32, f16, bf16 (repeat or list; default all)", "TYPE")
      ->delimiter(',');
  add_choice_option(*sub, "--strategy", opt->request.strategies, {"cast-inputs", "angle-f32", "cast-result"},
                    parse_strategy, "where the low precision enters: cast-inputs, angle-f32, cast-result (default all)",
                    "NAME")
      ->delimiter(',');
  add_long_option(*sub, "--points", opt->request.points,
                  fmt::format("log-spaced positions 1 … P in the CSV and figure (2 … {})", kMaxPrecisionPoints));
  add_long_option(*sub, "--samples", s.samples, fmt::format("random pairs q, k (1 … {})", kMaxPrecisionSamples));
  add_real_option(*sub, "--distance", s.distance, "n − m in the identity error");
  add_reals_option(*sub, "--at", opt->request.at, "positions of the printed tables (those <= P, and P)");
  add_real_option(*sub, "--threshold", opt->request.threshold, "angle error in rad whose first crossing is printed");
  add_choice_option(*sub, "--metric", opt->request.metric, {"angle", "vector", "identity"}, parse_precision_metric,
                    "what the figure shows: angle, vector or identity", "NAME")
      ->default_str("identity");
  add_seed_option(*sub, s.seed, "seed of the random pairs (same seed, same output)");
  add_layout_option(*sub, s.layout);
  sub->add_option("--csv", opt->csv,
                  "write position and, per curve, its angle, vector and identity errors to FILE ('-' for stdout)")
      ->type_name("FILE");
  add_figure_options(*sub, opt->figure);
  add_wide_option(*sub, opt->wide);
  add_digits_option(*sub, opt->digits, "3", kDigitsHelp);
  sub->get_option("--lang")->description("language of the text and the figure: en or zh (中文)");
  sub->footer(
      "Example:\n  rope precision\n  rope precision --dtype f32,bf16 --max-position 65536 --png precision.png\n"
      "  rope precision --metric angle --threshold 0.01 --csv precision.csv");
  return {sub, [opt](std::ostream& out) { return run_precision(*opt, out); }};
}

}  // namespace rope::cli
