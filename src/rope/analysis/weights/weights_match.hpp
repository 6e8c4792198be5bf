/// @file
/// Which row permutation P makes a candidate tensor C ≈ P·R of a reference tensor R (docs/weights.md): head block
/// by head block, the rows of C are matched to the rows of R, exactly where they are bit-equal copies (by hashing
/// the rows' bytes) and otherwise by the best normalised row correlation ⟨c, r⟩ / (‖c‖·‖r‖), a d × d matrix per
/// block, never across the whole tensor, so quantized copies match too. The catalog's maps (weights_catalog.hpp)
/// and the measured map are then scored by their relative residual ‖C − P·R‖ / ‖C‖ (sums in double), and the best
/// is named: a catalog map (the expected one where several coincide, otherwise the simplest), or `unknown` when the
/// measured map fits clearly better than every catalog map (its residual under half theirs).
#pragma once

#include <Eigen/Core>
#include <optional>
#include <vector>

#include "rope/analysis/weights/weights_catalog.hpp"

namespace rope {

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
