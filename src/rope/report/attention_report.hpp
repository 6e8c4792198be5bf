/// @file
/// The printers of `rope attention` (analysis/teaching/attention_run.hpp): the text for people (in either language: the
/// settings, each encoding's formula and, up to kMaxPrintedTokens tokens, its matrix A, the shift table), and the
/// value of its numbers (`--json`: the settings, per encoding its title, A_00 and, up to kMaxPrintedTokens tokens,
/// the matrix A row by row (beyond, the CSV holds it: a matrix grows with the square of the tokens), the shift
/// rows and the verdict).
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "rope/analysis/teaching/attention_run.hpp"
#include "rope/report/emit.hpp"
#include "rope/report/value.hpp"

namespace rope {

class Text;

/// tokens, dim, positions, seed (null for given vectors), causal, shift, `encodings` (per encoding: name,
/// title, a00, weights up to kMaxPrintedTokens tokens, ALiBi's slope), `shift_test` (per row: encoding,
/// max_abs_change, max_relative_change, tolerance, max_weight_change, ok, by_design, verdict) and passed.
Value attention_value(const AttentionRun& run);

/// The report for people; `digits`: the shift table's significant digits (report/digits.hpp; nullopt: the
/// policy, at least 3).
void print_attention(std::ostream& out, const AttentionRun& run, const Text& t, const std::optional<int>& digits);

/// The report of `rope attention` (the CSV of a matrix is the front end's, one file per encoding): report/emit.hpp.
template <>
struct Report<AttentionRun> {
  static Value value(const AttentionRun& run) { return attention_value(run); }
  static void text(std::ostream& out, const AttentionRun& run, const Printing& how) {
    print_attention(out, run, Text(how.lang), how.digits);
  }
};

/// The score formula of RoPE with the model, then a line on its softmax scale (value, rule, where from) and, for a
/// model with query scaling, a line on s(p) at `positions` (docs/scaling.md (S22)).
std::vector<std::string> model_score_lines(const ModelRope& model, const AttentionSettings& settings,
                                           const Eigen::VectorXd& positions, const Text& t);

/// Prints the shift table: the header, the tolerance (M13), a² when the model multiplies it into cos and sin,
/// one row per encoding (100 columns; wide: two spaces between columns), then the reasons.
/// `scale`: the model's softmax scale, which S uses in place of 1/√d (nullopt: 1/√d).
void print_shift_table(std::ostream& out, const AttentionRequest& opt, const std::vector<ShiftRow>& rows, const Text& t,
                       double a2, std::optional<double> scale, const std::optional<int>& digits);

}  // namespace rope
