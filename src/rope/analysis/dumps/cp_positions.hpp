/// @file
/// The positions one rank of a context-parallel run holds (docs/check.md "Dumps of a distributed run"): a packed
/// batch (its sequence starts, FlashAttention's cu_seqlens, the total at the end) split over cp_size ranks, each
/// token at its position within its own sequence (restarting at 0 per sequence, as HF's packed position_ids), in
/// the rank's token order.
///   zigzag       each sequence cut into 2·cp chunks, rank r holds chunks r and 2·cp − 1 − r, sequence after
///                sequence (Megatron-LM and TransformerEngine: TE's thd_partition_indices_kernel,
///                transformer_engine/common/fused_attn/context_parallel.cu); a length not divisible by 2·cp is
///                refused, as TE asserts;
///   round-robin  the packed tokens dealt out in turn, token g of the batch on rank g mod cp (SGLang's
///                round-robin-split, python/sglang/srt/layers/attention/nsa/utils.py: token_idx % cp_size, the
///                remainder of one sequence carried into the next);
///   contiguous   each sequence cut into cp equal slices, rank r holds slice r (a length not divisible by cp
///                is refused).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rope {

enum class CpLayout { Zigzag, RoundRobin, Contiguous };

/// "zigzag", "round-robin", "contiguous".
std::string_view to_string(CpLayout layout);
/// The layout a name spells, or nullopt.
std::optional<CpLayout> parse_cp_layout(std::string_view name);

/// Largest context-parallel size.
inline constexpr long kMaxCpSize = 1L << 16;
/// Largest packed batch, in tokens: 2^20 (eight sequences of 128k; JSON of a rank at the limit holds 2^19 numbers).
inline constexpr long kMaxCpTokens = 1L << 20;

struct CpPositionsRequest {
  std::vector<long> sequence_starts;  ///< 0, the start of each later sequence, the total
  long cp_size = 1;
  long cp_rank = 0;
  CpLayout layout = CpLayout::Zigzag;
};

struct CpPositions {
  CpPositionsRequest request;
  std::vector<long> positions;  ///< the rank's tokens in its order: each one's position within its sequence
  std::vector<long> tokens;     ///< the same tokens' indices in the packed batch
  std::vector<long> sequence;   ///< the same tokens' sequences (0-based)
  /// The rank's own sequence starts (its local cu_seqlens: where each sequence's tokens begin in its order, the
  /// total at the end), what a check of this rank's dump takes as --sequence-starts.
  std::vector<long> local_starts;
};

/// The rank's positions. @throws InvalidArgument naming the setting (option_name: "sequence_starts", "cp_size",
/// "cp_rank") and the rule: starts that do not begin at 0 or do not increase, more than kMaxCpTokens tokens, a
/// cp size outside 1 … kMaxCpSize, a rank outside 0 … cp − 1, a sequence whose length the layout cannot split.
CpPositions cp_positions(const CpPositionsRequest& request);

/// cp_positions' rules alone, nothing allocated (a batch a merged report names, before its rows are read).
/// @throws InvalidArgument as cp_positions.
void check_cp_batch(const CpPositionsRequest& request);

}  // namespace rope
