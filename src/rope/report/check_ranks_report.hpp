/// @file
/// The printers of every rank of a context-parallel run checked in one run (analysis/check/check_ranks.hpp): the
/// text, a row per rank (rank, file, verdict, positions span, largest |Δ|/tolerance, and for a failing rank its
/// diagnosis with its found parameters, or the other rank whose positions it matches), then the run's verdict; and
/// the value (`--json`): `ranks`, each rank's check_value with `rank`, `file` and `matches_rank`, then `passed` and
/// `failing_ranks`.
#pragma once

#include <ostream>

#include "rope/analysis/check/check_ranks.hpp"
#include "rope/report/emit.hpp"
#include "rope/report/value.hpp"

namespace rope {

class Text;

Value check_ranks_value(const CheckRanksRun& run);

void print_check_ranks(std::ostream& out, const CheckRanksRun& run, const Text& t);

template <>
struct Report<CheckRanksRun> {
  static Value value(const CheckRanksRun& run) { return check_ranks_value(run); }
  static void text(std::ostream& out, const CheckRanksRun& run, const Printing& how) {
    print_check_ranks(out, run, Text(how.lang));
  }
};

}  // namespace rope
