/// @file
/// The printers of `rope wavelengths` (analysis/teaching/wavelengths_run.hpp): the text for people (in either
/// language), the CSV (`--csv`: pair, then one wavelength column per curve) and the value the JSON printer writes
/// (`--json`). One row per pair: the table is as long as the head is wide (d/2 rows, d at most kMaxDim); at most
/// kMaxWavelengthCurves curves and context lengths.
#pragma once

#include <ostream>
#include <string>

#include "rope/analysis/teaching/wavelengths_run.hpp"
#include "rope/report/emit.hpp"
#include "rope/report/value.hpp"

namespace rope {

class Text;

/// dim, pairs, model (its name, or null), curves [{name, column, wavelength}] (a pair that does not turn: null in
/// JSON, inf in Python), contexts [{context, curves [{column, first_pair_beyond, pairs_beyond,
/// critical_dimension}]}] and warnings.
Value wavelengths_value(const WavelengthsRun& run);

/// pair, then one column per curve (its `column`), every digit.
std::string wavelengths_csv(const WavelengthsRun& run);

/// The model's name and layer type for the figure's title, "" for plain RoPE.
std::string wavelengths_model(const WavelengthsRun& run, const Text& t);

/// The paragraph on context `k` and curve `c` (indices into run.contexts and run.curves), its newline included:
/// the first pair that never completes a turn within it and the critical dimension, or that every pair does.
/// print_wavelengths prints it; the live page shows it.
std::string wavelengths_context_text(const WavelengthsRun& run, std::size_t k, std::size_t c, const Text& t);

/// The table for people: a header, one row per pair, then a paragraph per context length, and the warnings.
void print_wavelengths(std::ostream& out, const WavelengthsRun& run, const Text& t);

/// The report of `rope wavelengths`: report/emit.hpp.
template <>
struct Report<WavelengthsRun> {
  static Value value(const WavelengthsRun& run) { return wavelengths_value(run); }
  static void text(std::ostream& out, const WavelengthsRun& run, const Printing& how) {
    print_wavelengths(out, run, Text(how.lang));
  }
  static std::string csv(const WavelengthsRun& run) { return wavelengths_csv(run); }
};

}  // namespace rope
