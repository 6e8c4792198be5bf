/// @file
/// The identity suite of `rope verify` and of the tests (docs/math.md (M7)–(M10), (M12), (M13)).
/// Draws q, k standard normal and integer positions, evaluates both sides of each identity and
/// reports the worst error against the tolerance of tolerance.hpp. A failed identity is data
/// (IdentityResult::check), not an exception.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rope/core/dtype.hpp"
#include "rope/core/message.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/random.hpp"
#include "rope/core/tolerance.hpp"
#include "rope/core/types.hpp"

namespace rope {

/// Bounds that keep one `rope verify` run below a minute on a laptop.
inline constexpr long kMaxTrials = 10'000'000;
inline constexpr double kMaxVerifyPosition = 1e12;
inline constexpr int kMaxVerifyDim = 4096;

struct VerifySettings {
  int dim = 128;
  double base = kDefaultBase;
  long trials = 1000;
  /// Positions m, n and the shift c are integers drawn uniformly from [0, max_position).
  double max_position = 4096;
  std::uint64_t seed = kDefaultSeed;
  Layout layout = Layout::Interleaved;
  /// Frequencies to verify instead of frequencies(dim, base), e.g. a scaled model's inv_freq
  /// (scaling.hpp); dim must then be 2 × their number. Every identity holds for any frequencies.
  std::optional<Eigen::VectorXd> inv_freq;
  /// The type the identities are computed in (docs/precision.md (P10)): θ, q, k and the positions are
  /// cast to it and every rotation runs in it; dot products and matrix products accumulate in float32
  /// for float16 and bfloat16 and in the type otherwise, and are rounded to the type.
  DType dtype = DType::F64;
  /// κ of the tolerance (M13), (P10); smaller only to show that a too-tight tolerance fails.
  double safety = kToleranceSafety;
};

/// The tolerance on |Δ|/S for d summed terms and a position budget M in `dtype`              (P10)
///
///     κ·(ε_acc·d + ε·M),   ε the epsilon of dtype, ε_acc that of the accumulation type
///
/// which is κ·ε·(d + M), (M13), for float64 and float32.
double dtype_tolerance(DType dtype, int d, double position_budget, double safety = kToleranceSafety);

/// The cap on a tolerance: the typical size of the compared quantity relative to S (P11). An error
/// as large as the quantity itself means the type keeps no correct digit, whatever the model allows.
/// Scores of random q, k have |⟨q, k⟩|/(‖q‖‖k‖) ≈ 1/√d; vectors and matrix entries have size 1.
/// Unreachable in float64 within the limits of verify (its tolerance stays below 0.011).
double score_tolerance_cap(int d);

/// One row of the report: both sides of an identity compared over `samples` draws.
struct IdentityResult {
  std::string name;      ///< short name, e.g. "relative position" (the CSV and JSON key)
  std::string formula;   ///< e.g. "<R_m q, R_n k> = q^T R_{n-m} k"
  std::string name_zh;     ///< the name in Chinese, for `--lang zh`
  std::string formula_zh;  ///< the formula in Chinese (the same unless it has words)
  std::string equation;  ///< where docs/math.md derives it, e.g. "(M8)"
  long samples = 0;
  double max_abs_error = 0.0;  ///< max |Δ| over the samples
  /// Normalised, as each sample has its own S (tolerance.hpp): difference = max |Δ|/S over the samples,
  /// S the scale of the compared quantity (M13), scale = 1, tolerance = the bound on |Δ|/S (M13), (P10),
  /// (P11); a tolerance of 0 means the sides must agree exactly. check.passed() decides the row.
  Check check;
  bool expected_to_fail = false;  ///< a contrast row: it shows what RoPE avoids
  bool capped = false;          ///< the model's tolerance exceeded the cap (P11) and was replaced by it
};

struct VerifyReport {
  VerifySettings settings;
  std::vector<IdentityResult> identities;  ///< every row with expected_to_fail == false
  IdentityResult contrast;                 ///< additive sinusoidal shift test, expected to fail
  bool all_passed() const;
};

/// Runs the whole suite: (1) relative position (M8), (2) orthogonality and det (M7), (3) composition
/// (M7), (4) norm (M7), (5) shift invariance (M8), (6) element-wise = matrix = complex (M9), (M10),
/// (7) R_half = P R_interleaved Pᵀ (M6); then the sinusoidal contrast (M12).
/// Identities that need dense d×d matrices (2, 3, 7) run on the first dense_samples(d, trials) draws
/// so that a large d stays fast; their row says how many.
/// @throws InvalidArgument if a setting breaks its rule.
VerifyReport verify(const VerifySettings& settings);

/// How many draws the dense-matrix identities use: all of them while the O(d³) products stay within
/// about 2^33 flops in total, at least one.
long dense_samples(int d, long trials);

}  // namespace rope
