/// @file
/// `rope identify`: the RoPE that turned one dump into the other, from the numbers alone (docs/check.md).
///
///   1. Rotated channels: those that change somewhere beyond the dump's rounding (κ·ε_T·|x|); the rest is
///      the untouched tail (partial rotary) or zero-frequency pairs (proportional).
///   2. Attention factor a: RoPE keeps every pair's norm up to a, so a² = Σ‖y_R‖² / Σ‖x_R‖² over the rotated
///      channels R of every vector.
///   3. Pairing: for each rotated channel, the partner b whose pair keeps its norm (up to a) in every vector:
///      argmin_b Σ (y_a² + y_b² − a²(x_a² + x_b²))². The pairs found are named interleaved (2j, 2j+1), half
///      (j, j + r/2), or reported as the permutation they are.
///   4. Frequencies: for pair j = (a, b), z = x_a + i·x_b; at each position m the angle
///      φ(m) = arg Σ conj(z_before)·z_after (summed over batch and heads) is m·θ_j modulo 2π. Positions are
///      taken in increasing order and each φ unwrapped to the branch nearest the current fit's m·θ_j, then
///      θ_j = Σ m·φ / Σ m² (least squares through the origin). This needs a first non-zero position m with
///      m·θ_0 < π (consecutive positions from 0 or 1 are enough: θ_0 = 1/f <= 1).
///   5. Family: ln θ_j fitted by the scaling families of docs/scaling.md: geometric (default RoPE, and
///      static NTK, which is default RoPE with another base) (S1), (S3); linear (S2); YaRN's ramp, linear in
///      j (S6)–(S8); llama3's bands, linear in 1/λ (S11); the residual is the RMS of ln θ_measured −
///      ln θ_family over the rotated pairs, each weighted by 1/σ² of its ln θ_j (low frequencies seen
///      over few positions in a 16-bit dump weigh little).
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "rope/analysis/dump.hpp"
#include "rope/core/message.hpp"

namespace rope {

enum class PairLayout { Interleaved, Half, Other, None };
const char* to_string(PairLayout layout);

enum class Family { Default, Linear, Yarn, Llama3, PerPair };
const char* to_string(Family family);

/// One fitted family.
struct FamilyFit {
  Family family = Family::Default;
  double base = 0;       ///< from the kept (high-frequency) pairs
  double factor = 1;     ///< f: linear's divisor, yarn/llama3's factor for the interpolated pairs
  double ramp_low = 0;   ///< yarn: the ramp runs from pair ramp_low (kept) to ramp_high (interpolated);
  double ramp_high = 0;  ///< llama3: the wavelengths L0/high_freq_factor and L0/low_freq_factor
  double residual = 0;   ///< RMS of ln θ_measured − ln θ_fit over the rotated pairs
  Eigen::VectorXd theta; ///< the family's θ_j
};

struct Identification {
  int d = 0;
  int rotary_dim = 0;               ///< number of rotated channels
  std::vector<int> rotated;         ///< the rotated channels, increasing
  std::vector<std::pair<int, int>> pairs;  ///< (a, b), a < b, by increasing a; pair j = pairs[j]
  PairLayout layout = PairLayout::None;
  int family_dim = 0;                ///< the dimension of the frequency ladder: rotary_dim, or d for pairs (j, j + d/2)
  double attention_factor = 1;
  double norm_residual = 0;         ///< max over vectors and pairs of |‖y‖ − a‖x‖| / ‖x‖: how well a pairing keeps norms
  Eigen::VectorXd theta;            ///< measured θ_j per pair (negative: the pair turns the other way)
  Eigen::VectorXd angle_residual;   ///< per pair: RMS of φ − m·θ_j (rad)
  Eigen::VectorXd theta_sigma;      ///< per pair: standard error of θ_j, angle_residual / √(Σ m²)
  FamilyFit fit;                    ///< the best family
  std::vector<FamilyFit> fits;      ///< every family tried, best first
  std::vector<Message> notes;       ///< what could not be decided, and what the numbers also say
};

/// Largest head dimension identify takes: the pairing tries every pair of rotated channels (d² work on a
/// sample of 256 vectors); real heads have d <= 512.
inline constexpr int kMaxIdentifyDim = 1024;

/// Identifies the RoPE of (before, after) at `positions`. @throws InvalidArgument if the shapes differ,
/// positions.size() != before.seq, no position is non-zero, or d > kMaxIdentifyDim.
Identification identify_rope(const DumpVectors& before, const DumpVectors& after, const std::vector<double>& positions);

/// The θ_j of each family for `pairs` pairs of rotary dimension 2·pairs (also used by the figure).
Eigen::VectorXd family_theta(const FamilyFit& fit, int pairs);

namespace detail {
/// Step 5 alone: every family fitted to θ_j (rotary dimension 2·theta.size()), each pair weighted by
/// 1/σ² of its ln θ_j (`sigma_ln`, floored at 10⁻⁶ so exact data weighs the pairs alike), the chosen one first:
/// the simplest (default < linear < yarn, llama3) whose residual is within max(½·best, 10⁻³) of the best;
/// a per-pair entry first when even the best leaves a residual above 0.05. Appends what it could not
/// decide to `notes`.
std::vector<FamilyFit> fit_families(const Eigen::VectorXd& theta, const Eigen::VectorXd& sigma_ln,
                                    std::vector<Message>& notes);
}  // namespace detail

}  // namespace rope
