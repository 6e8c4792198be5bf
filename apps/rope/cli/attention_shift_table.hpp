/// @file
/// The shift table of `rope attention --shift C` (docs/math.md (M13)): a row per encoding with its
/// verdict, and a line on why each encoding behaves as it does. cmd_attention.cpp computes the rows.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "rope/analysis/attention.hpp"
#include "rope/cli/commands/attention_options.hpp"
#include "rope/cli/lang.hpp"

namespace rope::cli {

/// One row of the shift table and whether it is what the encoding promises.
struct ShiftRow {
  Encoding encoding;
  ShiftReport report;
  bool ok;
  std::string verdict;
  bool by_design = false;  ///< the model's frequencies change with seq_len (dynamic, longrope)
};

/// The row of encoding `e`: RoPE within rounding, ALiBi and none exactly 0, sinusoidal free to change.
/// `wide` (--wide): the long verdicts.
ShiftRow judge_shift(Encoding e, const ShiftReport& r, const Text& t, bool wide);

/// Marks the RoPE row as changed by design: the model's frequencies depend on seq_len, which moves from
/// `before` to `after` with the shift (HF's dynamic update; dynamic NTK and longrope).
void mark_regime_change(ShiftRow& row, long before, long after, const Text& t, bool wide);

/// Prints the table: the header, the tolerance (M13), a² when the model multiplies it into cos and sin,
/// one row per encoding (100 columns; --wide: two spaces between columns), then the reasons.
/// `scale`: the model's softmax scale, which S uses in place of 1/√d (nullopt: 1/√d).
void print_shift_table(std::ostream& out, const AttentionOptions& opt, const std::vector<ShiftRow>& rows, const Text& t,
                       double a2, std::optional<double> scale = std::nullopt);

}  // namespace rope::cli
