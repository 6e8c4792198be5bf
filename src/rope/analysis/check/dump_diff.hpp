/// @file
/// `rope diff`: two implementations' outputs for the same input and positions (a trainer's and a rollout
/// engine's, say), each checked against the one reference by check.hpp (check_source, its variants and
/// diagnosis), and compared with each other element by element: where each one is right, where they agree, and
/// what separates them, per range of sequence indices (docs/check.md "Two implementations: rope diff").
///
/// Two outputs agree at an element when they are within the sum of their tolerances (C1), the bound two
/// implementations that both pass the check can differ by:
///
///     |y_A − y_B| <= 2 · κ · a · ‖x‖ · (2·ε_T + ε_A · (1 + c_i·|m|·θ_i))                 (D1)
///
/// with ε_T the larger epsilon of the two dumps' types, m the position's largest component (for M-RoPE an
/// upper bound of each pair's |p_a(i)|), the pair x of the dump before RoPE taken in the expected layout; an
/// unrotated channel within 2·κ·ε_T·|x|. FoPE (models/fope.hpp (F2)–(F4)): pair j of a head on key-value head h is a
/// scaled rotation, and its term is (C1)'s FoPE tolerance of that head's matrix (check_kernel.cpp's, the sum of each
/// output's):
///
///     |y_A − y_B| <= 2 · κ · ‖x‖ · (2·ε_T·(|cos′_j| + |sin′_j|)
///                                  + Σ_D (|C_cos[h, D, j]| + |C_sin[h, D, j]|)·(ε_A·(1 + c_D·|m|·θ_D) + K·ε_A))   (D2)
///
/// and a padded pair (j >= K) 2·κ·‖x‖·2·ε_T·(1 + |sin′|).
#pragma once

#include <Eigen/Core>
#include <array>
#include <functional>
#include <vector>

#include "rope/analysis/check/check.hpp"

namespace rope {

/// The two outputs compared with each other under (D1).
struct OutputAgreement {
  double max_ratio = 0;  ///< max over elements of |y_A − y_B| / bound (D1); <= 1 agrees
  long differing = 0;    ///< elements over the bound (or not finite)
  long total = 0;
  Eigen::VectorXd position_ratio;  ///< per sequence index
  bool agree() const { return differing == 0; }
};

/// (D1) over every element. @throws InvalidArgument if the shapes of the three dumps differ or the positions
/// are not one per sequence index.
OutputAgreement compare_outputs(const DumpVectors& before, const DumpVectors& a, const DumpVectors& b,
                                const std::vector<AxisPosition>& positions, const RopeExpectation& expected);

/// The three dumps' vectors at the sequence indices [s0, s1): before, A's output, B's output, each with
/// s1 − s0 sequence indices of every group (dumps read from their files in pieces: memory holds one block).
using DiffReader = std::function<std::array<DumpVectors, 3>(long s0, long s1)>;

/// The shape of the dumps a DiffReader reads and the types of the two outputs.
struct DiffGeometry {
  long seq = 0, groups = 0;
  long heads = 0;  ///< heads per batch row (FoPE's key-value head of each group, (D2)); 0: every group one row's head
  int d = 0;
  DType a_type = DType::F64, b_type = DType::F64;
};

/// (D1) over every element, read a block of sequence indices at a time. @throws InvalidArgument as above.
OutputAgreement compare_outputs(const DiffReader& read, const DiffGeometry& shape,
                                const std::vector<AxisPosition>& positions, const RopeExpectation& expected);

/// A run of consecutive sequence indices where the same holds: A right or not, B right or not, A and B agree
/// or not; a failing implementation's diagnosis on that run alone (check_source of the run).
struct DiffRange {
  long start = 0, length = 0;
  bool a_right = false, b_right = false, agree = false;
  double a_ratio = 0, b_ratio = 0, between_ratio = 0;  ///< the largest ratios of the run
  Message a_diagnosis, b_diagnosis;  ///< empty when right, or past the first kDiffDiagnosedRanges failing runs
};

/// Runs diagnosed one by one (the others keep their verdicts).
inline constexpr std::size_t kDiffDiagnosedRanges = 8;

/// Runs a diff keeps (and its report lists), in order: the first kListedDiffRuns; range_count counts them all (one
/// run per position at worst: 2^20 runs kept as objects took 3.7 GB).
inline constexpr std::size_t kListedDiffRuns = 4096;

/// One batch row or packed sequence: each output checked on it (check_segments) and their agreement there.
struct DiffSegment {
  SegmentCheck a, b;
  double between_ratio = 0;      ///< the largest (D1) ratio of its sequence indices
  long differing_positions = 0;  ///< its sequence indices where A and B differ beyond (D1)
  const DumpSegment& segment() const { return a.segment; }
};

struct DumpDiff {
  CheckReport a, b;         ///< each output against the reference (check_source)
  OutputAgreement between;  ///< A against B (D1)
  /// The first kListedDiffRuns runs, in order (together they cover every sequence index; a run never crosses a
  /// segment's start).
  std::vector<DiffRange> ranges;
  long range_count = 0;  ///< every run
  /// Per batch row or packed sequence, when the dumps have more than one, in order: the first kListedSegments
  /// and those diagnosed on either side past them (check.hpp: at most kDiagnosedSegments a side).
  std::vector<DiffSegment> segments;
  long segment_count = 0;          ///< every segment
  long failing_segment_count = 0;  ///< the segments where either side fails
  bool passed() const { return a.comparison.passed() && b.comparison.passed(); }
};

/// Checks `a` and `b` (each the output of RoPE on `before` at `positions`) against `expected`, compares them
/// with each other, and splits the sequence axis into runs.
DumpDiff diff_dumps(const DumpVectors& before, const DumpVectors& a, const DumpVectors& b,
                    const std::vector<AxisPosition>& positions, const RopeExpectation& expected);

/// The same on two sources (in memory or streamed from their files, analysis/check/fast/dump_stream.hpp: A's before and
/// output, B's before and output) and `read` (the three dumps a block at a time, for (D1)), with a report per
/// segment (batch rows or packed sequences) when `segments` holds more than one. `rows`: the segments are batch
/// rows, diagnosed as rope check diagnoses them (diagnose_rows: the whole batch rotated at one offset). A run that
/// is a whole failing segment takes that segment's diagnosis.
DumpDiff diff_sources(const DumpSource& a, const DumpSource& b, const DiffReader& read,
                      const std::vector<AxisPosition>& positions, const RopeExpectation& expected,
                      const std::vector<DumpSegment>& segments = {}, bool rows = false);

/// A layer without RoPE (`unchanged`: both outputs should equal the input): each failing output, run and segment
/// diagnosed by diagnose_no_rope (check.hpp) on its own positions against `rope`, the RoPE of the model's layers that
/// have one: which output is rotated where, and as what. Runs past the first kDiffDiagnosedRanges failing ones keep
/// their verdicts alone.
void diagnose_no_rope_diff(DumpDiff& diff, const DumpSource& a, const DumpSource& b,
                           const std::vector<AxisPosition>& positions, const RopeExpectation& unchanged,
                           const std::optional<RopeExpectation>& rope, const std::string& model,
                           const std::string& layer_type, const std::string& layers);

}  // namespace rope
