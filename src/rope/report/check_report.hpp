/// @file
/// The printers of `rope check`'s report (analysis/check/check_run.hpp): text for people (through the catalog, in
/// either language), and its value, which the JSON printer writes (`--json`) and the Python module hands over
/// (`rope.check(...).data`).
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include "rope/analysis/check/check_run.hpp"
#include "rope/report/emit.hpp"
#include "rope/report/value.hpp"

namespace rope {

class Text;

/// Largest number of failing positions the value lists (failing_positions; failing_position_count has them all).
inline constexpr std::size_t kListedFailingPositions = 4096;

/// The report's fields: the verdict and the numbers compared, the expectation, each segment, the first failure
/// and the diagnosis.
Value check_value(const CheckRun& run);

/// The report for people.
void print_check(std::ostream& out, const CheckRun& run, const Text& t, const std::optional<int>& digits);

/// The report of `rope check`: report/emit.hpp.
template <>
struct Report<CheckRun> {
  static Value value(const CheckRun& run) { return check_value(run); }
  static void text(std::ostream& out, const CheckRun& run, const Printing& how) {
    print_check(out, run, Text(how.lang), how.digits);
  }
};

/// The sentence of q and k checked together (`rope check --k-before --k-after`) when their scores fail the
/// relative-position identity: the mistake the scores show, or that the identity does not hold; empty when they pass
/// or were not measured. The text's diagnosis row, the JSON's pair.diagnosis (English) and Python's
/// PairReport.diagnosis.
Message qk_pair_diagnosis(const QkPairCheck& p, const RopeExpectation& expected);

/// The report's "scaling" row: the scaling and its parameters, "none (default RoPE)" for unscaled RoPE, "no RoPE on
/// this layer" for a layer without RoPE.
std::string scaling_text(const RopeExpectation& e, bool no_rope, const Text& t);

/// The "expected" row of check and diff: the layout (inside each axis's block for Gemma 4's vision tower (V6)) and
/// where it came from, the rotary dimension, base and attention factor.
std::string expected_text(const RopeExpectation& e, const Message& where, const Text& t);

/// FoPE's part of the expectation (models/fope.hpp), in check's and diff's reports: its fields under the expected
/// object's "fope" (the kept and padded pairs, the matrices, the sin of the padding, where the coefficients were read),
/// and its "FoPE" row; nothing without FoPE.
void fope_value(Value& expected, const RopeExpectation& e);
std::string fope_text(const RopeExpectation& e, const Text& t);

/// The line after the listed batch rows or packed sequences (check and diff): "  … and 24 more: 20 pass, 4 fail"
/// (`more` not listed, `failing` of them failing), "that pass" or "that fail" when they all do; "" for none.
std::string more_segments_text(long more, long failing, const Text& t);

}  // namespace rope
