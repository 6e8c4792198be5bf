/// @file
/// The printers of `rope encodings` (analysis/teaching/encodings_run.hpp): the text (the comparison table's
/// claims, each beside its number; long lines wrapped to the projector width) and the value (the same numbers).
#pragma once

#include <optional>
#include <ostream>

#include "rope/analysis/teaching/encodings_run.hpp"
#include "rope/report/emit.hpp"
#include "rope/report/value.hpp"

namespace rope {

class Text;

/// The request's settings, shift_test [{encoding, max_abs_change, relative_error, tolerance}], t5 {starts, before,
/// after}, decay {distances, alibi_first, alibi_last, bound, random_mean, random_sd, ones, sinusoidal},
/// first_pair_beyond, passed.
Value encodings_value(const EncodingsRun& run);

/// The five sections of the table, `digits` those of RoPE's |Δ|/S and its tolerance (report/digits.hpp).
void print_encodings(std::ostream& out, const EncodingsRun& run, const Text& t, const std::optional<int>& digits);

/// The report of `rope encodings`: report/emit.hpp.
template <>
struct Report<EncodingsRun> {
  static Value value(const EncodingsRun& run) { return encodings_value(run); }
  static void text(std::ostream& out, const EncodingsRun& run, const Printing& how) {
    print_encodings(out, run, Text(how.lang), how.digits);
  }
};

}  // namespace rope
