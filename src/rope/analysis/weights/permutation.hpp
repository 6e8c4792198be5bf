/// @file
/// The q/k row permutation that llama.cpp's converter applies (convert_hf_to_gguf.py, LlamaModel.permute;
/// documented in ggml-org/ggml docs/gguf.md as llama.tensor_data_layout "Meta AI original pth"), why it is
/// exact, and the GQA bug it invited (ggml-org/llama.cpp #2376, #3018 fixed by PR #3364; TinyLlama #24;
/// huggingface/transformers #31766 for the reverse direction).
///
/// Hugging Face's Llama weights are laid out for rotate_half: in each head of hd rows, row j and row
/// j + hd/2 form pair j. llama.cpp's NORM RoPE pairs rows (2j, 2j+1). The converter reorders the rows of
/// q_proj per head (n_head heads) and of k_proj per KV head (n_head_kv heads):
///
///     reshape(heads, 2, hd/2, cols).swapaxes(1, 2).reshape(rows, cols)
///     new row h·hd + 2j + s  =  old row h·hd + s·hd/2 + j      (s = 0, 1; j < hd/2)          (G1)
///
/// so HF's pair (j, j + hd/2) becomes the adjacent pair (2j, 2j+1) with the same frequency θ_j. Scores
/// are then equal: NORM on P W gives the same rotated pairs as rotate_half on W (docs/math.md (M6)).
/// The bug: k_proj has n_head_kv·hd rows; permuting it with n_head (the q count) cuts it into groups of
/// n_head_kv·hd / n_head rows, pairing rows of different pairs and heads.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rope/core/random.hpp"
#include "rope/core/types.hpp"

namespace rope {

/// Bounds: rows of one projection and the model width of the random weights (the demo's work is
/// rows × width × distances).
inline constexpr long kMaxPermuteRows = 1L << 16;
inline constexpr int kMaxPermuteWidth = 4096;
inline constexpr long kMaxPermuteDistance = 10'000;
/// The random weights hold at most this many numbers ((q rows + k rows) × width; 2^24 doubles = 128 MiB).
inline constexpr long kMaxPermuteWeights = 1L << 24;

/// (G1): order[r] = the HF row that becomes row r, for `rows` rows cut into `heads` groups.
/// @throws InvalidArgument unless heads >= 1 and rows is a positive multiple of 2·heads (the reshape needs it).
std::vector<long> gguf_row_order(long rows, long heads);

/// Whether the converter's reshape works for these sizes (rows a multiple of 2·heads).
bool gguf_permutable(long rows, long heads);

struct PermuteSettings {
  int head_dim = 8;  ///< rows per head (the rotary dimension: the whole head is rotated)
  long n_head = 4;
  long n_head_kv = 2;
  /// Where n_head came from, for a refusal: "FILE: num_attention_heads" (a model's config), "" typed or default.
  std::string n_head_from;
  double base = kDefaultBase;
  std::optional<Eigen::VectorXd> inv_freq;  ///< a model's (scaled) frequencies instead of base's
  int width = 16;                           ///< columns of the random weights (the model width)
  std::uint64_t seed = kDefaultSeed;
  double m = 5;  ///< the query's position; keys at m + δ, δ = 0 … max_distance
  long max_distance = 64;
};

struct PermuteDemo {
  PermuteSettings settings;
  std::vector<long> q_order;                     ///< (G1) with n_head
  std::vector<long> k_order;                     ///< (G1) with n_head_kv
  std::optional<std::vector<long>> k_order_bug;  ///< (G1) on k with n_head: nullopt when the reshape fails
  Eigen::VectorXd distances;                     ///< δ
  Eigen::VectorXd score_hf;                      ///< head 0: rotate_half on HF weights
  Eigen::VectorXd score_gguf;                    ///< head 0: NORM on permuted weights
  Eigen::VectorXd score_bug;                     ///< head 0: NORM with k permuted by n_head (empty without bug)
  double max_fix_difference = 0.0;               ///< over all heads and distances: |gguf − hf|
  double tolerance = 0.0;                        ///< the largest per-score bound 2·hd·ε·Σ|terms|
  double max_bug_difference = 0.0;               ///< |bug − hf| over all heads and distances
  double mean_bug_difference = 0.0;
  double score_rms = 0.0;  ///< root mean square of the HF scores: their size
  long scores = 0;         ///< scores compared (heads × distances)
  bool passed() const { return max_fix_difference <= tolerance; }
};

/// Random HF weights W_q (n_head·hd × width), W_k (n_head_kv·hd × width) and inputs ~ N(0, 1), seeded;
/// for every query head h (its KV head h / (n_head / n_head_kv)) and distance δ:
///   hf   = ⟨R^half_m W_q x, R^half_(m+δ) W_k y⟩ (per head)
///   gguf = ⟨R^int_m P_q W_q x, R^int_(m+δ) P_k W_k y⟩
///   bug  = the same with P_k built from n_head.
/// Scores are summed pair by pair (core/rotation.hpp pair_dot), so gguf adds the same products in the same
/// order as hf: equal bit for bit. The stated tolerance is the textbook bound for two dot products of hd
/// terms (Higham, Accuracy and Stability, §3.1), which another summation order would have to meet.
/// @throws InvalidArgument for sizes outside the bounds, n_head not a multiple of n_head_kv, odd head_dim.
PermuteDemo permute_demo(const PermuteSettings& settings);

}  // namespace rope
