/// @file
/// The printers of a cos/sin table checked against a model (analysis/check/table_model.hpp): the text (the table, the
/// model's RoPE, the entries compared under (T2), the verdict and each finding) and the value (`--json`: θ as measured
/// from the table's columns among its fields).
#pragma once

#include <ostream>

#include "rope/analysis/check/table_model.hpp"
#include "rope/report/emit.hpp"
#include "rope/report/value.hpp"

namespace rope {

class Text;

/// passed, table {name, shape, form, dtype, cache, per_token, rotary_dim}, model, base, scaling, rotary_dim,
/// attention_factor, angles, seq_len, positions, compared, failed, worst {ratio, position, pair}, magnitude,
/// measured_base, measured_theta, findings [{name, message}].
Value table_model_value(const TableModelRun& run);

void print_table_model(std::ostream& out, const TableModelRun& run, const Text& t);

/// Its report (report/emit.hpp).
template <>
struct Report<TableModelRun> {
  static Value value(const TableModelRun& run) { return table_model_value(run); }
  static void text(std::ostream& out, const TableModelRun& run, const Printing& how) {
    print_table_model(out, run, Text(how.lang));
  }
};

}  // namespace rope
