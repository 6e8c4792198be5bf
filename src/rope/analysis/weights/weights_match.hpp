/// @file
/// Which row permutation P makes a candidate tensor C ≈ P·R of a reference tensor R (docs/weights.md): head block
/// by head block, the rows of C are matched to the rows of R, exactly where they are bit-equal copies (by hashing
/// the rows' bytes) and otherwise by the best normalised row correlation ⟨c, r⟩ / (‖c‖·‖r‖), a d × d matrix per
/// block, never across the whole tensor, so quantized copies match too. The catalog's maps (weights_catalog.hpp)
/// and the measured map are then scored by their relative residual ‖C − P·R‖ / ‖C‖ (sums in double), and the best
/// is named: a catalog map (the expected one where several coincide, otherwise the simplest), or `unknown` when the
/// measured map fits clearly better than every catalog map (its residual under half theirs). The best map explains
/// the candidate only when its residual is at most kWeightResidualBound and under kWeightRunnerUpMargin times the
/// runner-up's: otherwise no map is named as a pass (unrelated or all-zero weights).
#pragma once

#include <Eigen/Core>
#include <optional>
#include <vector>

#include "rope/analysis/weights/weights_catalog.hpp"

namespace rope {

/// The largest residual ‖C − P·R‖ / ‖C‖ of a map that explains C. Unrelated weights of equal scale give about √2
/// (‖C − R‖² ≈ ‖C‖² + ‖R‖²), a wrong permutation of one model's rows 1.0–1.2 (docs/weights.md); quantized copies at
/// most 8.6e-2 on the checkpoints of data/weights/ (Q4_0, 4 bits and one scale per 32 values): 0.5 leaves a factor
/// of 5 above the coarsest quantizer measured and 2 below a wrong permutation.
inline constexpr double kWeightResidualBound = 0.5;
/// The best map's residual must be under this fraction of the runner-up's (a different permutation): the same
/// factor that names a measured map `unknown`. Where both fit equally (all-zero rows, rows equal within a head block)
/// the rows do not say which map was applied.
inline constexpr double kWeightRunnerUpMargin = 0.5;

/// A tensor as rows × cols floats, row-major (a bias: cols 1).
struct WeightRows {
  const float* data = nullptr;
  long rows = 0;
  long cols = 0;
};

struct WeightMatch {
  WeightMap map = WeightMap::Unknown;  ///< the best map's name
  std::vector<WeightMap> same_as;      ///< the other catalog names of the same permutation
  std::vector<long> order;             ///< the best map (candidate row r holds reference row order[r])
  double residual = 0;                 ///< ‖C − P·R‖ / ‖C‖ of the best map (0 when C is 0)
  std::optional<WeightMap> runner_up;  ///< the best different permutation (Unknown: the measured one)
  double runner_up_residual = 0;       ///< its residual (NaN without one)
  bool exact = false;                  ///< the measured map came from bit-equal rows
  /// The best map explains C: residual ≤ kWeightResidualBound and < kWeightRunnerUpMargin × the runner-up's (a NaN
  /// residual never explains).
  bool explained = false;
};

/// Matches C against R, both rows × cols with rows a multiple of shape.heads (shape.rows = rows). `expected` names
/// the permutation when several catalog maps build it.
/// @throws InvalidArgument when the shapes differ or the rows are not a whole number of head blocks.
WeightMatch match_weights(const WeightRows& reference, const WeightRows& candidate, const WeightShape& shape,
                          WeightMap expected);

/// The normalised row correlation of head block `head` (d × d: entry (i, j) is candidate row i against reference
/// row j of that block), for the heat map.
Eigen::MatrixXd head_correlation(const WeightRows& reference, const WeightRows& candidate, long heads, long head);

/// ‖C − P·R‖ / ‖C‖ for the row map `order` (0 when C is 0).
double weight_residual(const WeightRows& reference, const WeightRows& candidate, const std::vector<long>& order);

}  // namespace rope
