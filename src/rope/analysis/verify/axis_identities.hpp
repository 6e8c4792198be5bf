/// @file
/// RoPE's relative-position identities for a multi-axis spec (docs/multi-axis.md §3, rows of
/// `rope verify` for a model with multimodal sections). With φ_j(p) = θ_j·p_a(j) (A1) linear in p,
/// R_p is a rotation whose angles add, so for positions p, p' of any number of axes:
///     ⟨R_p q, R_p' k⟩ = ⟨q, R_(p'−p) k⟩                                                 (A5)
///     ⟨R_(p+c) q, R_(p'+c) k⟩ = ⟨R_p q, R_p' k⟩   for any shift c of all axes              (A6)
///     the same for a shift c·e_a of one axis a alone (t, h or w)                             (A7)
/// q, k ~ N(0, I); positions and shifts uniform integers in [0, max_position) on every axis.
#pragma once

#include <cstdint>
#include <vector>

#include "rope/analysis/verify/verify.hpp"
#include "rope/models/rope_spec.hpp"

namespace rope {

/// Draws checked at most (each is a few rotations of a head: O(d)); the rows say how many were used.
inline constexpr long kMaxAxisDraws = 100'000;

/// (A5), (A6) and one (A7) row per axis of spec.axes, in float64 on the rotating channels, with the
/// tolerance (M13) for the position budget 6·max_position (the positions of one check sum to less).
/// `vectors`: the user's q and k in place of the drawn ones (verify.hpp VerifyVectors); their positions `at`, when
/// given, are m, n and c on every axis.
/// @pre spec.axes. @throws InvalidArgument for trials < 1 or max_position outside [1, kMaxVerifyPosition].
std::vector<IdentityResult> verify_axes(const RopeSpec& spec, long trials, double max_position, std::uint64_t seed,
                                        const VerifyVectors* vectors = nullptr);

}  // namespace rope
