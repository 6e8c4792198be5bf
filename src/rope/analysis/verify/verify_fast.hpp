/// @file
/// The fast path of `rope verify` (verify.hpp): every identity of the suite checked element-wise on
/// the 2×2 blocks of R_m, O(d) per check, on draws shared by all rows, OpenMP over batches of trials.
///
///   - Draws: batch b of kVerifyBatch trials draws q, k, then m, n, c from RandomLanes(batch_seed(seed, b))
///     (identity_check.hpp), so a trial's numbers depend on (seed, trial) only, not on the threads; the
///     rows keep maxima, which do not depend on the order in which batches finish.
///   - Angles in float64: cos/sin of p·θ_i for any integer 0 <= p < 2^(7L) from L tables of 128 rows
///     (AngleTable), p's base-128 digits multiplied as complex numbers; each table entry is computed
///     directly, so the error is a few ulp per level, never accumulated along the positions.
///   - Angles in float32, float16, bfloat16: computed as the strategy computes them (precision.hpp
///     (P3)–(P5)), one cos/sin per pair and position, and every operation rounded to the type.
/// The dense d×d form (verify.cpp, VerifySettings::dense) checks the same rows with matrices;
/// tests/analysis/verify/test_verify_fast.cpp compares the two.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "rope/analysis/verify/verify.hpp"

namespace rope {

/// Trials per batch of draws (a multiple of RandomLanes::kLanes).
inline constexpr long kVerifyBatch = 64;

/// The suite on the fast path (called by verify() unless settings.dense); settings already checked.
VerifyReport verify_fast(const VerifySettings& settings, const Eigen::VectorXd& theta, const VerifyProgress& progress);

/// The fast path on given draws, one after the other (verify_draws).
VerifyReport verify_fast_draws(const VerifySettings& settings, const Eigen::VectorXd& theta,
                               const std::vector<VerifyDraw>& draws);

}  // namespace rope
