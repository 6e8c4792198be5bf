/// @file
/// q and k checked together (`rope check --k-before --k-after`): beside each tensor's own verdict
/// (check_run.hpp, the one engine run twice), the relative-position identity of RoPE measured on the dumps themselves,
///
///     ⟨R_m q, R_n k⟩ = qᵀ R_(n−m) k                                                         (Q1)
///
/// the score of the rotated q at index m and the rotated k at index n against the score of the unrotated q and k with
/// k turned by the angles of n − m (φ_i(p_n) − φ_i(p_m), the expectation's frequencies and map), times q's attention
/// factor and query scaling and k's attention factor. Under GQA q head h reads k head h / (H_q / H_k) (the key-value
/// head its attention uses). The (m, n) are a bounded, deterministic sample: kQkSampleIndices sequence indices evenly
/// spread from the first to the last (the largest angles included), every ordered pair of them, every q vector
/// (batch × q heads) of each.
///
/// The tolerance of one score follows from (C1) (check.hpp): each element of the rotated q within
/// t_q,i = κ·s(m)·a_q·‖q_i‖·(2·ε_T + ε_A·(1 + c_i·|φ_i(p_m)|)), of k within t_k,i (the same at p_n with k's type and
/// factor), so a pair's error vector has a norm of at most √2·t, and the score, a sum of pair products, differs by
///
///     |Δs| <= Σ_i (√2·t_q,i·a_k·‖k_i‖ + √2·t_k,i·s(m)·a_q·‖q_i‖ + 2·t_q,i·t_k,i)
///             + Σ_j κ·(ε_T,q + ε_T,k + κ·ε_T,q·ε_T,k)·s(m)·|q_j|·|k_j|  + 2·d·ε_f64·Σ_c |q_c·k_c|   (Q2)
///
/// (j the unrotated channels; the last term the float64 sums of the two scores). A pair of tensors each within (C1)
/// meets (Q2); a score can also meet it where both tensors fail alike (both turned at positions offset by the same
/// δ: the scores depend on n − m only). The report gives the largest |Δs|/bound and, at that score, |Δs| and the
/// bound relative to S = Σ_c |q_c|·|k_c| (s(m)·a_q·a_k on the rotated pairs).
///
/// Where a tensor fails, two mistakes of a fused q/k kernel are tried on the same sample (ColossalAI issue #6428, PR
/// #6429: its Triton fused_rotary_emb computed out_q1 from k's halves and out_k0 from q's, and read k with q's head
/// count under GQA): qk-crossed (the second element of each of q's rotated pairs rotated from k's pair, k head
/// h / (H_q / H_k), and the first element of each of k's from q's, q head g·(H_q / H_k); or under the other GQA head
/// map, k head h mod H_k and q head g), and k-with-query-heads (k's
/// buffer of [T, H_k, d] walked as [T·H_k / H_q, H_q, d]: key (t, g) turned at the position of index
/// ⌊(t·H_k + g) / H_q⌋). A match is named in the diagnosis of the tensor it explains (both for qk-crossed).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rope/analysis/check/angle_error.hpp"
#include "rope/analysis/check/check.hpp"
#include "rope/analysis/check/dump_files.hpp"
#include "rope/core/message.hpp"

namespace rope {

/// Sequence indices of the pair's sample: every ordered pair of them (32² = 1024 (m, n)) with every q vector.
inline constexpr long kQkSampleIndices = 32;
/// The sample's values read at most: q and k before and after at the sampled indices (elements of the four);
/// fewer indices are sampled when the vectors are many (at least 2: the first and the last).
inline constexpr long kQkSampleElements = long{1} << 24;

/// One tensor of the pair: its dumps (in memory, or on disk: LoadedDumps::stream), the positions of its sequence
/// indices, its expectation and the angle model of its tolerance.
struct QkSide {
  const LoadedDumps& dumps;
  const std::vector<AxisPosition>& positions;
  const RopeExpectation& expected;
  AngleModel angles = AngleModel::Float32;
};

/// The pair's measurement of (Q1) under (Q2), and the fused kernels' mistakes it found.
struct QkPairCheck {
  /// Whether (Q1) was measured: not for FoPE (no rotation per pair) nor a split XD-RoPE map (a pair's two channels
  /// at two positions); `not_measured` says why.
  bool measured = false;
  Message not_measured;
  long q_heads = 0, k_heads = 0;
  long indices = 0;        ///< sequence indices sampled
  long pairs_sampled = 0;  ///< (m, n) pairs: indices²
  long scores = 0;         ///< scores compared: pairs × q vectors
  double max_ratio = 0;    ///< the largest |Δs|/bound of (Q2); <= 1 passes
  /// At that score: |Δs|/S and the bound/S (S = Σ_c |q_c|·|k_c| scaled as the score is), the sequence indices m (q)
  /// and n (k), the q and k group (batch × heads), the scores compared.
  double max_score_error = 0, tolerance = 0;
  long m = -1, n = -1, q_group = -1, k_group = -1;
  double got = 0, expected = 0;
  /// The row whose reading of the pass (VariantRow::paired: qk-crossed, k-with-query-heads) the sample matches
  /// (nullopt: none tried or none matched); run_check adds the one mistake both tensors' diagnoses name
  /// (rope-applied-twice).
  std::optional<VariantId> matches;
  /// The tensors whose diagnosis that row names (q's, k's) and its parameters there.
  bool names_q = false, names_k = false;
  std::vector<std::pair<std::string, double>> found;
  std::vector<ParameterDifference> difference;  ///< the parameters the named row changes, expected and found
  bool passed() const { return !measured || max_ratio <= 1; }
};

/// (Q1) on a sample of `q` and `k` (same sequence length and batch, q's heads a multiple of k's: the caller's rules)
/// under (Q2); `diagnose`: the two mistakes tried as well. @throws InvalidArgument, IoError from the readers.
QkPairCheck measure_qk_pair(const QkSide& q, const QkSide& k, bool diagnose);

}  // namespace rope
