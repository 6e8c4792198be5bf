/// @file
/// The relative-position identity (M8) checked in bulk, fast: random pairs q, k ~ N(0, I) and integer
/// positions m, n drawn with RandomLanes (random_lanes.hpp), both sides
///
///     <R_m q, R_n k>   and   q^T R_{n−m} k
///
/// evaluated in double in the element-wise form (M9) with cos/sin from one table of the positions
/// 0 … max_position−1 (tensor_apply.hpp; R_{−δ} uses cos even, sin odd). This is what bench/ and
/// `rope bench` time as "identity checks per second"; `rope verify` keeps its own, per-identity
/// suite (verify.hpp). tests/analysis/verify/test_identity_check.cpp compares every side with apply_rotary on the
/// same draws.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include "rope/core/random_lanes.hpp"
#include "rope/core/tensor_apply.hpp"
#include "rope/core/tolerance.hpp"

namespace rope {

/// Pairs per batch; batch b draws from RandomLanes(batch_seed(seed, b)), so the result does not
/// depend on the number of threads.
inline constexpr long kCheckBatch = 64;

/// One batch of draws: q and k as [pairs × d] row-major, positions m and n in [0, max_position).
struct PairBatch {
  int d = 0;
  long pairs = 0;
  std::vector<double> q, k;
  std::vector<std::uint64_t> m, n;
};

/// The seed of batch b: SplitMix64-style mixing of (seed, b).
std::uint64_t batch_seed(std::uint64_t seed, long b);

/// Draws kCheckBatch pairs: q (pairs·d normals), then k, then m (one below_step per 8 pairs), then n.
void draw_pair_batch(RandomLanes& rng, int d, long max_position, PairBatch& batch);

/// Both sides of (M8) for every pair of the batch, interleaved layout; table rows 0 … max_position−1.
void relative_position_sides(const CosSinTable<double>& table, const PairBatch& batch, double* lhs, double* rhs,
                             double* scale);

struct RelativeCheck {
  long pairs = 0;
  /// Normalised, as each pair has its own S = ‖q‖‖k‖ (tolerance.hpp): difference = max |lhs − rhs|/S
  /// over the pairs, scale = 1, tolerance = (M13) with position budget 2·max_position, as `rope verify`.
  Check check;
};

/// `pairs` checks (rounded up to whole batches) with dimension 2·theta.size(); OpenMP over batches.
/// @throws InvalidArgument unless pairs >= 1 and 1 <= max_position <= 2^24.
RelativeCheck check_relative_position(const Eigen::VectorXd& theta, long pairs, long max_position, std::uint64_t seed);

}  // namespace rope
