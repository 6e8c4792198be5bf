// The printers of rope weights' report (weights_report.hpp).
#include "rope/report/weights_report.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <sstream>

#include "rope/models/layout_term.hpp"
#include "rope/report/digits.hpp"
#include "rope/report/json.hpp"
#include "rope/report/printing.hpp"
#include "rope/report/text.hpp"

namespace rope {

namespace {

std::string weights_map_name(WeightMap m) { return std::string(to_string(m)); }

Value weights_side_value(const WeightSide& s) {
  Value v;
  v["path"] = s.path;
  v["format"] = s.gguf ? "gguf" : "safetensors";
  v["config"] = s.config;
  v["config_borrowed"] = s.config_borrowed;
  v["model"] = s.model;
  v["layout"] = std::string(to_string(s.layout));
  v["n_head"] = s.n_head;
  v["n_head_kv"] = s.n_head_kv;
  v["dtypes"] = s.dtypes;
  return v;
}

/// The map compactly: the first head block's order, relative to the block, when every block has the same; else
/// the first 32 rows.
std::string compact_map(const WeightsTensor& t) {
  const std::vector<long>& o = t.match.order;
  const long d = t.rows / t.heads;
  bool same = true;
  for (long r = 0; r < t.rows && same; ++r) {
    same = o[static_cast<std::size_t>(r)] - (r / d) * d == o[static_cast<std::size_t>(r % d)];
  }
  const long shown = std::min<long>(same ? d : t.rows, 32);
  std::string text;
  for (long r = 0; r < shown; ++r) text += (r ? " " : "") + std::to_string(o[static_cast<std::size_t>(r)]);
  if (shown < (same ? d : t.rows)) text += " …";
  return text;
}

std::string weights_side_line(const WeightSide& s, const Text& t) {
  const std::string kind =
      s.gguf ? t.tr("GGUF, architecture {0}", s.model) : t.tr("safetensors, model_type {0}", s.model);
  std::string types;
  const char* comma = t.lang() == Lang::Zh ? "、" : ", ";  // the enumeration comma of Chinese prose
  for (const std::string& d : s.dtypes) types += (types.empty() ? "" : comma) + d;
  std::string line = t.tr("{0} ({1}; {2}), {3} ({4}); {5} query heads, {6} KV heads", s.path, kind, types,
                          layout_term(s.layout).in(t.lang()), s.layout_reason.in(t.lang()), s.n_head, s.n_head_kv);
  if (s.config_borrowed) line += t.tr("; the model read from {0}", s.config);
  return line;
}

std::string residual_text(double x, int digits) {
  if (std::isnan(x)) return "—";
  return sci_with_digits(x, digits);
}

}  // namespace

Value weights_value(const WeightsRun& run) {
  Value v;
  v["reference"] = weights_side_value(run.reference);
  v["candidate"] = weights_side_value(run.candidate);
  v["expected"] = weights_map_name(run.expected);
  Value list = Value::array();
  for (const WeightsTensor& t : run.tensors) {
    Value e;
    e["name"] = t.name;
    e["reference_name"] = t.reference_name;
    e["layer"] = t.layer;
    e["kind"] = std::string(1, t.kind);
    e["bias"] = t.bias;
    e["map"] = weights_map_name(t.match.map);
    Value same = Value::array();
    for (WeightMap m : t.match.same_as) same.push_back(weights_map_name(m));
    e["same_as"] = same;
    e["expected"] = weights_map_name(t.expected);
    e["ok"] = t.ok();
    e["residual"] = t.match.residual;
    e["runner_up"] = t.match.runner_up ? Value(weights_map_name(*t.match.runner_up)) : Value();
    e["runner_up_residual"] = t.match.runner_up ? Value(t.match.runner_up_residual) : Value();
    e["exact"] = t.match.exact;
    e["explained"] = t.match.explained;
    e["heads"] = t.heads;
    e["rows"] = t.rows;
    e["dtype"] = t.candidate_dtype;
    e["reference_dtype"] = t.reference_dtype;
    if (t.match.map == WeightMap::Unknown) e["order"] = t.match.order;
    list.push_back(std::move(e));
  }
  v["tensors"] = list;
  v["other_tensors"] = run.other_tensors;
  v["passed"] = run.passed();
  return v;
}

void print_weights(std::ostream& out, const WeightsRun& run, const Text& t, const std::optional<int>& digits,
                   bool wide) {
  std::ostringstream o;  // broken at 100 columns at the end (wrap_lines)
  o << t.tr("rope weights: the q/k row permutation from the reference to the candidate\n");
  o << t.tr("  reference: {0}\n", weights_side_line(run.reference, t));
  o << t.tr("  candidate: {0}\n", weights_side_line(run.candidate, t));
  o << t.tr("  the candidate's engine expects: {0}\n\n", weights_map_name(run.expected));
  const int n = digits ? (*digits == 0 ? 17 : *digits) : 2;
  std::size_t name_width = columns(t.tr("tensor")), map_width = columns(t.tr("map"));
  std::size_t runner_width = columns(t.tr("runner-up")), residual_width = columns(t.tr("residual"));
  const auto verdict = [&t](const WeightsTensor& w) {
    return w.ok() ? t.tr("ok") : !w.match.explained ? t.tr("unexplained") : t.tr("wrong");
  };
  std::size_t verdict_width = 0;
  for (const WeightsTensor& w : run.tensors) {
    verdict_width = std::max(verdict_width, columns(verdict(w)));
    name_width = std::max(name_width, columns(w.name));
    map_width = std::max(map_width, columns(weights_map_name(w.match.map)));
    if (w.match.runner_up) runner_width = std::max(runner_width, columns(weights_map_name(*w.match.runner_up)));
    residual_width = std::max({residual_width, columns(residual_text(w.match.residual, n)),
                               columns(residual_text(w.match.runner_up_residual, n))});
  }
  // A row fits the reports' 100 columns: a name longer than the columns the others leave is shortened in its
  // middle (its layer at the start, its kind at the end stay); --wide and --json keep it whole.
  const std::size_t others = map_width + 2 + residual_width + 2 + runner_width + 2 + residual_width + 2 + verdict_width;
  constexpr std::size_t kShortestName = 16;
  if (!wide && name_width + 2 + others > kProjectorColumns)
    name_width = std::max(kShortestName, kProjectorColumns - std::min(kProjectorColumns, others + 2));
  std::ostringstream table;  // the rows: not broken with --wide
  table << pad(t.tr("tensor"), name_width + 2) << pad(t.tr("map"), map_width + 2)
        << pad(t.tr("residual"), residual_width + 2) << pad(t.tr("runner-up"), runner_width + 2) << t.tr("residual")
        << "\n";
  long failed = 0;
  for (const WeightsTensor& w : run.tensors) {
    if (!w.ok()) ++failed;
    const std::string runner = w.match.runner_up ? weights_map_name(*w.match.runner_up) : "—";
    table << pad(wide ? w.name : shorten_middle(w.name, name_width), name_width + 2)
          << pad(weights_map_name(w.match.map), map_width + 2)
          << pad(residual_text(w.match.residual, n), residual_width + 2) << pad(runner, runner_width + 2)
          << pad(residual_text(w.match.runner_up_residual, n), residual_width + 2) << verdict(w) << "\n";
  }
  out << wrap_lines(o.str()) << (wide ? table.str() : wrap_lines(table.str()));
  o.str("");
  o << "\n";
  std::vector<std::string> coincide;  // "hf-to-gguf = gguf-to-hf", once each
  for (const WeightsTensor& w : run.tensors) {
    if (w.match.same_as.empty()) continue;
    std::string names = weights_map_name(w.match.map);
    for (WeightMap m : w.match.same_as) names += " = " + weights_map_name(m);
    if (std::find(coincide.begin(), coincide.end(), names) != coincide.end()) continue;
    coincide.push_back(names);
    o << t.tr(
        "  {0}: at this shape (head block of {1} rows) these maps are one permutation; the name shown is the "
        "expected one if it is among them, else the simplest\n",
        names, w.rows / w.heads);
  }
  for (const WeightsTensor& w : run.tensors) {
    if (w.match.map == WeightMap::Unknown) {
      o << t.tr("  {0}: candidate row r holds reference row (head block 0, or the first rows): {1}\n", w.name,
                compact_map(w));
    }
  }
  for (const WeightsTensor& w : run.tensors) {
    if (w.match.explained) continue;
    if (!(w.match.residual <= kWeightResidualBound)) {
      o << t.tr(
          "  {0}: the best map leaves a residual of {1}, above the bound {2}: the candidate's rows are not a "
          "permutation of the reference's, and no map is named\n",
          w.name, residual_text(w.match.residual, n), kWeightResidualBound);
    } else {
      o << t.tr(
          "  {0}: the best map's residual {1} is not under {2} × the runner-up's ({3}): these rows do not tell the "
          "maps apart, and no map is named\n",
          w.name, residual_text(w.match.residual, n), kWeightRunnerUpMargin,
          residual_text(w.match.runner_up_residual, n));
    }
  }
  if (failed == 0) {
    o << t.tr(
        "every q/k tensor ({0}) has the permutation the candidate's engine expects; {1} other tensors left alone\n",
        run.tensors.size(), run.other_tensors);
  } else {
    o << t.tr("{0} of {1} q/k tensors are not what the candidate's engine expects ({2} other tensors left alone):\n",
              failed, run.tensors.size(), run.other_tensors);
    std::vector<WeightMap> said;
    for (const WeightsTensor& w : run.tensors) {
      if (w.ok() || !w.match.explained || std::find(said.begin(), said.end(), w.match.map) != said.end()) continue;
      said.push_back(w.match.map);
      const WeightMapRow* row = find_weight_map(w.match.map);
      o << t.tr("  {0}: {1}\n", weights_map_name(w.match.map),
                row ? row->message.in(t.lang()) : t.tr("a permutation outside the catalog (the map is printed above)"));
    }
    o << t.tr("WEIGHTS CHECK FAILED\n");
  }
  out << wrap_lines(o.str());
}

plot::Figure weights_figure(const WeightsRun& run, const Text& t) {
  plot::Figure fig;
  fig.title = t.tr("{0}, head {1}: row correlation, candidate against reference", run.heatmap_tensor, run.heatmap_head);
  fig.xlabel = t.tr("reference row (in the head block)");
  fig.ylabel = t.tr("candidate row (in the head block)");
  plot::Heatmap h;
  h.z = *run.heatmap;
  h.rows_downward = true;
  h.colorbar_label = t.tr("normalised correlation");
  fig.heatmap = h;
  return fig;
}

}  // namespace rope
