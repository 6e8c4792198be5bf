/// @file
/// `rope diff` as one library call: two implementations' outputs of one input (dump_files.hpp: A's files, and B's
/// output of the same shape), each checked against the reference of the settings rope check takes (check_run.hpp)
/// and compared with each other under (D1) of dump_diff.hpp, per run of positions and per batch row or packed
/// sequence. The report's printers are report/diff_report.hpp.
#pragma once

#include <optional>
#include <string>

#include "rope/analysis/check/check_run.hpp"
#include "rope/analysis/check/dump_diff.hpp"
#include "rope/analysis/check/dump_files.hpp"
#include "rope/models/layers_without_rope.hpp"

namespace rope {

struct DiffRequest {
  DumpFiles dumps;                         ///< dumps.after: A's output
  std::string after_b;                     ///< B's output, the shape of A's
  std::string name_a = "A", name_b = "B";  ///< the implementations' names in the report
  CheckSettings settings;                  ///< what both are checked against, as rope check takes it
};

/// The report of one diff: the dumps as arranged (A's; their values dropped), B's type, the expectation and where
/// its layout came from, a layer without RoPE, and the diff (each side, the two against each other, the runs and
/// the segments, bounded whatever their number: the first kListedDiffRuns runs and kListedSegments segments, the
/// diagnosed ones, and counts of all, dump_diff.hpp).
struct DiffRun {
  std::string before_file, after_a_file, after_b_file;  ///< the files as named
  std::string name_a, name_b;
  LoadedDumps dumps;  ///< A's geometry, positions and how they were given; no values
  DType b_type = DType::F64;
  RopeExpectation expected;
  Message where;  ///< where the layout came from
  std::optional<LayersWithoutRope> nope;
  DumpDiff diff;

  bool passed() const { return diff.passed(); }
};

/// Reads both pairs of dumps (left on disk and read in pieces when their files allow it), resolves the expectation
/// and diffs. @throws InvalidArgument (B's output of another shape than A's, …), IoError as the readers and
/// expectation_from_settings.
DiffRun run_diff(const DiffRequest& request);

/// The same on arrays a front end arranged (dump_pair.hpp): A's pair, and B's output arranged as A's (the same input,
/// positions and shape), against `expected` (the Python module's rope.diff; the files' names left empty).
/// @throws InvalidArgument as diff_sources.
DiffRun diff_arranged(DumpPair a, const DumpVectors& after_b, const RopeExpectation& expected,
                      const std::string& name_a, const std::string& name_b);

}  // namespace rope
