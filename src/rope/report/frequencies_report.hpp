/// @file
/// The printers of `rope frequencies`' table (analysis/teaching/frequency_table.hpp): the text for people (in either
/// language), the CSV (`--csv`) and the value the JSON printer writes (`--json`). Plain RoPE has the columns
/// pair, exponent, theta, wavelength[, angle]; a model or a scaling method pair, theta, wavelength,
/// original_theta, original_wavelength, ratio, band[, axis][, theta_float32]. One row per pair: the table is
/// as long as the head is wide (d/2 rows, d at most kMaxDim).
#pragma once

#include <ostream>
#include <string>

#include "rope/analysis/teaching/frequency_table.hpp"
#include "rope/report/digits.hpp"
#include "rope/report/emit.hpp"
#include "rope/report/value.hpp"

namespace rope {

class Text;

/// The table's fields: inv_freq (the θ_i) and attention_factor first, then plain RoPE's dim, base, wavelength and
/// exponent, or a model's scaling, original frequencies, bands, axes, notes and warnings; position and angle with
/// a position.
Value frequencies_value(const FrequencyTable& table);

/// The table as CSV, its header first.
std::string frequencies_csv(const FrequencyTable& table);

/// The table for people: a header naming the RoPE, then one row per pair, its numbers with `digits`
/// significant digits (0: every digit, the shortest form that reads back; report/digits.hpp).
void print_frequencies(std::ostream& out, const FrequencyTable& table, const Text& t, int digits = kTableDigits);

/// The report of `rope frequencies`: report/emit.hpp.
template <>
struct Report<FrequencyTable> {
  static Value value(const FrequencyTable& run) { return frequencies_value(run); }
  static void text(std::ostream& out, const FrequencyTable& run, const Printing& how) {
    print_frequencies(out, run, Text(how.lang), how.digits.value_or(kTableDigits));
  }
  static std::string csv(const FrequencyTable& run) { return frequencies_csv(run); }
};

}  // namespace rope
