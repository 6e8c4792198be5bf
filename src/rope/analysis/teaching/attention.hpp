/// @file
/// One attention head under each way of encoding position, for `rope attention` and `rope encodings`:
/// the scores s_ij of query i and key j, the attention matrix A = softmax of each row of s, and the
/// shift test (move every position by C and measure how much the scores change).
///
/// (Every 1/√d below is the settings' scale when a model gives its own: AttentionSettings::scale.)
///   none        s_ij = q_i·k_j / √d                                  position-blind
///   rope        s_ij = ⟨R_{p_i} q_i, R_{p_j} k_j⟩ / √d                (M8): depends on p_j − p_i only
///   sinusoidal  s_ij = ⟨q_i + P(p_i), k_j + P(p_j)⟩ / √d              (M12): leaks absolute position
///   alibi       s_ij = q_i·k_j / √d − m·|p_i − p_j|                  Press et al. 2021 (alibi.hpp)
///   t5          s_ij = q_i·k_j / √d + r[bucket(p_j − p_i)]           Raffel et al. 2019 §2.1
///   learned     s_ij = ⟨q_i + E[p_i], k_j + E[p_j]⟩ / √d              a table E of L rows (BERT, GPT-2)
///
/// p_i is the position of token i, P the sinusoidal encoding (sinusoidal.hpp), R_p the rotation of
/// (M5) in the interleaved layout. As in docs/math.md §7, the additive encodings are added to q and k
/// of the head directly; in a real model they are added to the input x before W_q and W_k, which puts
/// the weights into the cross terms but does not make them relative. T5 itself does not divide by √d
/// (Mesh TensorFlow folds the scale into the initialisation of W_q); here every encoding does, so that
/// the contents term is the same in all six.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <optional>
#include <string_view>

#include "rope/core/tolerance.hpp"
#include "rope/core/types.hpp"
#include "rope/models/rope_spec.hpp"

namespace rope {

enum class Encoding { None, Rope, Sinusoidal, Alibi, T5Bias, LearnedAbsolute };

/// "none", "rope", "sinusoidal", "alibi", "t5", "learned".
std::string_view to_string(Encoding encoding);

/// The encodings of `rope attention`: "rope", "sinusoidal", "alibi" or "none".
/// @throws InvalidArgument naming the value otherwise (also for "t5" and "learned", which need trained
///         tables and are used by `rope encodings` only, with random stand-ins).
Encoding parse_encoding(std::string_view text);

/// Bounds of one head: the scores are a tokens × tokens matrix of doubles (128 MiB at 4096 tokens).
inline constexpr int kMaxAttentionTokens = 4096;
inline constexpr int kMaxAttentionDim = 1024;

/// T5's relative position buckets (Raffel et al. 2019, arXiv:1910.10683 §2.1: 32 buckets, sizes growing
/// logarithmically up to max_distance 128, beyond which all distances share a bucket).
struct T5Buckets {
  int num_buckets = 32;
  int max_distance = 128;
  bool bidirectional = true;  ///< encoder self-attention; the decoder uses false
};

/// The bucket of relative_position = key position − query position, computed as Hugging Face's
/// T5Attention._relative_position_bucket (from Mesh TensorFlow) computes it:
///
///   bidirectional: n = num_buckets/2 buckets per direction; keys after the query (j − i > 0) get +n
///   max_exact = n/2: distances 0 … max_exact − 1 get a bucket each
///   larger:  max_exact + ⌊log(dist/max_exact) / log(max_distance/max_exact) · (n − max_exact)⌋,
///            capped at n − 1
///   unidirectional: keys after the query (j − i > 0) are all bucket 0.
///
/// For 32 buckets, 128, bidirectional: |j − i| = 0 … 7 → 0 … 7, 8 … 11 → 8, 12 … 15 → 9, and every
/// |j − i| >= 91 → 15 (plus 16 when j > i). HF computes the logarithm in float32; for every integer
/// |j − i| <= 5000 with these settings the result equals this double-precision one (checked with NumPy's
/// float32 arithmetic, both directions).
/// @throws InvalidArgument unless num_buckets >= 4 and even (bidirectional) or >= 2 (unidirectional), and
///         max_distance > max_exact, so that the logarithmic range is not empty.
int t5_relative_position_bucket(long relative_position, const T5Buckets& buckets = {});

struct AttentionSettings {
  Encoding encoding = Encoding::Rope;
  double base = kDefaultBase;     ///< rope and sinusoidal
  double alibi_slope = 0.5;       ///< alibi: m of the head (alibi_slopes(8)[0] = 1/2)
  T5Buckets t5;                   ///< t5
  Eigen::VectorXd t5_bias;        ///< t5: r_b, one value per bucket (learned in T5)
  Eigen::MatrixXd learned_table;  ///< learned: row t is E[t], d columns; positions must be 0 … rows − 1
  bool causal = false;            ///< mask: query i sees keys j <= i only (A_ij = 0 exactly for j > i)
  /// rope with a model (--model/--config): the model's rotation (S19) of each q_i and k_j instead of
  /// plain interleaved RoPE of `base`: its layout, rotating channels (d = head_dim or rotary_dim) and
  /// attention factor a in cos and sin, so the scores carry a². Frequencies that depend on the sequence
  /// length (dynamic, longrope) are taken at seq_len = max(positions) + 1, as HF's dynamic update does.
  std::optional<RopeSpec> spec;
  /// The softmax scale: s_ij = ⟨q_i, k_j⟩ · scale (a model's own, ModelConfig::attention_scale: HF's self.scaling,
  /// llama.cpp's kq_scale; docs/scaling.md (S22)); nullopt: 1/√d, d the length of q.
  std::optional<double> scale;
  /// rope with a model whose attention scales the query after RoPE ((S21): Ministral 3, Mistral 4): q_i × s(p_i).
  std::optional<QueryScaling> query_scaling;
  /// The scores capped before the softmax, s → softcap·tanh(s / softcap) (Gemma 2); nullopt: none.
  std::optional<double> softcap;
};

/// The softmax scale of `settings` for vectors of d numbers: settings.scale, else 1/√d.
double score_scale(const AttentionSettings& settings, Eigen::Index d);

/// q_i and k_j ~ N(0, I): rows of `q` and `k` (tokens × d), drawn from rope::Random(seed) in the order
/// q_0, q_1, …, then k_0, k_1, …, each row's d entries in channel order.
struct QueriesKeys {
  Eigen::MatrixXd q;
  Eigen::MatrixXd k;
};
/// @throws InvalidArgument unless 1 <= tokens <= kMaxAttentionTokens and d is even, 2 … kMaxAttentionDim.
QueriesKeys random_queries_keys(int tokens, int d, std::uint64_t seed);

/// first, first + 1, …, first + tokens − 1.
Eigen::VectorXd token_positions(int tokens, double first = 0.0);

/// The scores s_ij (before the mask), one row per query i, one column per key j; see the table above.
/// @param q, k       tokens × d, the same shape; d even.
/// @param positions  the position of each token (queries and keys share them).
/// @throws InvalidArgument for mismatched shapes, a bad base or slope, a t5_bias of the wrong length,
///         or, for t5 and learned, a position that is not an integer (learned: not a row of the table).
Eigen::MatrixXd attention_scores(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k, const Eigen::VectorXd& positions,
                                 const AttentionSettings& settings);

/// softmax of each row: A_ij = exp(s_ij − max_j s_ij) / Σ_j exp(s_ij − max_j s_ij). With `causal`, only
/// the keys j <= i enter row i, and A_ij = 0 exactly for j > i. Each row sums to 1 up to rounding:
/// |Σ_j A_ij − 1| <= about (2N + 2)·ε for N keys (ε for the exp and the quotient, N − 1 for each sum).
Eigen::MatrixXd softmax_rows(const Eigen::MatrixXd& scores, bool causal);

/// softmax_rows(attention_scores(…), settings.causal).
Eigen::MatrixXd attention_weights(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k, const Eigen::VectorXd& positions,
                                  const AttentionSettings& settings);

/// How much the scores change when every position p_i moves to p_i + shift (the same q_i, k_j).
/// Only the entries that the mask keeps are compared. The tolerance is that of (M13) for
/// ⟨R_{m+c} q, R_{n+c} k⟩ = ⟨R_m q, R_n k⟩, as `rope verify` uses it: |Δ|/S <= κ·ε·(d + M), with
/// S = ‖q_i‖‖k_j‖·scale (scale 1/√d or the settings' own; a model's a² and query scaling on ‖q_i‖) and M = |p_i| +
/// |p_j| + |p_i + c| + |p_j + c|. It is what rounding allows RoPE; ALiBi, T5 and none must give exactly 0 for integer
/// positions, and the additive encodings far more.
struct ShiftReport {
  double shift = 0.0;
  double max_abs_change = 0.0;     ///< max |Δ s_ij|
  double max_weight_change = 0.0;  ///< max |Δ A_ij|
  double position_budget = 0.0;    ///< the largest M of a compared entry
  /// Normalised, as each entry has its own S_ij (tolerance.hpp): difference = max |Δ s_ij| / S_ij (+inf
  /// for a change where S_ij = 0), scale = 1, tolerance = κ·ε·(d + M) at that M, a bound on |Δ|/S.
  /// check.passed(): the change is within rounding.
  Check check;
};
/// The work is done a block of query rows at a time: memory O(tokens·(d + 256)), not O(tokens²).
ShiftReport shift_test(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k, const Eigen::VectorXd& positions,
                       double shift, const AttentionSettings& settings);

}  // namespace rope
