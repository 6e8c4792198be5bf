// The printers of rope wavelengths (wavelengths_report.hpp).
#include "rope/report/wavelengths_report.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "rope/io/csv.hpp"
#include "rope/report/digits.hpp"
#include "rope/report/json.hpp"
#include "rope/report/printing.hpp"
#include "rope/report/rope_text.hpp"
#include "rope/report/text.hpp"

namespace rope {

Value wavelengths_value(const WavelengthsRun& run) {
  const int half = run.dim / 2;
  Value v = Value::object();
  v["dim"] = run.dim;
  v["pairs"] = half;
  v["model"] = run.model ? Value(run.model->name) : Value();
  Value curves = Value::array();
  for (const WavelengthsCurve& c : run.curves) {
    Value one = Value::object();
    one["name"] = c.name.in(Lang::En);
    one["column"] = c.column;
    one["wavelength"] = std::vector<double>(c.lambda.data(), c.lambda.data() + c.lambda.size());
    curves.push_back(one);
  }
  v["curves"] = curves;
  Value contexts = Value::array();
  for (std::size_t k = 0; k < run.contexts.size(); ++k) {
    Value one = Value::object();
    one["context"] = run.contexts[k];
    Value per = Value::array();
    for (std::size_t c = 0; c < run.curves.size(); ++c) {
      const auto first = static_cast<int>(run.first_beyond[k][c]);
      Value p = Value::object();
      p["column"] = run.curves[c].column;
      p["first_pair_beyond"] = first;
      p["pairs_beyond"] = half - first;
      p["critical_dimension"] = 2 * first;
      per.push_back(p);
    }
    one["curves"] = per;
    contexts.push_back(one);
  }
  v["contexts"] = contexts;
  Value warnings = Value::array();
  for (const Message& w : run.warnings) warnings.push_back(w.in(Lang::En));
  v["warnings"] = warnings;
  if (run.fope_kept) {  // FoPE: the pairs that keep their θ (mixed by the coefficients) and the padded ones
    Value& f = v["fope"];
    f["kept"] = *run.fope_kept;
    f["padded"] = half - *run.fope_kept;
  }
  return v;
}

std::string wavelengths_csv(const WavelengthsRun& run) {
  const int half = run.dim / 2;
  Eigen::VectorXd pairs(half);
  for (int i = 0; i < half; ++i) pairs[i] = i;
  Table table{{"pair"}, {pairs}};
  for (const WavelengthsCurve& c : run.curves) {
    table.header.push_back(c.column);
    table.columns.push_back(c.lambda);
  }
  return to_csv(table);
}

std::string wavelengths_model(const WavelengthsRun& run, const Text& t) {
  return run.model ? run.model->name + layer_text(*run.model, t) : "";
}

std::string wavelengths_context_text(const WavelengthsRun& run, std::size_t k, std::size_t ci, const Text& t) {
  const int half = run.dim / 2;
  const double L = run.contexts.at(k);
  const WavelengthsCurve& c = run.curves.at(ci);
  // The curves' CSV column names, but "original" in the language of the output.
  const std::string shown = c.column == "original" ? t.tr("original") : c.column;
  const Eigen::Index first = run.first_beyond[k][ci];
  if (first == half) return t.tr("context {0}, {1}: every pair completes a full turn within it\n", readable(L), shown);
  // Named by its frequencies when a model has two sets, as `rope inspect` names them.
  const std::string set = !run.scaled_pair ? ""
                          : ci == 0        ? t.tr(" of the original frequencies")
                                           : t.tr(" of the scaled frequencies");
  if (first == half - 1) {  // one pair: "completes", not "complete"
    return t.tr(
        "context {0}, {1}: pair {2} (1 of {3}) never completes a turn within it;\n  critical dimension {4}{5} "
        "(M16)\n",
        readable(L), shown, first, half, 2 * first, set);
  }
  return t.tr(
      "context {0}, {1}: {2} ({3} of {4}) never complete a turn within it;\n  critical dimension {5}{6} (M16)\n",
      readable(L), shown, t.tr("pairs {0} … {1}", first, half - 1), half - first, half, 2 * first, set);
}

void print_wavelengths(std::ostream& out, const WavelengthsRun& run, const Text& t) {
  const int dim = run.dim;
  const int half = dim / 2;
  const std::vector<WavelengthsCurve>& curves = run.curves;
  if (run.vision) {
    // Not base^(2i/d): each axis has its own ladder, so the table's λ_i start again at the other axis's first pair.
    out << t.tr("wavelengths λ_i = 2π/θ_i of a 2-D vision RoPE ({0}), d = {1} (docs/multi-axis.md §6):\n",
                run.vision->axes->vision_kind, dim);
    print_axis_summary(out, *run.vision->axes, run.vision->params.inv_freq, t.lang());
    out << '\n';
  } else {
    out << t.tr("RoPE wavelengths λ_i = 2π/θ_i = 2π·base^(2i/d), d = {0} (docs/math.md (M2)):\n", dim);
    out << t.tr("  pair 0 turns once every 2π ≈ 6.28 positions (high frequency); the last pair turns slowest\n\n");
  }
  std::string header = fmt::format("{:>5}", "i");
  for (const WavelengthsCurve& c : curves) {  // right-aligned by terminal columns: a Chinese header is wider
    const std::string name = c.column == "original" ? t.tr("λ_i original") : "λ_i " + c.column;
    header += "  " + std::string(22 - std::min<std::size_t>(22, columns(name)), ' ') + name;
  }
  out << header << (run.fope_kept ? "  FoPE" : "") << '\n';
  for (int i = 0; i < half; ++i) {
    std::string line = fmt::format("{:>5}", i);
    for (const WavelengthsCurve& c : curves) {
      line += fmt::format("  {:>22}", std::isfinite(c.lambda[i]) ? readable(c.lambda[i]) : t.tr("inf (not rotated)"));
    }
    if (run.fope_kept) line += "  " + fope_pair_cell(*run.fope_kept, i, t);
    out << line << '\n';
  }
  for (std::size_t k = 0; k < run.contexts.size(); ++k) {
    out << '\n';
    for (std::size_t c = 0; c < curves.size(); ++c) out << wavelengths_context_text(run, k, c, t);
  }
  if (run.fope_kept) out << '\n' << t.tr("note: ") << fope_pairs_note(*run.fope_kept, half, t) << '\n';
  for (const auto& w : run.warnings) out << t.tr("warning: ") << w.in(t.lang()) << '\n';
}

}  // namespace rope
