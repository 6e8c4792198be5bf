// The printers of rope decay (decay_report.hpp): the text and the figure of the bound or the scores.
#include "rope/report/printing.hpp"
#include "rope/report/decay_report.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <string>

#include "rope/report/digits.hpp"
#include "rope/report/json.hpp"
#include "rope/report/model_text.hpp"
#include "rope/report/text.hpp"

namespace rope {

namespace {

/// The model's lines: its spec and what the curves are over (none for plain RoPE).
std::vector<std::string> model_summary(const DecayRun& run, const Text& t) {
  if (!run.request.model) return {};
  std::vector<std::string> lines = spec_summary(*run.request.model, t);
  lines.push_back(
      t.tr("the curves are over the rotating channels (the pair layout does not change them); "
           "the original curve has a = 1"));
  return lines;
}

plot::Figure make_figure(const DecayRequest& opt, int d, const std::vector<DecaySet>& sets, const Eigen::VectorXd& x,
                         const DecayCurves& c, const Text& f) {
  const DecayKind kind = opt.kind;
  plot::Figure fig;
  fig.xlabel = f.tr("relative distance m");
  fig.log_x = opt.log_x;
  fig.log_y = opt.log_y;
  switch (kind) {
    case DecayKind::Bound:
      // Its subtitle in the title: what the curve is not. The y axis from 0: from its lowest value the curve
      // would look steeper than it is.
      fig.title = f.tr("RoFormer long-range decay bound, d = {0}: an upper bound, not a score", d);
      fig.ylabel = opt.normalize ? f.tr("f(m) / f(0)") : f.tr("bound f(m)");
      if (!opt.log_y) {
        double top = 0.0;
        for (const Eigen::VectorXd& v : c.value) top = v.size() > 0 ? std::max(top, v.maxCoeff()) : top;
        if (top > 0.0) fig.yrange = std::pair{0.0, 1.05 * top};
      }
      break;
    case DecayKind::Ones:
      fig.title = f.tr("score of q = k = all ones: 2·Σ cos(m·θᵢ), d = {0}", d);
      fig.ylabel = opt.normalize ? f.tr("score / d") : f.tr("score");
      break;
    case DecayKind::Random:
      fig.title = f.tr("random q, k ~ N(0, I): mean ± 1σ of ⟨Rₘ q, k⟩ over {0} pairs, d = {1}", opt.sample_count(), d);
      fig.ylabel = f.tr("score ⟨Rₘ q, k⟩");
      fig.lines.push_back({plot::ReferenceLine::Axis::Y, 0.0, f.tr("expected value 0"), -1});
      break;
  }
  const std::string map = !opt.rerope_window ? ""
                          : opt.leaky_k      ? fmt::format(", Leaky ReRoPE w = {}, k = {}",
                                                           format_number(*opt.rerope_window), format_number(*opt.leaky_k))
                                             : fmt::format(", ReRoPE w = {}", format_number(*opt.rerope_window));
  for (std::size_t b = 0; b < sets.size(); ++b) {
    const std::string label = sets[b].label.in(f.lang()) + map;
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

Value decay_value(const DecayRun& run) {
  const DecayRequest& opt = run.request;
  Value v = Value::object();
  v["kind"] = to_string(opt.kind);
  v["dim"] = run.dim;
  v["max_distance"] = opt.max_distance;
  v["points"] = opt.point_count();
  v["log_x"] = opt.log_x;
  v["normalized"] = opt.normalize;
  v["rerope_window"] = opt.rerope_window;
  v["leaky_k"] = opt.leaky_k;
  if (opt.kind == DecayKind::Random) {
    v["samples"] = opt.sample_count();
    v["seed"] = opt.seed_value();
  }
  v["model_summary"] = model_summary(run, Text(Lang::En));
  Value warnings = Value::array();
  for (const Message& w : run.warnings) warnings.push_back(w.en);
  v["warnings"] = std::move(warnings);
  v["distances"] = as_list(run.shown);
  Value curves = Value::array();
  for (std::size_t b = 0; b < run.sets.size(); ++b) {
    Value c = Value::object();
    c["name"] = run.sets[b].column;
    c["label"] = run.sets[b].label.en;
    c["weight"] = opt.normalize ? 1.0 : run.sets[b].weight;
    if (opt.kind == DecayKind::Random) {
      c["mean"] = as_list(run.summary.value[b]);
      c["sd"] = as_list(run.summary.stddev[b]);
    } else {
      c["values"] = as_list(run.summary.value[b]);
    }
    curves.push_back(std::move(c));
  }
  v["curves"] = std::move(curves);
  return v;
}

Table decay_table(const DecayRun& run) {
  Table table{{"distance"}, {}, {&run.distances}};  // the run's own vectors, not copies
  for (std::size_t b = 0; b < run.sets.size(); ++b) {
    if (run.request.kind == DecayKind::Random) {
      table.header.push_back(run.sets[b].column + "_mean");
      table.views.push_back(&run.curves.value[b]);
      table.header.push_back(run.sets[b].column + "_sd");
      table.views.push_back(&run.curves.stddev[b]);
    } else {
      table.header.push_back(run.sets[b].column);
      table.views.push_back(&run.curves.value[b]);
    }
  }
  return table;
}

void print_decay(std::ostream& out, const DecayRun& run, const Text& t) {
  const DecayRequest& opt = run.request;
  const DecayKind kind = opt.kind;
  const int d = run.dim;
  const std::vector<DecaySet>& sets = run.sets;
  const long points = opt.point_count();
  switch (kind) {
    case DecayKind::Bound:
      out << t.tr("RoFormer long-range decay bound, d = {0} (docs/math.md (M11)):\n", d);
      out << "  f(m) = (1/(d/2)) Σ_j |Σ_{i≤j} e^(i·m·θ_i)|, f(0) = (d/2 + 1)/2\n";
      out << t.tr(
          "  an upper bound on the relative size of the score, not an attention score: for random\n"
          "  zero-mean q and k the expected score is 0 at every distance ({0} random)\n",
          option_name("kind"));
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
  print_summary(out, model_summary(run, t));
  if (opt.normalize) out << t.tr("  normalized: divided by the value at distance 0\n");
  if (opt.rerope_window) {
    const std::string w = format_number(*opt.rerope_window);
    out << t.tr("  position map: the model sees g(m) = {0} (docs/scaling.md {1})\n",
                opt.leaky_k ? t.tr("m up to {0}, then {0} + (m − {0})/{1}", w, format_number(*opt.leaky_k))
                            : fmt::format("min(m, {})", w),
                opt.leaky_k ? "(S17), Leaky ReRoPE" : "(S16), ReRoPE");
  }
  out << '\n';

  const Eigen::VectorXd& at = run.shown;
  const DecayCurves& summary = run.summary;
  std::string header = fmt::format("{:>12}", t.tr("distance m"));
  for (const DecaySet& set : sets) {
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
  if (!opt.csv) {
    if (opt.integer_distances()) {
      out << t.tr("(every integer distance from 0 to {0}, {1} points: {2} FILE)\n", format_number(opt.max_distance),
                  points, option_name("csv"));
    } else {
      out << t.tr("(the {0} {1} points from {2} to {3}: {4} FILE)\n", points,
                  opt.log_x ? t.tr("log-spaced") : t.tr("evenly spaced"), opt.log_x ? 1 : 0,
                  format_number(opt.max_distance), option_name("csv"));
    }
  }
  for (const auto& w : run.warnings) out << t.tr("warning: ") << w.in(t.lang()) << '\n';
}

plot::Figure decay_figure(const DecayRun& run, const Text& t) {
  return make_figure(run.request, run.dim, run.sets, run.distances, run.curves, t);
}

std::vector<plot::Figure> decay_frames(const DecayRun& run, const Text& t) {
  std::vector<plot::Figure> frames;
  for (const DecayFrame& frame : run.frames)
    frames.push_back(make_figure(run.request, run.dim, frame.sets, run.distances, frame.curves, t));
  return frames;
}

}  // namespace rope
