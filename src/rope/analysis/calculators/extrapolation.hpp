/// @file
/// The extrapolation quantities of "Scaling Laws of RoPE-based Extrapolation" (Liu et al. 2023,
/// arXiv:2310.05209, eqs. 12–16), docs/calculators.md (C6)–(C9): the critical dimension d_extra of a
/// model pre-trained with context T, its extrapolation bound T_extra for a (fine-tuning) base β, the
/// critical base β₀ for fine-tuning at T_tune, and the small-base thresholds β₁, β₂, β₃.
#pragma once

namespace rope {

/// Largest training or tuning length accepted (any real context is far below it).
inline constexpr double kMaxExtrapolationLength = 1e15;

/// The critical dimension of d, base and training length T                                   (C6)
///
///     x = (d/2)·log_base(T/2π),   d_extra = 2·⌈x⌉   (at most d)
///
/// Pairs i < ⌈x⌉ have wavelengths λ_i = 2π·base^(2i/d) < T: they complete a full turn in training.
/// ⌈x⌉ equals first_pair_beyond (frequencies.hpp, (M16)) except when some λ_i equals T exactly.
struct CriticalDimension {
  double x = 0.0;       ///< (d/2)·log_base(T/2π)
  int pairs = 0;        ///< ⌈x⌉, capped at d/2
  int dimension = 0;    ///< d_extra = 2·pairs
  bool capped = false;  ///< x > d/2: every pair completes a turn within T, d_extra = d
};

/// @throws InvalidArgument unless d is valid (check_dimension), base > 1 is finite and
///         2π < T ≤ kMaxExtrapolationLength.
CriticalDimension critical_dimension(int d, double base, double T);

/// The extrapolation bound of a model with critical dimension d_extra, run with base β         (C7)
///
///     T_extra = 2π·β^(d_extra/d)
///
/// the wavelength of the critical pair i = d_extra/2 under β. @throws InvalidArgument for bad d, β or
/// d_extra (even, 0 … d).
double extrapolation_bound(int d, double beta, int d_extra);

/// Whether (C7) applies to β for a model pre-trained with `base`: Liu et al. derive T_extra for
/// fine-tuning with a base at least the pre-training one (their "larger base" theorem); below it
/// the pairs beyond d_extra turn faster than in training and the small-base regime (C9) applies.
inline bool extrapolation_bound_applies(double base, double beta) { return beta >= base; }

/// The critical base for fine-tuning at T_tune a model pre-trained at T_train with `base`       (C8)
///
///     β₀ = base^(log_{T_train/2π}(T_tune/2π))
///
/// so that 2π·β₀^(x/(d/2)) = T_tune with x of (C6): the base whose critical-pair wavelength (before
/// rounding x up) equals T_tune. @throws InvalidArgument unless base > 1 and both lengths are in
/// (2π, kMaxExtrapolationLength].
double critical_base(double base, double T_train, double T_tune);

/// The small-base thresholds for a tuning length T (C9), with the slowest pair's period taken as
/// 2π·β: below β₁ = 2T/π every pair turns at least a quarter turn within T, below β₂ = T/π half a
/// turn, below β₃ = T/2π a full turn.
struct SmallBaseThresholds {
  double quarter = 0.0;  ///< β₁ = 2T/π
  double half = 0.0;     ///< β₂ = T/π
  double full = 0.0;     ///< β₃ = T/2π
};
/// @throws InvalidArgument unless 2π < T ≤ kMaxExtrapolationLength.
SmallBaseThresholds small_base_thresholds(double T);

}  // namespace rope
