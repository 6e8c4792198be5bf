/// @file
/// The two pair layouts side by side, and the bug of mixing them (docs/math.md (M5), (M6), (M8);
/// e.g. https://github.com/jzhang38/TinyLlama/issues/24).
///
/// Meta's Llama code rotates the interleaved pairs (2i, 2i+1); Hugging Face's rotate_half rotates the
/// half-split pairs (i, i + d/2). convert_llama_weights_to_hf.py permutes the q/k weight rows of each
/// head by P (rotation.hpp's layout_permutation) so that the half kernel computes Meta's scores. This
/// demonstration takes q and k in the interleaved (Meta) layout and computes, at positions m and n:
///
///   (a) reference  ⟨R^int_m q, R^int_n k⟩              Meta weights, Meta's kernel: the trained score
///   (b) mixed      ⟨R^half_m q, R^half_n k⟩            Meta weights, rotate_half, no conversion: the bug
///   (c) fixed      ⟨R^half_m P q, R^half_n P k⟩        converted weights, rotate_half: the fix
///
/// (b) is still a valid RoPE, so it satisfies the relative identity (M8): it pairs channels that were
/// never trained together and gives them other frequencies, so its scores are not (a)'s. (c) equals
/// (a) because R^half_m P = P R^int_m (M6) and ⟨P u, P v⟩ = ⟨u, v⟩.
///
/// Exactness. Every score here is summed pair by pair (pair_dot), pair 0 first. Then (c) and (a) add
/// the same floating-point numbers in the same order (P moves whole pairs and does no arithmetic), so
/// they are equal bit for bit, not merely within the tolerance (M13). A plain channel-order dot product
/// would add the same terms in another order and agree only to about ε·d·‖q‖‖k‖.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <optional>
#include <vector>

#include "rope/core/random.hpp"
#include "rope/core/rotation.hpp"
#include "rope/core/tolerance.hpp"
#include "rope/core/types.hpp"

namespace rope {

/// Bounds on one demonstration: the dense d×d matrices of the (M6) check stay at 8 MB each, and the
/// sweep at about 10^8 cos/sin pairs.
inline constexpr int kMaxLayoutsDim = 1024;
inline constexpr long kMaxLayoutsDistance = 100'000;
/// |m| and |n| above this leave no correct digit in the angle m·θ_0 of a float64 (ε·|m| ≈ 2e-7 rad at
/// 1e9) and are never what a user meant.
inline constexpr double kMaxLayoutsPosition = 1e9;

struct LayoutsSettings {
  int dim = 8;
  double base = kDefaultBase;
  std::uint64_t seed = kDefaultSeed;
  double m = 5;   ///< position of the query
  double n = 12;  ///< position of the key
  /// The sweep puts the query at m and the key at m + δ, δ = 0, 1, …, max_distance.
  long max_distance = 64;
  /// Frequencies to use instead of frequencies(dim, base), e.g. a scaled model's inv_freq; dim must
  /// then be 2 × their number.
  std::optional<Eigen::VectorXd> inv_freq;
  /// The query and key to use instead of the draws of Random(seed) (e.g. a trained head's); each of
  /// length dim, finite.
  std::optional<Eigen::VectorXd> q;
  std::optional<Eigen::VectorXd> k;
};

/// perm with x_half = x_interleaved[perm], the NumPy form of P (M6):
/// perm = [0, 2, 4, …, d − 2, 1, 3, …, d − 1], so (P x)_c = x_{perm[c]}. @throws InvalidArgument for a bad d.
std::vector<int> layout_perm(int d);

/// The three scores (a), (b), (c) of the file comment at one pair of positions.
struct LayoutScores {
  double interleaved = 0.0;  ///< (a) ⟨R^int_m q, R^int_n k⟩, the reference
  double mixed = 0.0;        ///< (b) ⟨R^half_m q, R^half_n k⟩, the bug
  double fixed = 0.0;        ///< (c) ⟨R^half_m P q, R^half_n P k⟩, the fix
};

/// (a), (b) and (c) for q, k in the interleaved layout, rotated by the frequencies theta.
/// @throws InvalidArgument if q or k does not have length 2·theta.size().
LayoutScores layout_scores(const Eigen::VectorXd& theta, const Eigen::VectorXd& q, const Eigen::VectorXd& k, double m,
                           double n);

/// The relative identity (M8) ⟨R_m q, R_n k⟩ = qᵀ R_{n−m} k in one layout, over every pair of
/// positions of the demonstration, against the tolerance (M13).
struct LayoutIdentityCheck {
  Layout layout = Layout::Interleaved;
  long samples = 0;
  /// difference = max |Δ| over the samples, scale = S = ‖q‖‖k‖ (the same q, k in every sample), and
  /// tolerance = κ·ε·(d + M) on |Δ|/S, M = the largest |m| + |n| + |n − m| of the samples (M13).
  Check check;
};

struct LayoutsDemo {
  LayoutsSettings settings;
  int dim = 0;
  Eigen::VectorXd theta;
  Eigen::VectorXd q;  ///< settings.q, else q ~ N(0, I): the first d normals of Random(seed)
  Eigen::VectorXd k;  ///< settings.k, else k ~ N(0, I): the next d normals
  LayoutScores at;    ///< the scores at (settings.m, settings.n)

  /// The sweep: the query at m, the key at m + δ.
  Eigen::VectorXd distances;  ///< δ = 0, 1, …, max_distance
  Eigen::VectorXd score_interleaved;
  Eigen::VectorXd score_mixed;
  Eigen::VectorXd score_fixed;

  double max_mixed_change = 0.0;   ///< max over the sweep of |(b) − (a)|
  double mean_mixed_change = 0.0;  ///< mean over the sweep of |(b) − (a)|
  /// max of |(c) − (a)| over the sweep and (m, n): the fix must make it exactly 0.
  double max_fixed_change = 0.0;

  /// max |R^half_p − P R^int_p Pᵀ| over p ∈ {m, n}: (M6), must be exactly 0.
  double conjugation_error = 0.0;
  LayoutIdentityCheck identity_interleaved;  ///< (M8) for the scores (a)
  LayoutIdentityCheck identity_half;         ///< (M8) for the scores (b): the bug still satisfies it

  /// The fix and (M6) exactly, and (M8) in both layouts within tolerance.
  bool passed() const;
};

/// The cos/sin cache as it sits in memory: rows are positions m = 0 … positions − 1,
/// columns the channels of one layout's table. The half layout (HF Llama's `emb = torch.cat((freqs, freqs),
/// dim=-1)`: channel c uses θ_(c mod d/2)), the interleaved layout (GPT-J's and DeepSeek's
/// `repeat_interleave(2)`: channel c uses θ_(c/2)) and the half-width tables (gpt-oss keeps cos, sin of d/2
/// columns, column i = pair i, used by both halves of the vector). The angle is m·θ wrapped to (−π, π] over π,
/// so that all three tables lie in [−1, 1]. The partners of pair 0 are the two columns it multiplies: (0, d/2)
/// in the half layout, (0, 1) interleaved, and column 0 twice (read in the cos and the sin table) for gpt-oss.
/// One table for the figure of `rope layouts --cache`, the lesson page and the live page alike.
enum class CacheTable { Half, Interleaved, HalfWidth };
struct LayoutCacheTable {
  CacheTable kind = CacheTable::Half;
  Eigen::MatrixXd cos;    ///< positions × width
  Eigen::MatrixXd sin;    ///< positions × width
  Eigen::MatrixXd angle;  ///< m·θ wrapped to (−π, π], over π
  int partner_a = 0;      ///< pair 0's first column
  int partner_b = 0;      ///< its second column (= partner_a for the half-width table)
};
struct LayoutCache {
  int dim = 0;
  int positions = 0;
  std::vector<LayoutCacheTable> tables;  ///< half, interleaved, half-width, in this order
};
/// The rows of the cache figure by default: positions 0 … 15.
inline constexpr int kCachePositions = 16;
/// The three tables of the frequencies `theta` (d/2 of them) at positions 0 … positions − 1.
/// @throws InvalidArgument for no frequencies or positions outside 1 … 4096.
LayoutCache layout_cache(const Eigen::VectorXd& theta, int positions = kCachePositions);

/// Runs the demonstration. @throws InvalidArgument if a setting breaks its rule (d even in
/// 2 … kMaxLayoutsDim, base > 1, finite |m|, |n| <= kMaxLayoutsPosition, 0 <= max_distance <=
/// kMaxLayoutsDistance, inv_freq of length dim/2 if given).
LayoutsDemo layouts_demo(const LayoutsSettings& settings);

}  // namespace rope
