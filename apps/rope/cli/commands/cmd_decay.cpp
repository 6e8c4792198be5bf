// rope decay: how RoPE scores behave with relative distance, docs/math.md (M11), (M14), (M15):
// RoFormer's bound (default), the all-ones score, or the mean ± 1σ of random pairs; table, CSV, figure.
#include <algorithm>
#include <CLI/CLI.hpp>
#include <cmath>
#include <fmt/format.h>
#include <memory>
#include <optional>

#include "rope/cli/choice_option.hpp"
#include "rope/cli/commands.hpp"
#include "rope/cli/commands/decay_options.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/figure_options.hpp"
#include "rope/cli/figures/motion_figures.hpp"
#include "rope/analysis/motion.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/output.hpp"
#include "rope/io/csv.hpp"
#include "rope/report/digits.hpp"
#include "rope/analysis/decay.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/core/parse.hpp"
#include "rope/models/scaling/scaling.hpp"
#include "rope/cli/scaling_options.hpp"
#include "rope/core/random.hpp"

namespace rope::cli {

namespace {

/// The distances the model sees: t itself, or ReRoPE's / Leaky ReRoPE's g(t) (docs/scaling.md (S16), (S17)).
Eigen::VectorXd seen_distances(const DecayOptions& opt, const Eigen::VectorXd& t) {
  if (!opt.rerope_window) return t;
  Eigen::VectorXd g(t.size());
  for (Eigen::Index k = 0; k < t.size(); ++k) {
    g[k] = opt.leaky_k ? leaky_rerope_distance(t[k], *opt.rerope_window, *opt.leaky_k)
                       : rerope_distance(t[k], *opt.rerope_window);
  }
  return g;
}

DecayKind parse_kind(std::string_view text) {
  if (text == "bound") return DecayKind::Bound;
  if (text == "ones") return DecayKind::Ones;
  if (text == "random") return DecayKind::Random;
  throw InvalidArgument(
      error_msg("{0} must be '{1}', '{2}' or '{3}' (got '{4}')", option_name("kind"), "bound", "ones", "random", text));
}

/// The frequencies of one curve: one per --base, or a model's original and scaled frequencies.
struct FrequencySet {
  std::string label;   ///< legend and table, "base = 10000"
  std::string column;  ///< CSV header, "base=10000"
  Eigen::VectorXd theta;
  double weight = 1.0;  ///< a model's a²: its attention factor in cos and sin scales every score (S15)
};

/// A model's RoPE (--model, --config, scaling flags): what the summary says about it (spec_summary).
struct ModelSets {
  std::vector<FrequencySet> sets;
  std::vector<Message> warnings;
  std::vector<std::string> summary;
};

ModelSets frequency_sets(const DecayOptions& opt) {
  ModelSets out;
  std::vector<FrequencySet>& sets = out.sets;
  const Text t = opt.figure.tr();
  const std::vector<double> bases = opt.base_values();
  if (opt.scaling.any()) {
    if (bases.size() > 1)
      throw InvalidArgument(error_msg("give one {0} with {1}, {2} or {3}", option_name("base"), option_name("scaling"),
                                      option_name("config"), option_name("model")));
    // The model's spec (rope/models/rope_spec.hpp): its rotating channels' frequencies and its attention
    // factor a (the scores carry a²); the layout only permutes channels, which changes none of the curves.
    const ModelRope rope =
        resolve(opt.scaling, {opt.dim, kDefaultDecayDim, opt.bases ? std::optional(bases.front()) : std::nullopt,
                              kDefaultBase, std::nullopt, Layout::Interleaved});
    const ModelRope& rr = rope;
    const std::string type(to_string(rr.spec.config.type));
    const double a = rr.spec.attention_factor();
    sets.push_back({t.tr("original, base = {0}", format_number(rr.spec.config.base)), "original", rr.spec.original});
    sets.push_back(
        {fmt::format("{} f = {}", type, format_number(rr.spec.params.factor)), type, rr.spec.params.inv_freq, a * a});
    out.warnings = rr.spec.params.warnings;
    out.summary = spec_summary(rr, t);
    out.summary.push_back(
        t.tr("the curves are over the rotating channels (the pair layout does not change them); "
             "the original curve has a = 1"));
    return out;
  }
  const int dim = opt.dim.value_or(kDefaultDecayDim);
  check_dimension(dim);
  for (double base : bases) {
    check_base(base);
    sets.push_back({"base = " + format_number(base), "base=" + format_number(base), frequencies(dim, base)});
  }
  return out;
}

/// One curve per base: the values (the mean for Random) and, for Random, the standard deviation.
struct Curves {
  std::vector<Eigen::VectorXd> value;
  std::vector<Eigen::VectorXd> stddev;
};

/// `grid`: true_distances is the evenly spaced grid linspace(max_distance, points), which the bound
/// and the all-ones score then compute by the recurrence of decay_bound_linspace (no cos/sin per term).
Curves compute(const DecayOptions& opt, DecayKind kind, const std::vector<FrequencySet>& sets,
               const Eigen::VectorXd& true_distances, bool grid = false) {
  const Eigen::VectorXd distances = seen_distances(opt, true_distances);
  Curves c;
  for (const FrequencySet& set : sets) {
    const Eigen::VectorXd& theta = set.theta;
    const double w = opt.normalize ? 1.0 : set.weight;  // a² cancels in f(m)/f(0)
    switch (kind) {
      case DecayKind::Bound: {
        const double scale = opt.normalize ? decay_bound(theta, 0.0) : 1.0;
        const bool even = grid && !opt.log_x && !opt.rerope_window;  // then distances = linspace(…)
        c.value.push_back(
            w *
            (even ? decay_bound_linspace(theta, opt.max_distance, opt.point_count()) : decay_bound(theta, distances)) /
            scale);
        break;
      }
      case DecayKind::Ones: {
        const double scale = opt.normalize ? ones_score(theta, 0.0) : 1.0;
        const bool even = grid && !opt.log_x && !opt.rerope_window;  // as for the bound
        c.value.push_back(
            w *
            (even ? ones_score_linspace(theta, opt.max_distance, opt.point_count()) : ones_score(theta, distances)) /
            scale);
        break;
      }
      case DecayKind::Random: {
        RandomScores r = random_scores(theta, distances, opt.sample_count(), opt.seed_value());
        c.value.push_back(w * r.mean);
        c.stddev.push_back(w * r.stddev);
        break;
      }
    }
  }
  return c;
}

plot::Figure make_figure(const DecayOptions& opt, DecayKind kind, const std::vector<FrequencySet>& sets,
                         const Eigen::VectorXd& x, const Curves& c) {
  const FigureOptions& f = opt.figure;
  const auto d = 2 * sets.front().theta.size();
  plot::Figure fig;
  fig.xlabel = f.tr("relative distance m");
  fig.log_x = opt.log_x;
  fig.log_y = opt.log_y;
  switch (kind) {
    case DecayKind::Bound:
      fig.title = f.tr("RoFormer long-range decay bound, d = {0}", d);
      fig.ylabel = opt.normalize ? f.tr("f(m) / f(0)") : f.tr("bound f(m)");
      break;
    case DecayKind::Ones:
      fig.title = f.tr("score of q = k = all ones: 2·Σ cos(m·θᵢ), d = {0}", d);
      fig.ylabel = opt.normalize ? f.tr("score / d") : f.tr("score");
      break;
    case DecayKind::Random:
      fig.title = f.tr("random q, k ~ N(0, I): mean ± 1σ of <R_m q, k> over {0} pairs, d = {1}", opt.sample_count(), d);
      fig.ylabel = f.tr("score <R_m q, k>");
      fig.lines.push_back({plot::ReferenceLine::Axis::Y, 0.0, f.tr("expected value 0"), -1});
      break;
  }
  const std::string map = !opt.rerope_window ? ""
                          : opt.leaky_k      ? fmt::format(", Leaky ReRoPE w = {}, k = {}",
                                                           format_number(*opt.rerope_window), format_number(*opt.leaky_k))
                                             : fmt::format(", ReRoPE w = {}", format_number(*opt.rerope_window));
  for (std::size_t b = 0; b < sets.size(); ++b) {
    const std::string label = sets[b].label + map;
    const int color = static_cast<int>(b);
    if (kind == DecayKind::Random) {
      fig.bands.push_back({label + f.tr(": mean ± 1σ"), x, c.value[b] - c.stddev[b], c.value[b] + c.stddev[b], color});
      fig.series.push_back({label + f.tr(": mean"), x, c.value[b], color});
    } else {
      fig.series.push_back({label, x, c.value[b], color});
    }
  }
  return fig;
}

}  // namespace

int run_decay(const DecayOptions& opt, std::ostream& out) {
  const DecayKind kind = opt.kind;
  if (opt.base_values().size() > kMaxBases) {
    throw InvalidArgument(
        error_msg("at most {0} {1} values (got {2})", kMaxBases, option_name("base"), opt.base_values().size()));
  }
  if (opt.points && (*opt.points < 1 || *opt.points > kMaxPoints)) {
    throw InvalidArgument(
        error_msg("{0} must be between {1} and {2} (got {3})", option_name("points"), 1, kMaxPoints, *opt.points));
  }
  if (opt.max_distance < 0 || opt.max_distance > kMaxDistance) {
    throw InvalidArgument(error_msg("{0} must be between {1} and {2} (got {3})", option_name("max_distance"), 0,
                                    fmt::format("{:g}", kMaxDistance), format_number(opt.max_distance)));
  }
  if (!opt.points && !opt.log_x) {
    // Every integer distance 0 … max-distance: it must be a whole number, and their count a valid --points.
    if (opt.max_distance != std::floor(opt.max_distance)) {
      throw InvalidArgument(error_msg(
          "{0} must be a whole number when every integer distance is computed (got {1}); {2} N gives N evenly spaced, fractional distances",
          option_name("max_distance"), format_number(opt.max_distance), option_name("points")));
    }
    if (opt.max_distance + 1 > static_cast<double>(kMaxPoints)) {
      throw InvalidArgument(error_msg(
          "{0} {1} has more integer distances than the {2} points allowed: give {3} N for N evenly spaced distances",
          option_name("max_distance"), format_number(opt.max_distance), kMaxPoints, option_name("points")));
    }
  }
  if (opt.normalize && kind == DecayKind::Random) {
    throw InvalidArgument(error_msg("{0} does not apply to {1} random: its value at distance 0 is 0 in expectation",
                                    option_name("normalize"), option_name("kind")));
  }
  if (opt.log_x && (opt.point_count() < 2 || opt.max_distance <= 1)) {
    throw InvalidArgument(error_msg("{0} needs {1} >= 2 and {2} > 1 (got {3} and {4})", option_name("log_x"),
                                    option_name("points"), option_name("max_distance"), opt.point_count(),
                                    format_number(opt.max_distance)));
  }
  if ((opt.samples || opt.seed) && kind != DecayKind::Random) {
    throw InvalidArgument(error_msg("{0} and {1} apply to {2} {3} only (got {4} {5})", option_name("samples"),
                                    option_name("seed"), option_name("kind"), "random", option_name("kind"),
                                    to_string(kind)));
  }
  if (opt.rerope_window && *opt.rerope_window < 0) {
    throw InvalidArgument(
        error_msg("{0} must be >= {1} (got {2})", "--rerope W", 0, format_number(*opt.rerope_window)));
  }
  if (opt.leaky_k && *opt.leaky_k < 1) {
    throw InvalidArgument(error_msg("{0} must be >= {1} (got {2})", "--leaky-k K", 1, format_number(*opt.leaky_k)));
  }
  if (opt.log_y && kind != DecayKind::Bound) {
    throw InvalidArgument(error_msg("{0} needs positive values: only {1} bound has them (got {2} {3})",
                                    option_name("log_y"), option_name("kind"), option_name("kind"), to_string(kind)));
  }
  check_figure_options(opt.figure);
  if (opt.figure.animated() && (opt.scaling.any() || opt.xpos)) {
    throw InvalidArgument(error_msg("{0} sweeps the base: leave out {1}, {2}, {3} and {4}", option_name("gif"),
                                    option_name("scaling"), option_name("config"), option_name("model"),
                                    option_name("xpos")));
  }
  if (opt.xpos) return run_decay_xpos(opt, out);
  const ModelSets model = frequency_sets(opt);
  const std::vector<FrequencySet>& sets = model.sets;
  const std::vector<Message>& warnings = model.warnings;
  const auto d = 2 * sets.front().theta.size();
  const double columns = 1.0 + static_cast<double>(sets.size()) * (kind == DecayKind::Random ? 2 : 1);
  const long points = opt.point_count();
  if (static_cast<double>(points) * columns > kMaxCells) {
    throw InvalidArgument(error_msg(
        "{0} {1} × {2} columns is {3} values, over the limit of {4} (kMaxCells): use fewer points or fewer {5} values",
        option_name("points"), points, columns, fmt::format("{:g}", static_cast<double>(points) * columns),
        fmt::format("{:g}", kMaxCells), option_name("base")));
  }
  // The work of every curve drawn, the GIF's frames included, bounded before any of it is computed.
  const DecayPath path = kind == DecayKind::Random          ? DecayPath::Random
                         : !opt.log_x && !opt.rerope_window ? DecayPath::Recurrence
                         : kind == DecayKind::Ones          ? DecayPath::OnesDirect
                                                            : DecayPath::BoundDirect;
  check_decay_work(path, points, static_cast<long>(d / 2), kind == DecayKind::Random ? opt.sample_count() : 0,
                   static_cast<long>(sets.size()) + (opt.figure.animated() ? opt.figure.frame_count() : 0));
  // linspace(L, L + 1) is exactly 0, 1, …, L (k·(L/L) = k).
  const Eigen::VectorXd distances = opt.log_x ? logspace(opt.max_distance, points) : linspace(opt.max_distance, points);
  const Curves curves = compute(opt, kind, sets, distances, true);

  Table table{{"distance"}, {distances}};
  for (std::size_t b = 0; b < sets.size(); ++b) {
    if (kind == DecayKind::Random) {
      table.header.push_back(sets[b].column + "_mean");
      table.columns.push_back(curves.value[b]);
      table.header.push_back(sets[b].column + "_sd");
      table.columns.push_back(curves.stddev[b]);
    } else {
      table.header.push_back(sets[b].column);
      table.columns.push_back(curves.value[b]);
    }
  }
  if (!opt.csv.empty()) write_output(opt.csv, table, out);
  draw(make_figure(opt, kind, sets, distances, curves), opt.figure);
  if (opt.figure.animated()) {
    // The base sweeps geometrically: from the smallest to the largest --base, or 100 … 10^6 for one.
    const std::vector<double> given = opt.base_values();
    const auto [lo, hi] = std::minmax_element(given.begin(), given.end());
    const bool one = given.size() == 1;
    std::vector<plot::Figure> frames;
    for (const double b : motion::geometric_sweep(one ? 100.0 : *lo, one ? 1e6 : *hi, opt.figure.frame_count())) {
      const std::vector<FrequencySet> set{
          {"base = " + format_number(std::round(b)), "", frequencies(static_cast<int>(d), b)}};
      frames.push_back(make_figure(opt, kind, set, distances, compute(opt, kind, set, distances, true)));
    }
    share_y_range(frames);
    draw_animation(std::move(frames), opt.figure);
  }
  if (opt.csv == "-") return kOk;

  const Text t = opt.figure.tr();
  switch (kind) {
    case DecayKind::Bound:
      out << t.tr("RoFormer long-range decay bound, d = {0} (docs/math.md (M11)):\n", d);
      out << "  f(m) = (1/(d/2)) Σ_j |Σ_{i≤j} e^(i·m·θ_i)|, f(0) = (d/2 + 1)/2\n";
      out << t.tr(
          "  an upper bound on the relative size of the score, not an attention score: for random\n"
          "  zero-mean q and k the expected score is 0 at every distance (--kind random)\n");
      break;
    case DecayKind::Ones:
      out << t.tr("score of q = k = all ones, d = {0} (docs/math.md (M14)): 2·Σ_i cos(m·θ_i), {1} at m = 0\n", d, d);
      out << t.tr("  the decaying curve many explainers show; it is one special pair, not the typical score\n");
      break;
    case DecayKind::Random:
      out << t.tr("score <R_m q, k> of {0} random pairs q, k ~ N(0, I), d = {1}, seed {2} (docs/math.md (M15)):\n",
                  opt.sample_count(), d, opt.seed_value());
      out << t.tr("  mean and standard deviation; expected mean 0 and standard deviation √d = {0:.4g} at every m\n",
                  std::sqrt(static_cast<double>(d)));
      break;
  }
  print_summary(out, model.summary);
  if (opt.normalize) out << t.tr("  normalized: divided by the value at distance 0\n");
  if (opt.rerope_window) {
    const std::string w = format_number(*opt.rerope_window);
    out << t.tr("  position map: the model sees g(m) = {0} (docs/scaling.md {1})\n",
                opt.leaky_k ? t.tr("m up to {0}, then {0} + (m − {0})/{1}", w, format_number(*opt.leaky_k))
                            : fmt::format("min(m, {})", w),
                opt.leaky_k ? "(S17), Leaky ReRoPE" : "(S16), ReRoPE");
  }
  out << '\n';

  // A summary at round distances 0 (or 1 on a log grid), 1, 2, 5, 10, … and the largest, evaluated
  // directly with the same draws; the full grid is in the CSV.
  std::vector<double> shown{opt.log_x ? 1.0 : 0.0};
  for (double decade = 1; decade <= opt.max_distance; decade *= 10) {
    for (double step : {1.0, 2.0, 5.0}) {
      if (step * decade < opt.max_distance && step * decade > shown.front()) shown.push_back(step * decade);
    }
  }
  if (opt.max_distance > shown.front()) shown.push_back(opt.max_distance);
  const Eigen::VectorXd at = Eigen::Map<const Eigen::VectorXd>(shown.data(), static_cast<Eigen::Index>(shown.size()));
  const Curves summary = compute(opt, kind, sets, at);
  std::string header = fmt::format("{:>12}", t.tr("distance m"));
  for (const FrequencySet& set : sets) {
    header += kind == DecayKind::Random ? fmt::format("  {:>26}", set.column + t.tr(" mean ± sd"))
                                        : fmt::format("  {:>14}", set.column);
  }
  out << header << '\n';
  for (Eigen::Index r = 0; r < at.size(); ++r) {
    std::string line = fmt::format("{:>12}", format_number(at[r]));
    for (std::size_t b = 0; b < sets.size(); ++b) {
      line += kind == DecayKind::Random
                  ? fmt::format("  {:>26}", fmt::format("{} ± {}", with_digits(summary.value[b][r], kTableDigits),
                                                        with_digits(summary.stddev[b][r], kTableDigits)))
                  : fmt::format("  {:>14}", with_digits(summary.value[b][r], kTableDigits));
    }
    out << line << '\n';
  }
  if (opt.csv.empty()) {
    if (opt.integer_distances()) {
      out << t.tr("(every integer distance from 0 to {0}, {1} points: --csv FILE)\n", format_number(opt.max_distance),
                  points);
    } else {
      out << t.tr("(the {0} {1} points from {2} to {3}: --csv FILE)\n", points,
                  opt.log_x ? t.tr("log-spaced") : t.tr("evenly spaced"), opt.log_x ? 1 : 0,
                  format_number(opt.max_distance));
    }
  }
  for (const auto& w : warnings) out << t.tr("warning: ") << w.in(t.lang()) << '\n';
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
