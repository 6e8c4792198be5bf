/// @file
/// The printers of a context-parallel rank's positions (analysis/dumps/cp_positions.hpp, `rope positions --cp-size`):
/// the text for people (in either language), the value of its numbers (`--json`: the request, `positions` a flat
/// list of integers, and the rank's own sequence starts) and the .npy
/// bytes of the positions (int64, shape [n]).
#pragma once

#include <ostream>
#include <string>

#include "rope/analysis/dumps/cp_positions.hpp"
#include "rope/report/emit.hpp"
#include "rope/report/value.hpp"

namespace rope {

class Text;

/// cp_size, cp_rank, layout, sequence_starts, positions, local_sequence_starts.
Value cp_positions_value(const CpPositions& run);

/// The report for people: the split, the rank's share, its own sequence starts and each sequence's positions.
void print_cp_positions(std::ostream& out, const CpPositions& run, const Text& t);

/// Its report (report/emit.hpp): the value, the text.
template <>
struct Report<CpPositions> {
  static Value value(const CpPositions& run) { return cp_positions_value(run); }
  static void text(std::ostream& out, const CpPositions& run, const Printing& how) {
    print_cp_positions(out, run, Text(how.lang));
  }
};

/// The positions as a .npy file's bytes: format 1.0, '<i8', shape (n,).
std::string cp_positions_npy(const CpPositions& run);

}  // namespace rope
