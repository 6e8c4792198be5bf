/// @file
/// xPos (Sun et al. 2022, "A Length-Extrapolatable Transformer", arXiv:2212.10554, §3.2; the same scale
/// as flash-attn's RotaryEmbedding(scale_base=…) in Dao-AILab/flash-attention flash_attn/layers/rotary.py
/// and lucidrains/rotary-embedding-torch's use_xpos): RoPE whose pair j is also scaled, q by ζ_j^(n/s)
/// and k by ζ_j^(−n/s), so that the score carries ζ_j^((n_q − n_k)/s) (docs/multi-axis.md §5):
///     ζ_j = (2j/d + γ)/(1 + γ),  γ = 0.4,  j = 0 … d/2 − 1                                      (X1)
///     X_q(n) x = ζ^(n/s) ⊙ R_n x,   X_k(n) x = ζ^(−n/s) ⊙ R_n x   (ζ_j on both channels of pair j) (X2)
///     ⟨X_q(m) q, X_k(n) k⟩ = Σ_j ζ_j^((m − n)/s) · ⟨(R_m q)_j, (R_n k)_j⟩                         (X3)
///     ⟨X_q(m) q, X_k(n) k⟩ = ⟨X_q(m − n) q, X_k(0) k⟩ = that of (m + c, n + c) for any c          (X4)
///     f_ζ(t) = (1/(d/2)) Σ_j |Σ_{i≤j} ζ_i^(t/s) e^(i·t·θ_i)|   (RoFormer's bound (M11) of the score (X3)) (X5)
/// flash-attn and lucidrains measure n from the middle of the sequence (power (n − ⌊L/2⌋)/s); the centre
/// cancels in (X3), so rope takes n itself.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include "rope/analysis/verify/verify.hpp"
#include "rope/core/types.hpp"

namespace rope {

inline constexpr double kXposGamma = 0.4;             ///< γ of (X1), the paper's and flash-attn's 0.4
inline constexpr double kDefaultXposScaleBase = 512;  ///< s: lucidrains' xpos_scale_base, flash-attn's recommendation
/// Largest |n|/s: ζ_0^(±n/s) = (2/7)^(±n/s) stays within 1e±272 of 1, far from overflow and subnormals.
inline constexpr double kMaxXposPower = 500;
/// Most terms (distances × d/2) of the xPos bound (X5) one call computes: each costs a pow, a sin and a cos,
/// so 1e8 is some 10–20 s on a 2-core machine (docs/errors.md, Limits).
inline constexpr double kMaxXposTerms = 1e8;

enum class XposRole { Query, Key };

/// ζ_0 … ζ_(d/2−1) of (X1). @throws InvalidArgument for an odd or non-positive d.
Eigen::VectorXd xpos_zeta(int d);

/// ζ_j^(±n/s) of (X2): + for the query, − for the key. @throws InvalidArgument for s <= 0 or |n|/s > kMaxXposPower.
Eigen::VectorXd xpos_scale(int d, double n, double scale_base, XposRole role);

/// X_q(n) x or X_k(n) x of (X2) in `layout`. @pre x.size() == 2·theta.size().
Eigen::VectorXd apply_xpos(const Eigen::VectorXd& x, const Eigen::VectorXd& theta, double n, double scale_base,
                           XposRole role, Layout layout);

/// f_ζ(t) of (X5) at each distance t (t = n_q − n_k >= 0: the query comes later and ζ < 1 damps it).
Eigen::VectorXd xpos_bound(const Eigen::VectorXd& theta, double scale_base, const Eigen::VectorXd& distances);

/// The curves of `rope decay --xpos` at each distance t, all divided by f(0) = (d/2 + 1)/2 (= f_ζ(0)):
/// RoFormer's bound f(t) (M11), the xPos bound f_ζ(t) (X5), and the scale factor of (X3) at distance t:
/// ζ_0^(t/s) (the fastest decay), the mean over pairs, and ζ_(d/2−1)^(t/s) (the slowest).
struct XposDecay {
  Eigen::VectorXd bound, xpos_bound, zeta_first, zeta_mean, zeta_last;
};
XposDecay xpos_decay(const Eigen::VectorXd& theta, double scale_base, const Eigen::VectorXd& distances);

/// The rows of `rope verify --xpos`: (X4) relative, (X4) shift, (X3) the score's scale; and the contrast
/// expected to fail: RoPE's plain relative identity (M8) without the scale.
struct XposIdentities {
  std::vector<IdentityResult> rows;
  IdentityResult contrast;
};

/// q, k ~ N(0, I), positions and shifts uniform integers in [0, max_position), in float64.
/// @throws InvalidArgument for trials < 1, max_position outside [1, kMaxVerifyPosition] or 2·max_position/s
/// above kMaxXposPower.
/// `vectors`: the user's q and k in place of the drawn ones, at their given positions if any (verify.hpp).
XposIdentities verify_xpos(const Eigen::VectorXd& theta, Layout layout, double scale_base, long trials,
                           double max_position, std::uint64_t seed, const VerifyVectors* vectors = nullptr);

}  // namespace rope
