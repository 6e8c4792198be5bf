/// @file
/// The identity suite of `rope verify` and of the tests (docs/math.md (M7)–(M10), (M12), (M13)).
/// Draws q, k standard normal and integer positions, evaluates both sides of each identity and
/// reports the worst error against the tolerance of tolerance.hpp. A failed identity is data
/// (IdentityResult::check), not an exception. Two paths: the fast one (verify_fast.hpp, the default:
/// O(d) per check on the 2×2 blocks, both cores, constant memory) and the dense one (settings.dense:
/// d×d matrices, apply_rotary and rotation_matrix, the form that teaches).
#pragma once

#include <Eigen/Core>
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rope/analysis/calculators/precision.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/dtype.hpp"
#include "rope/core/message.hpp"
#include "rope/core/random.hpp"
#include "rope/core/tolerance.hpp"
#include "rope/core/types.hpp"

namespace rope {

/// Bounds of one `rope verify` run: 10^9 trials of the fast path take about ten minutes at d = 128 on
/// two cores (docs/performance.md) in constant memory; the dense path caps itself (dense_samples).
inline constexpr long kMaxTrials = 1'000'000'000;
inline constexpr double kMaxVerifyPosition = 1e12;
inline constexpr int kMaxVerifyDim = 4096;
/// Bound on trials × d × verify_trial_cost(dtype): the work of 10^9 float64 trials at d = 128 (about
/// 1700 CPU-seconds, a quarter of an hour on two cores), so that no run within the limits lasts hours
/// (docs/errors.md gives the measured times).
inline constexpr double kMaxVerifyWork = 1.28e11;
/// The CPU time of one trial of the fast path in `dtype` relative to float64, rounded up from the ratios
/// measured at d = 128 (float32 6.6, bfloat16 22.5, float16 36: rounding to the type is emulated).
constexpr double verify_trial_cost(DType dtype) {
  return dtype == DType::F32 ? 8 : dtype == DType::BF16 ? 32 : dtype == DType::F16 ? 48 : 1;
}

/// The user's own q and k (`rope verify --q --k`, rope.verify): every identity checked on them instead of on
/// standard normal draws. One vector per column (d rows, as many columns in q as in k): trial t checks pair
/// t mod pairs(). The suite still draws its q and k and ignores them, so that the positions m, n and the shift c of
/// trial t are those `rope verify` draws with the same seed and trials. `at`: every trial at these m, n, c instead.
struct VerifyVectors {
  Eigen::MatrixXd q, k;
  std::optional<std::array<double, 3>> at;
  long pairs() const { return static_cast<long>(q.cols()); }
};

/// Most numbers the user's q (or k) may hold (32 MiB of float64 each): checked before they are copied.
inline constexpr long kMaxVerifyVectorValues = 1L << 22;

/// The trials of a run on `pairs` given pairs when none are asked for: 1000 rounded up to a multiple of `pairs`,
/// so that every pair is checked as often as the others.
constexpr long default_vector_trials(long pairs) { return pairs < 1 ? 1000 : (999 / pairs + 1) * pairs; }

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
  /// The type the identities are computed in (docs/precision.md (P10), (P12)): q, k are cast to it, the
  /// angles and their cos/sin are computed as `strategy` says, every rotation runs in it (cast-result:
  /// in float64, rounded to it); dot products and 2×2 block products accumulate in float32 for float16
  /// and bfloat16 and in the type otherwise, and are rounded to the type.
  DType dtype = DType::F64;
  /// Where the low precision enters (precision.hpp): angle-f32 by default, the pipeline of Hugging Face
  /// (inv_freq, positions, angles, cos/sin in float32, cos/sin cast to dtype). Ignored for float64.
  Strategy strategy = Strategy::AngleF32;
  /// The dense form: d×d matrices for rows 2, 3, 7 (on dense_samples draws), one trial after the other
  /// on one core from Random(seed); cast-inputs only for another dtype than float64.
  bool dense = false;
  /// κ of the tolerance (M13), (P10); smaller only to show that a too-tight tolerance fails.
  double safety = kToleranceSafety;
  /// The user's q and k (none: drawn). Rules: d numbers each, finite, trials >= pairs; `at` integers below
  /// max_position.
  std::shared_ptr<const VerifyVectors> vectors;
};

/// The tolerance on |Δ|/S for d summed terms and a position budget M in `dtype`              (P10)
///
///     κ·(ε_acc·d + ε·M),   ε the epsilon of dtype, ε_acc that of the accumulation type
///
/// which is κ·ε·(d + M), (M13), for float64 and float32.
double dtype_tolerance(DType dtype, int d, double position_budget, double safety = kToleranceSafety);

/// The tolerance of a strategy (docs/precision.md (P12)): with ε_φ the epsilon of the type the angles
/// are computed in (dtype for cast-inputs, float32 for angle-f32, float64 for cast-result),
///
///     κ·(ε_acc·d + ε_φ·M + ε_r),   ε_r = ε of dtype if ε_φ < ε, else 0
///
/// ε_r: cos, sin and the rotated vector are rounded to dtype once whatever the position. For
/// cast-inputs, and for float64 and float32 angle-f32, it is dtype_tolerance above.
double strategy_tolerance(DType dtype, Strategy strategy, int d, double position_budget,
                          double safety = kToleranceSafety);

/// The cap on a tolerance: the typical size of the compared quantity relative to S (P11). An error
/// as large as the quantity itself means the type keeps no correct digit, whatever the model allows.
/// Scores of random q, k have |⟨q, k⟩|/(‖q‖‖k‖) ≈ 1/√d; vectors and matrix entries have size 1.
/// Unreachable in float64 within the limits of verify (its tolerance stays below 0.011).
double score_tolerance_cap(int d);

/// One row of the report: both sides of an identity compared over `samples` draws.
struct IdentityResult {
  std::string name;      ///< short name, e.g. "relative position" (the CSV and JSON key)
  std::string formula;   ///< e.g. "<R_m q, R_n k> = q^T R_{n-m} k"
  Message name_text;     ///< the name for people (`name` is its English), translated under `--lang zh`
  Message formula_text;  ///< the formula for people (`formula` is its English; most are the same in every language)
  std::string equation;  ///< where docs/math.md derives it, e.g. "(M8)"
  long samples = 0;
  double max_abs_error = 0.0;  ///< max |Δ| over the samples
  /// Normalised, as each sample has its own S (tolerance.hpp): difference = max |Δ|/S over the samples,
  /// S the scale of the compared quantity (M13), scale = 1, tolerance = the bound on |Δ|/S (M13), (P10),
  /// (P11); a tolerance of 0 means the sides must agree exactly. check.passed() decides the row.
  Check check;
  bool expected_to_fail = false;  ///< a contrast row: it shows what RoPE avoids
  bool capped = false;            ///< the model's tolerance exceeded the cap (P11) and was replaced by it
};

/// Running maxima of one row: |Δ| and |Δ|/S over the samples (NaN and overflow count as infinite, in |Δ| and in
/// |Δ|/S, whose S may overflow too; |Δ| = 0 is |Δ|/S = 0 whatever S, a zero vector's S = 0 included).
struct Tally {
  long samples = 0;
  double abs = 0.0;
  double rel = 0.0;
  void add(double abs_error, double scale);
  /// Merging is a maximum and a sum: the same in any order, so any number of threads gives the same.
  void merge(const Tally& other);
  void apply(IdentityResult& row) const;
};

/// The rows of the suite in order, the seven identities then the contrast, with their names,
/// formulas, equations and tolerances, no samples yet (shared by the fast and the dense path).
std::vector<IdentityResult> suite_rows(const VerifySettings& settings);

/// Called between chunks of trials with (trials done, trials asked); returning false stops the run,
/// which reports the trials done so far (`rope verify` on Ctrl-C).
using VerifyProgress = std::function<bool(long done, long total)>;

struct VerifyReport {
  VerifySettings settings;
  long completed = 0;        ///< trials checked: settings.trials unless the progress callback stopped the run
  bool interrupted = false;  ///< stopped before settings.trials
  std::vector<IdentityResult> identities;  ///< every row with expected_to_fail == false
  IdentityResult contrast;                 ///< additive sinusoidal shift test, expected to fail
  bool all_passed() const;
};

/// Runs the whole suite: (1) relative position (M8), (2) orthogonality and det (M7), (3) composition
/// (M7), (4) norm (M7), (5) shift invariance (M8), (6) element-wise = matrix = complex (M9), (M10),
/// (7) R_half = P R_interleaved Pᵀ (M6); then the sinusoidal contrast (M12).
/// Fast path: every row on every draw. Dense path: rows 2, 3, 7 need d×d matrices and run on the first
/// dense_samples(d, trials) draws so that a large d stays bounded; their row says how many.
/// `progress` (fast path only) may stop the run. @throws InvalidArgument if a setting breaks its rule.
VerifyReport verify(const VerifySettings& settings, const VerifyProgress& progress = {});

/// One draw of the suite: q, k (d numbers each, float64) and the integer positions m, n and shift c.
struct VerifyDraw {
  Eigen::VectorXd q, k;
  double m = 0, n = 0, c = 0;
};
/// The suite on given draws instead of random ones, by the path settings.dense selects, one draw after
/// the other (tests: the fast and the dense path compared draw by draw). settings.trials is ignored.
VerifyReport verify_draws(const VerifySettings& settings, const std::vector<VerifyDraw>& draws);

/// For a float16 or bfloat16 run with another strategy than cast-inputs: row 1 (M8) again with
/// cast-inputs (position and θ in the type, the all-low-precision pipeline), on the same draws, and
/// the smallest max-position at which it fails, found by doubling from 2 and bisecting with
/// min(trials, 256) draws of the same seed (with the user's vectors, at least one per pair); nullopt if it passes up
/// to settings.max_position. @pre no given positions (VerifyVectors::at).
struct StrategyContrast {
  IdentityResult row;
  std::optional<double> fails_from;
};
StrategyContrast cast_inputs_contrast(const VerifySettings& settings);

/// How many draws the dense-matrix identities use: all of them while the O(d³) products stay within
/// about 2^33 flops in total, at least one.
long dense_samples(int d, long trials);

}  // namespace rope
