// The printers of every layer checked in one run (check_layers_report.hpp).
#include "rope/report/check_layers_report.hpp"

#include <fmt/format.h>

#include "rope/io/csv.hpp"
#include "rope/report/check_report.hpp"
#include "rope/report/json.hpp"
#include "rope/report/printing.hpp"
#include "rope/report/text.hpp"

namespace rope {

namespace {

/// The RoPE a layer was checked against, in a few words: "half, base 10000, yarn: factor 4, layer type sliding".
std::string layer_spec_text(const CheckRun& run, const Text& t) {
  const RopeExpectation& e = run.expected;
  std::string s = t.tr("{0}, base {1}, d {2}", to_string(e.rope.layout), format_number(e.base()), e.rotary_dim());
  if (!e.scaling.empty() && e.scaling != "default") s += t.tr(", {0}", e.scaling);
  if (!run.layer_type.empty()) s += t.tr(", layer type {0}", run.layer_type);
  return s;
}

}  // namespace

Value check_layers_value(const CheckLayersRun& run) {
  Value v = Value::object();
  v["before"] = run.before_file;
  v["after"] = run.after_file;
  v["before_tensor"] = run.before_pattern;
  v["after_tensor"] = run.after_pattern;
  v["passed"] = run.passed();
  Value layers = Value::array();
  for (const CheckedLayer& l : run.layers) {
    Value one = check_value(l.run);
    one["before_tensor"] = l.before_tensor;
    one["after_tensor"] = l.after_tensor;
    if (l.run.k) {  // `passed` is q's (check_value), `k` k's; the layer's own verdict beside them
      one["k_before_tensor"] = l.k_before_tensor;
      one["k_after_tensor"] = l.k_after_tensor;
      one["all_passed"] = l.run.all_passed();
    }
    layers.push_back(std::move(one));
  }
  v["layers"] = std::move(layers);
  return v;
}

void print_check_layers(std::ostream& out, const CheckLayersRun& run, const Text& t, const std::optional<int>& digits) {
  long failing = 0;
  for (const CheckedLayer& l : run.layers) failing += l.run.all_passed() ? 0 : 1;
  out << t.tr("rope check: {0} layers of {1} ({2}) against {3} ({4}): {5} pass, {6} fail, the worst first\n",
              run.layers.size(), run.after_file, run.after_pattern, run.before_file, run.before_pattern,
              static_cast<long>(run.layers.size()) - failing, failing);
  const auto verdict = [&](bool passed) { return passed ? t.tr("PASS") : t.trc("check verdict", "FAIL"); };
  for (const CheckedLayer& l : run.layers) {
    // Each tensor's row in its own names, verdict and ratio: q's, then k's and the pair's where k was checked.
    out << "  " << pad(verdict(l.run.k ? l.run.passed() : l.run.all_passed()), 6) << l.before_tensor;
    if (l.after_tensor != l.before_tensor) out << " → " << l.after_tensor;
    out << t.tr("  max |Δ|/tolerance {0}  ({1})\n", fmt::format("{:.4g}", l.run.report.comparison.max_ratio),
                layer_spec_text(l.run, t));
    if (!l.run.k) continue;
    out << "  " << pad(verdict(l.run.k->passed()), 6) << l.k_before_tensor;
    if (l.k_after_tensor != l.k_before_tensor) out << " → " << l.k_after_tensor;
    out << t.tr("  max |Δ|/tolerance {0}\n", fmt::format("{:.4g}", l.run.k->report.comparison.max_ratio));
    if (l.run.pair) {
      out << "  " << pad(verdict(l.run.pair->passed()), 6)
          << t.tr("the pair of {0} and {1}: ⟨R_m q, R_n k⟩ = qᵀ R_(n−m) k\n", l.before_tensor, l.k_before_tensor);
    }
  }
  if (failing > 0) {
    const CheckedLayer& worst = run.layers.front();
    out << '\n' << t.tr("the worst layer, {0}, in full:\n", worst.before_tensor);
    print_check(out, worst.run, t, digits);
  }
}

}  // namespace rope
