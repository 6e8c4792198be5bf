/// @file
/// The options of `rope attention` (cmd_attention.cpp) and their limits.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "rope/analysis/teaching/attention.hpp"
#include "rope/analysis/teaching/attention_run.hpp"
#include "rope/cli/figure_options.hpp"
#include "rope/cli/scaling_options.hpp"
#include "rope/core/random.hpp"
#include "rope/core/types.hpp"

namespace rope::cli {

/// kMaxPrintedTokens: analysis/teaching/attention_run.hpp.
/// A heatmap with more rows than the figure has pixels shows nothing more (and makes gnuplot slow).
inline constexpr int kMaxFigureTokens = 512;
/// |C| for --shift: beyond, the (M13) tolerance of RoPE grows past 1e-5 of the score.
inline constexpr long kMaxShift = 1'000'000'000;

/// --dim when not typed and no model gives a head.
inline constexpr int kDefaultAttentionDim = 8;

/// --heads and --head when not typed.
inline constexpr int kDefaultHeads = 8;
inline constexpr int kDefaultHead = 1;

struct AttentionOptions {
  int tokens = 8;
  std::optional<int> dim;  ///< --dim; nullopt: the model's head_dim, the length of --q, or kDefaultAttentionDim
  std::optional<Encoding> encoding;  ///< --encoding; nullopt: rope
  std::optional<long> shift;         ///< --shift C: run the shift test
  bool causal = false;
  bool compare = false;
  std::uint64_t seed = kDefaultSeed;
  std::optional<double> base;  ///< --base, for rope and sinusoidal
  std::optional<int> heads;    ///< --heads, for alibi
  std::optional<int> head;     ///< --head, for alibi
  std::string csv;
  bool json = false;  ///< --json: the report's value (report/attention_report.hpp attention_value)
  FigureOptions figure;
  ScalingOptions scaling;     ///< --model, --config, --scaling …: the model's RoPE (S19) for --encoding rope
  bool wide = false;          ///< --wide: the shift table with two spaces between columns and the long verdicts
  std::string q, k;           ///< --q, --k: the user's q_i and k_j, a row per token (vector_options.hpp); empty: drawn
  bool show_vectors = false;  ///< --show-vectors: print every q_i and k_j
  bool tokens_given = false;  ///< --tokens typed (it must then match the number of --q vectors)
  std::optional<int> digits;  ///< --digits N: significant digits of the shift table (digits.hpp); nullopt: the policy

  Encoding encoding_value() const { return encoding.value_or(Encoding::Rope); }
  double base_value() const { return base.value_or(kDefaultBase); }
  int heads_value() const { return heads.value_or(kDefaultHeads); }
  int head_value() const { return head.value_or(kDefaultHead); }
};

}  // namespace rope::cli
