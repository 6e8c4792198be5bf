// rope decay: how RoPE scores behave with relative distance, docs/math.md (M11), (M14), (M15):
// RoFormer's bound (default), the all-ones score, or the mean ± 1σ of random pairs; table, CSV, JSON, figure.
// The computation is rope/analysis/teaching/decay_run.hpp, its report (text, JSON, CSV, figures)
// rope/report/decay_report.hpp; with --xpos decay_xpos_run.hpp and decay_xpos_report.hpp.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <memory>
#include <optional>

#include "rope/analysis/teaching/decay_run.hpp"
#include "rope/cli/choice_option.hpp"
#include "rope/cli/commands.hpp"
#include "rope/cli/commands/decay_options.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/figure_options.hpp"
#include "rope/cli/figures/motion_figures.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/output.hpp"
#include "rope/cli/scaling_options.hpp"
#include "rope/cli/report_output.hpp"
#include "rope/core/error.hpp"
#include "rope/core/parse.hpp"
#include "rope/report/decay_report.hpp"
#include "rope/report/decay_xpos_report.hpp"

namespace rope::cli {

namespace {

DecayKind parse_kind(std::string_view text) {
  if (text == "bound") return DecayKind::Bound;
  if (text == "ones") return DecayKind::Ones;
  if (text == "random") return DecayKind::Random;
  throw InvalidArgument(
      error_msg("{0} must be '{1}', '{2}' or '{3}' (got '{4}')", option_name("kind"), "bound", "ones", "random", text));
}

/// The request of the options, checked (the library's rules between settings, then the figure's); a model's RoPE
/// resolved when the scaling options give one (not for --xpos, which refuses them).
DecayRequest decay_request(const DecayOptions& opt) {
  DecayRequest r;
  r.kind = opt.kind;
  r.bases = opt.base_values();
  r.dim = opt.dim;
  r.max_distance = opt.max_distance;
  r.points = opt.points;
  r.samples = opt.samples;
  r.seed = opt.seed;
  r.normalize = opt.normalize;
  r.log_x = opt.log_x;
  r.log_y = opt.log_y;
  r.rerope_window = opt.rerope_window;
  r.leaky_k = opt.leaky_k;
  r.frames = opt.figure.animated() ? opt.figure.frame_count() : 0;
  r.csv = !opt.csv.empty();
  if (opt.xpos) r.xpos_scale_base = opt.xpos_scale_base;
  check_decay_request(r);
  check_figure_options(opt.figure);
  if (opt.figure.animated() && (opt.scaling.any() || opt.xpos)) {
    throw InvalidArgument(error_msg("{0} sweeps the base: leave out {1}, {2}, {3} and {4}", option_name("gif"),
                                    option_name("scaling"), option_name("config"), option_name("model"),
                                    option_name("xpos")));
  }
  if (opt.scaling.any() && opt.xpos) {
    r.model.emplace();  // unread: run_xpos_decay refuses a model before resolving one would name its errors first
  } else if (opt.scaling.any()) {
    r.model =
        resolve(opt.scaling, {opt.dim, kDefaultDecayDim, opt.bases ? std::optional(r.bases.front()) : std::nullopt,
                              kDefaultBase, std::nullopt, Layout::Interleaved});
  }
  return r;
}

/// The GIF's frames on one y range.
std::vector<plot::Figure> shared_frames(std::vector<plot::Figure> frames) {
  share_y_range(frames);
  return frames;
}

}  // namespace

int run_decay(const DecayOptions& opt, std::ostream& out) {
  const DecayRequest request = decay_request(opt);
  const ReportFlags how{opt.json, opt.figure.lang, std::nullopt, opt.csv};
  if (request.xpos_scale_base) {
    const XposDecayRun run = run_xpos_decay(request);
    emit_report(out, run, how, [&] { draw(xpos_decay_figure(run, opt.figure.tr()), opt.figure); });
    return kOk;
  }
  const DecayRun run = rope::run_decay(request);
  emit_report(out, run, how, [&] {
    draw(decay_figure(run, opt.figure.tr()), opt.figure);
    if (opt.figure.animated()) draw_animation(shared_frames(decay_frames(run, opt.figure.tr())), opt.figure);
  });
  return kOk;
}

Command add_decay_command(CLI::App& app) {
  auto opt = std::make_shared<DecayOptions>();
  CLI::App* sub =
      app.add_subcommand("decay", "How RoPE scores behave with relative distance: RoFormer's bound and more");
  add_reals_option(*sub, "-b,--base", opt->bases, {kDefaultBase}, "RoPE base, > 1; repeat for several curves");
  add_dim_option(*sub, opt->dim, kDefaultDecayDim);
  add_choice_option(*sub, "--kind", opt->kind, {"bound", "ones", "random"}, parse_kind,
                    "bound: RoFormer's upper bound (M11); ones: the score of q = k = all ones (M14); "
                    "random: mean ± 1σ over random pairs (M15)",
                    "KIND")
      ->default_str(to_string(opt->kind));
  add_real_option(*sub, "--max-distance", opt->max_distance,
                  fmt::format("largest distance m (0 … {:g})", kMaxDistance));
  add_long_option(
      *sub, "--points", opt->points, 0,
      fmt::format("N evenly spaced distances from 0 to max-distance inclusive, fractional in general (1 … {}; "
                  "default: every integer distance, or {} log-spaced with --log-x)",
                  kMaxPoints, kDefaultLogPoints))
      ->default_str("");
  add_long_option(*sub, "--samples", opt->samples, kDefaultSamples, "random pairs for --kind random (>= 2)");
  add_seed_option(*sub, opt->seed, kDefaultSeed, "seed of the random pairs (same seed, same output)");
  sub->add_flag("--normalize", opt->normalize, "divide each curve by its value at distance 0");
  sub->add_flag("--log-x", opt->log_x, "log-spaced distances from 1 to max-distance, on a log axis");
  sub->add_flag("--log-y", opt->log_y, "log axis for the values (--kind bound)");
  sub->add_option("--csv", opt->csv,
                  "write the plotted data, distance then one column per base, to FILE ('-' for stdout)")
      ->type_name("FILE");
  sub->add_flag("--json", opt->json,
                "print JSON: the settings, each curve's name and its values at the table's round distances");
  add_figure_options(*sub, opt->figure);
  add_animation_options(*sub, opt->figure, "animate to a GIF: the base sweeps over the --base values (one: 100 … 10⁶)");
  sub->footer(
      "Example:\n  rope decay --base 10000 --dim 128 --csv decay.csv --png decay.png\n"
      "  rope decay --base 10000 --base 500000 --max-distance 4096\n"
      "  rope decay --kind random --samples 2000 --png random.png");
  CLI::Option* rerope =
      sub->add_option_function<std::string>(
             "--rerope", [opt](const std::string& text) { opt->rerope_window = parse_real(text, "--rerope"); },
             "ReRoPE: the model sees distance min(m, W) (docs/scaling.md (S16))")
          ->type_name("W");
  sub->add_option_function<std::string>(
         "--leaky-k", [opt](const std::string& text) { opt->leaky_k = parse_real(text, "--leaky-k"); },
         "Leaky ReRoPE with --rerope W: beyond W distances grow with slope 1/K (S17)")
      ->type_name("K")
      ->needs(rerope);
  CLI::Option* xpos =
      sub->add_flag("--xpos", opt->xpos,
                    "xPos: the scale factor zeta^(m/s) against distance next to the bound (docs/multi-axis.md (X5))");
  add_real_option(*sub, "--xpos-scale-base", opt->xpos_scale_base, "with --xpos: the scale base s, > 0 (default 512)")
      ->needs(xpos);
  add_scaling_options(*sub, opt->scaling);
  opt->scaling.axis_blocks = true;  // (V6): the curves are over pairs: the placement of the channels changes none
  return {sub, [opt](std::ostream& out) { return run_decay(*opt, out); }};
}

}  // namespace rope::cli
