/// @file
/// The printers of `rope positions` (M-RoPE, analysis/teaching/positions_run.hpp): the text (the rules, the
/// sequence, the table of ids, rope_deltas), the CSV (token, segment, kind, t, h, w of every token), the value and
/// the figure: the three ids against the token index; under HunyuanVL (rules.xdrope) the four streams p, w, h, t in
/// their place, and no rope_deltas (docs/multi-axis.md (X1), (X2)).
#pragma once

#include <ostream>
#include <string>

#include "rope/analysis/teaching/positions_run.hpp"
#include "rope/plot/figure.hpp"
#include "rope/report/emit.hpp"
#include "rope/report/value.hpp"

namespace rope {

class Text;

/// model (null without one), origin [English], rules {spatial_merge_size, tokens_per_second, second_per_grid,
/// frame_text, bailing, pangu, xdrope}, tokens [{segment, kind, t, h, w}] ({segment, kind, p, w, h, t} under
/// xdrope), prefill, rope_delta (null under xdrope).
/// A diffusers transformer's positions (run.grid): model, class_name, axes, grid, positions (a list per token),
/// kinds. @throws InvalidArgument for more than kMaxGridJsonTokens tokens (the CSV writes any number).
Value positions_value(const PositionsRun& run);

/// Most tokens of a diffusers transformer's positions as a value (`--json`): each number is a value of its own.
inline constexpr long kMaxGridJsonTokens = 1L << 18;

/// token,segment,kind,t,h,w (token,segment,kind,p,w,h,t under xdrope): every token.
std::string positions_csv(const PositionsRun& run);

/// The rules, the sequence, at most kMaxPrintedPositions rows, where the next token starts.
void print_positions(std::ostream& out, const PositionsRun& run, const Text& t);

/// t, h and w against the token index.
plot::Figure positions_figure(const PositionsRun& run, const Text& t);

/// The report of `rope positions` (M-RoPE): report/emit.hpp.
template <>
struct Report<PositionsRun> {
  static Value value(const PositionsRun& run) { return positions_value(run); }
  static void text(std::ostream& out, const PositionsRun& run, const Printing& how) {
    print_positions(out, run, Text(how.lang));
  }
  static std::string csv(const PositionsRun& run) { return positions_csv(run); }
};

}  // namespace rope
