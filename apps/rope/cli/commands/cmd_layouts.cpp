// rope layouts: the interleaved and half layouts side by side, the permutation P between them, and the
// bug of mixing them (Meta-format q/k weights run with rotate_half), docs/math.md (M5), (M6), (M8),
// a bug reported many times (e.g. huggingface/transformers#25199). The demonstration itself is
// rope/analysis/teaching/layouts.hpp; its report (text, figures) rope/report/layouts_report.hpp.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <memory>

#include "rope/analysis/teaching/layouts_run.hpp"
#include "rope/cli/commands.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/figure_options.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/output.hpp"
#include "rope/cli/scaling_options.hpp"
#include "rope/cli/vector_options.hpp"
#include "rope/cli/report_output.hpp"
#include "rope/core/error.hpp"
#include "rope/report/layouts_report.hpp"

namespace rope::cli {

struct LayoutsOptions {
  LayoutsSettings settings;
  std::vector<double> positions{5, 12};
  std::string csv;
  FigureOptions figure;
  ScalingOptions scaling;
  std::optional<int> dim;      ///< --dim; nullopt: settings.dim
  std::optional<double> base;  ///< --base; nullopt: settings.base
  bool wide = false;           ///< --wide: each score with its formula on its line (111 columns)
  std::optional<int> digits;   ///< --digits N: significant digits of each error and its tolerance (digits.hpp)
  std::string q, k;            ///< --q, --k: the user's query and key (vector_options.hpp); empty: drawn
  bool show_vectors = false;   ///< --show-vectors: print q and k in full
  bool cache = false;          ///< --cache: the figure is the cos/sin cache of each layout, not the score sweep
  bool json = false;           ///< --json: the demonstration's numbers (report/layouts_report.hpp layouts_value)
};

/// The request of the options: the user's vectors set d unless a model does (then they must match its rotary
/// dimension, rope::run_layouts).
LayoutsRequest layouts_request(const LayoutsOptions& opt) {
  check_figure_options(opt.figure);
  if (opt.cache && !opt.figure.wanted()) {
    throw InvalidArgument("--cache draws the figure of the cos/sin cache: add --png, --svg, --pdf or --output");
  }
  const std::optional<QueryKey> user = query_key(opt.q, opt.k, opt.dim, kMaxLayoutsDim);
  if (user && user->q.rows() != 1) {
    throw InvalidArgument(
        error_msg("--q and --k: rope layouts takes one query and one key (got {0} vectors each)", user->q.rows()));
  }
  const bool from_model = !opt.scaling.source.preset.empty() || !opt.scaling.source.file.empty();
  const std::optional<int> dim = user && !from_model ? std::optional<int>(static_cast<int>(user->q.cols())) : opt.dim;
  LayoutsRequest request;
  request.settings = opt.settings;
  request.positions = opt.positions;
  request.rope = resolve(opt.scaling, {dim, opt.settings.dim, opt.base, opt.settings.base, std::nullopt,
                                       Layout::Interleaved, kMaxLayoutsDim});
  if (user) {
    request.q = user->q.row(0).transpose();
    request.k = user->k.row(0).transpose();
  }
  request.cache = opt.cache;
  request.wide = opt.wide;
  request.show_vectors = opt.show_vectors;
  request.csv = !opt.csv.empty();
  return request;
}

int run_layouts(const LayoutsOptions& opt, std::ostream& out) {
  const LayoutsRun run = rope::run_layouts(layouts_request(opt));
  emit_report(out, run, {opt.json, opt.figure.tr().lang(), opt.digits, opt.csv},
              [&] { draw(layouts_figure(run, opt.figure.tr()), opt.figure); });
  return run.demo.passed() ? kOk : kVerifyFailed;
}

Command add_layouts_command(CLI::App& app) {
  auto opt = std::make_shared<LayoutsOptions>();
  LayoutsSettings& s = opt->settings;
  CLI::App* sub = app.add_subcommand(
      "layouts", "The interleaved and half pair layouts, the permutation P, and the bug of mixing them");
  add_int_option(*sub, "-d,--dim", opt->dim, s.dim, fmt::format("dimension d: even, 2 … {}", kMaxLayoutsDim));
  add_base_option(*sub, opt->base, s.base);
  add_seed_option(*sub, s.seed, "seed of the random q, k (same seed, same output)");
  add_reals_option(*sub, "--position", opt->positions, "the query's position m, then the key's n: give it twice");
  add_long_option(*sub, "--max-distance", s.max_distance,
                  fmt::format("the sweep puts the key at m + δ, δ = 0 … max-distance (0 … {})", kMaxLayoutsDistance));
  sub->add_option("--csv", opt->csv,
                  "write distance,score_interleaved,score_mixed,score_fixed to FILE ('-' for stdout)")
      ->type_name("FILE");
  sub->add_flag("--json", opt->json,
                "print JSON: the scores at (m, n) in each layout, the sweep's largest changes and the checks");
  add_query_key_options(*sub, opt->q, opt->k,
                        "the query q instead of a random one: d numbers, comma-separated (x0,x1,…), or @FILE (CSV)",
                        "the key k instead of a random one: d numbers, comma-separated, or @FILE (CSV)");
  sub->add_flag("--show-vectors", opt->show_vectors,
                "print q and k in full (shortest round-trip decimals), so the scores can be recomputed by hand");
  sub->add_flag("--cache", opt->cache,
                "the figure draws the cos/sin cache of each layout as it sits in memory (rows: positions 0 … 15; "
                "columns: channels), pair 0's partners marked, instead of the scores")
      ->group("Figure");
  add_figure_options(*sub, opt->figure);
  add_wide_option(*sub, opt->wide);
  add_digits_option(*sub, opt->digits, "3", kDigitsHelp);
  add_scaling_options(*sub, opt->scaling);
  sub->footer(
      "Example:\n  rope layouts --dim 8\n  rope layouts --dim 128 --position 100 --position 90 --max-distance 512 "
      "--png layouts.png");
  return {sub, [opt](std::ostream& out) { return run_layouts(*opt, out); }};
}

}  // namespace rope::cli
