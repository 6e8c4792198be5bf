// The printers of a cos/sin table against a model (table_model_report.hpp).
#include "rope/report/table_model_report.hpp"

#include <fmt/format.h>
#include <sstream>
#include <string>

#include "rope/analysis/check/angle_error.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/dtype.hpp"
#include "rope/io/csv.hpp"
#include "rope/io/tensor_file.hpp"
#include "rope/report/model_text.hpp"
#include "rope/report/printing.hpp"
#include "rope/report/text.hpp"

namespace rope {
Value table_model_value(const TableModelRun& run) {
  const RopeExpectation& e = run.expected;
  Value v = Value::object();
  v["passed"] = run.passed();
  Value table = Value::object();
  table["name"] = run.table.name;
  Value shape = Value::array();
  for (long x : run.table.shape) shape.push_back(x);
  table["shape"] = std::move(shape);
  table["form"] = to_string(run.table.form);
  table["dtype"] = std::string(to_string(run.table.type));
  table["cache"] = run.table.cache;
  table["per_token"] = run.table.per_token;
  table["rotary_dim"] = 2 * run.table.half;
  v["table"] = std::move(table);
  v["model"] = run.model.spec.name;
  v["base"] = e.base();
  v["scaling"] = e.scaling;
  v["rotary_dim"] = e.rotary_dim();
  v["head_dim"] = run.model.spec.head_dim;
  v["attention_factor"] = e.attention_factor();
  v["angles"] = std::string(to_string(run.angles));
  v["seq_len"] = run.seq_len;
  v["positions"] = run.positions;
  v["compared"] = run.compared;
  v["failed"] = run.failed;
  Value worst = Value::object();
  worst["ratio"] = run.worst;
  worst["position"] = run.worst_position;
  worst["pair"] = run.worst_pair;
  v["worst"] = std::move(worst);
  v["magnitude"] = run.magnitude;
  v["measured_base"] = run.measured_base;
  Value theta = Value::array();
  for (Eigen::Index i = 0; i < run.measured_theta.size(); ++i) theta.push_back(run.measured_theta[i]);
  v["measured_theta"] = std::move(theta);
  Value findings = Value::array();
  for (const TableFinding& f : run.findings) {
    Value x = Value::object();
    x["name"] = f.name;
    x["message"] = f.says.en;
    findings.push_back(std::move(x));
  }
  v["findings"] = std::move(findings);
  return v;
}

void print_table_model(std::ostream& out, const TableModelRun& run, const Text& t) {
  const GivenTable& g = run.table;
  const RopeExpectation& e = run.expected;
  std::ostringstream text;
  text << t.tr("the table {0} {1} ({2} form{3}, {4}): {5} pairs a row, against {6}\n", g.name, shape_string(g.shape),
               to_string(g.form), g.cache ? t.tr(", cos then sin") : "", to_string(g.type), g.half,
               run.model.spec.name);
  for (const std::string& line : spec_summary(run.model, t)) text << "  " << line << "\n";
  const auto row = [&](const std::string& name, const std::string& value) {
    text << "  " << pad(name, 16) << value << "\n";
  };
  row(t.tr("compared"), t.tr("positions 0 … {0}{1}: {2} entries (cos, sin) against a·cos(m·θ_i), a·sin(m·θ_i), a = {3}",
                             run.positions - 1, g.per_token ? t.tr(" (a row per token, each sequence from 0)") : "",
                             run.compared, format_number(e.attention_factor())));
  row(t.tr("tolerance (T2)"), t.tr("κ·a·(ε_A·(1 + c_i·|m|·θ_i) + 2·ε_U), ε_A = {0:.4g} ({1} angles), ε_U = {2:.4g} "
                                   "({3}), κ = {4}",
                                   angle_epsilon(run.angles), to_string(run.angles), epsilon(g.type), to_string(g.type),
                                   format_number(kToleranceSafety)));
  row(t.tr("beyond (T2)"), t.tr("{0} of {1}; largest |Δ|/tolerance {2:.3g} (position {3}, pair {4})", run.failed,
                                run.compared, run.worst, run.worst_position, run.worst_pair));
  row(t.tr("verdict"), run.passed() ? t.tr("PASS") : t.trc("check verdict", "FAIL"));
  for (const TableFinding& f : run.findings) text << "  - " << f.says.in(t.lang()) << "\n";
  out << wrap_lines(text.str());
}

}  // namespace rope
