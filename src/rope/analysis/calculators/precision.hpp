/// @file
/// What low-precision arithmetic costs RoPE at long positions (docs/precision.md (P1)–(P8)).
///
/// A curve is one type T (dtype.hpp) and one strategy, i.e. where the low precision enters:
///   - cast-inputs: the position m and θ_i are cast to T, the angle m·θ_i and its cos/sin are computed
///     in T (bfloat16 turns position 257 into 256 before anything else happens)            (P3)
///   - angle-f32:   m·θ_i and its cos/sin in float32, cos/sin cast to T                     (P4)
///   - cast-result: everything in float64, only the rotated vector cast to T                  (P5)
/// In every strategy the rotated vector is stored in T; the rotation itself (x·cos − y·sin …) runs in T,
/// except cast-result, which rotates in float64 and rounds the result. Dot products accumulate in
/// float32 for float16 and bfloat16 (as GPU matrix units do) and in T otherwise, and the score is
/// rounded to T (P6). float64 has one curve ("f64"); float32's angle-f32 is its cast-inputs.
///
/// Errors are measured against a long double reference (64-bit significand) with θ_i = base^(−2i/d)
/// evaluated in long double, on the same q, k (drawn in float64 and cast to T, so the cast of q, k is
/// not counted):
///   - angle error:     max_i |wrap(φ_i − m·θ_i)|, φ_i the angle as the strategy computes it (P7)
///   - vector error:    ‖R_m q (computed) − R_m q (reference)‖ / ‖q‖, RMS over the samples
///   - identity error:  |⟨R_m q, R_n k⟩ − qᵀR_{n−m}k|, both sides computed as the strategy computes
///     them, n = m + distance, RMS over the samples (P8)
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rope/core/dtype.hpp"
#include "rope/core/random.hpp"
#include "rope/core/types.hpp"

namespace rope {

enum class Strategy { CastInputs, AngleF32, CastResult };

inline constexpr Strategy kAllStrategies[] = {Strategy::CastInputs, Strategy::AngleF32, Strategy::CastResult};

/// "cast-inputs", "angle-f32" or "cast-result".
std::string_view to_string(Strategy strategy);
/// @throws InvalidArgument naming the value unless it is one of the three names.
Strategy parse_strategy(std::string_view text);

/// One curve: a type and where its precision enters.
struct CurveSpec {
  DType type = DType::F64;
  Strategy strategy = Strategy::CastInputs;
  /// "f64", "f32 cast-inputs", "bf16 angle-f32", …
  std::string name() const;
  /// The same with '_' for the space, for CSV columns: "f32_cast-inputs".
  std::string column() const;
};

/// The distinct curves for the given types × strategies, types in the order given: f64 once (its
/// strategies coincide), f32 without angle-f32 when cast-inputs is also asked for (they coincide).
std::vector<CurveSpec> precision_curves(const std::vector<DType>& types, const std::vector<Strategy>& strategies);

/// Largest --max-position: float32 holds every integer up to 2^24 (P2), and a scan of the positions
/// (crossings, merges) stays below a few seconds.
inline constexpr double kMaxPrecisionPosition = 16777216.0;
inline constexpr long kMaxPrecisionSamples = 10000;
inline constexpr int kMaxPrecisionDim = 4096;

struct PrecisionSettings {
  int dim = 128;
  double base = kDefaultBase;
  Layout layout = Layout::Interleaved;
  long samples = 16;    ///< random pairs q, k ~ N(0, I)
  double distance = 5;  ///< n − m in the identity error (docs/precision.md (P8) uses 5)
  std::uint64_t seed = kDefaultSeed;
};

/// @throws InvalidArgument naming the setting that breaks its rule.
void check_precision_settings(const PrecisionSettings& settings);

/// The three errors of one curve at each position.
struct CurveErrors {
  CurveSpec spec;
  Eigen::VectorXd angle;     ///< rad (P7)
  Eigen::VectorXd vector;    ///< relative (P8)
  Eigen::VectorXd identity;  ///< absolute (P8)
};

/// The errors of every curve at the given positions (integers or not, each in [0, 2^24]).
/// A value that overflows the type (float16 positions above 65519) gives an infinite error.
std::vector<CurveErrors> precision_errors(const PrecisionSettings& settings, const std::vector<CurveSpec>& curves,
                                          const Eigen::VectorXd& positions);

/// The angles φ_i a curve computes at position m, as doubles (P3)–(P5).
Eigen::VectorXd computed_angles(const CurveSpec& curve, const Eigen::VectorXd& theta, double m);

/// The first integer position m in [0, max_position] whose angle error (P7) exceeds `threshold` rad,
/// found by checking every integer (those below the a-priori bound (P9) are skipped: they cannot
/// exceed it); nothing if none does.
std::optional<double> angle_crossing(const PrecisionSettings& settings, const CurveSpec& curve, double threshold,
                                     double max_position);

/// Log-spaced integer positions 1 … max_position (np.geomspace rounded, duplicates removed), so that
/// every point is a position a model can see. @pre max_position >= 1, points >= 2.
Eigen::VectorXd integer_log_positions(double max_position, long points);

}  // namespace rope
