/// @file
/// `rope identify` as one library call: the RoPE that turned one dump into the other (identify.hpp), from files
/// (dump_files.hpp; a streamed dump larger than kIdentifyElements sampled), or from tensors a front end holds
/// (identify_tensors: the Python module's); both the one reading of identify_run.cpp. The report's printers are
/// report/identify_report.hpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rope/analysis/check/dump_files.hpp"
#include "rope/analysis/dumps/dump_pair.hpp"
#include "rope/analysis/identify/identify.hpp"
#include "rope/core/dtype.hpp"

namespace rope {

/// Largest number of elements of each dump rope identify holds (16 MiB as doubles): a larger streamed dump is
/// sampled.
inline constexpr long kIdentifyElements = 1L << 21;

struct IdentifyRequest {
  DumpFiles dumps;
  std::optional<DType>
      dtype;  ///< the type the dump was computed in, for the rounding identify allows (default: the file's)
};

/// A batch row or packed sequence (LoadedDumps::segments) whose positions the dump shifts by a constant of its own:
/// its number, its first sequence index and the shift (the dump's position − the given one).
struct SegmentOffset {
  long segment = 0;
  long start = 0;
  double offset = 0;
};

/// The report of one identification: the dumps as arranged (their values dropped) and what was identified.
struct IdentifyRun {
  std::string before_file, after_file;  ///< the files as named ("" for arrays handed over)
  LoadedDumps dumps;                    ///< geometry, positions and how they were given; no values
  Identification id;
  /// The batch rows or packed sequences whose positions the dump shifts by a constant unlike the others' (row 1 at
  /// 5000 + i where 0 … 63 is given: what check names "positions offset" per row), those shifted by a non-zero one;
  /// empty when every segment has the same shift (position_offset says it) or the dump was sampled.
  std::vector<SegmentOffset> segment_offsets;
  /// M-RoPE position_ids [3, batch, seq] read by the kernel as [batch, 3, seq]: the number of batch rows (the
  /// identification is at the positions so read); 0 otherwise.
  long mrope_batch_rows = 0;
  /// k's buffer walked with q's head count (rope check's k-with-query-heads): the query heads H_q the keys were read
  /// with, key (t, h) of H_k heads turned at the position of index ⌊(t·H_k + h) / H_q⌋ (the identification is at the
  /// positions so read); 0 otherwise.
  long query_heads = 0;
  /// A latent grid's leading text tokens (every component equal, as Flux gives them all (0, 0, 0)) turned at their
  /// order 0 … tokens − 1 on axis `axis` (−1: on every axis), found where the positions given fit no grid and those so
  /// counted do (rope check's text-ids-counted; the identification is at the positions so counted).
  struct TextCounted {
    int axis = 0;
    long tokens = 0;
  };
  std::optional<TextCounted> text_counted;
  /// Every key turned by the same angles where the positions given differ (a K cache moved by one shift, not each key
  /// by its own new − old of a shift map: rope check's shift-map-one-delta): δ, pair 0's turn (the nearest integer
  /// where within kOneTurnMisfit), the base of the default ladder that the turns δ·θ_j fit, and the largest angle
  /// (rad) by which a pair misses δ·base^(−2j/D) (the identification is at every key at δ).
  struct OneTurn {
    double delta = 0;
    double base = 0;
    double misfit = 0;
  };
  std::optional<OneTurn> one_turn;
  /// A dump in heads read with its heads side by side, one vector of heads·head_dim channels per token (LTX's table
  /// spans every head's channels), where read as heads sharing one table it fits none: the dump's heads and each one's
  /// channels (the identification is of the vectors so read); nullopt otherwise.
  struct HeadsTogether {
    long heads = 0;
    int head_dim = 0;
  };
  std::optional<HeadsTogether> heads_together;

  /// The dump's positions are not the ones given (an offset, a restart or a jump, positions held from an index on,
  /// heads at positions of their own): a failed check's exit code.
  bool positions_differ() const {
    return id.position_offset != 0 || !id.jumps.empty() || id.held_from >= 0 || !id.group_offsets.empty() ||
           mrope_batch_rows > 0 || query_heads > 0 || text_counted.has_value() || one_turn.has_value();
  }
  /// A failed check's exit code: the positions differ, the rotation is reversed (every pair turns clockwise), or the
  /// heads pair their channels in different layouts (a q/k permutation wrong on some heads).
  /// FoPE's padded pairs turned into √2·R(π/4) (rope check's fope-sin-padded-one) fail too.
  bool failed() const {
    return positions_differ() || id.reversed || !id.heads_paired_otherwise.empty() ||
           (id.fope && id.fope->sin_padded_one);
  }
};

/// Fewest pairs from which one_turn_reading measures a ladder's base and δ.
inline constexpr int kOneTurnMinPairs = 4;
/// Largest 1 − |Σ u| / Σ |u| of a pair's phasors over the keys for one turn: an angle spread of about 0.045 rad RMS.
inline constexpr double kOneTurnCoherence = 1e-3;
/// Largest angle (rad) by which a pair's unwrapped turn may miss δ·θ_j of the fitted ladder.
inline constexpr double kOneTurnMisfit = 0.05;

/// IdentifyRun::one_turn: where every pair of `id` (paired, at the positions `given`, which differ) turns by one angle
/// at every index, those angles unwrapped from the slowest pair along a geometric ladder: δ, the base, and `id`
/// replaced by the identification at every key at δ. nullopt (and `id` untouched) otherwise.
std::optional<IdentifyRun::OneTurn> one_turn_reading(const DumpVectors& before, const DumpVectors& after,
                                                     const std::vector<double>& given, Identification& id);

/// Reads the dumps (sampled when streamed and larger than kIdentifyElements) and identifies: identify_rope at the
/// positions given, then the readings of them that explain what those leave unexplained (IdentifyRun's fields); 4
/// axes read as [batch, heads, seq, d] without --axes and nothing paired: read again as [batch, seq, heads, d].
/// @throws InvalidArgument, IoError as the readers and identify_rope.
IdentifyRun run_identify(const IdentifyRequest& request);

/// The same reading on dumps a front end arranged (dump_pair.hpp), without the second reading of the axes.
IdentifyRun identify_arranged(DumpPair pair);

/// The same as run_identify on tensors a front end holds (the Python module's identify), arranged by `input`
/// (arrange_dump_pair, the dumps named "before" and "after"). @throws InvalidArgument as arrange_dump_pair and
/// identify_rope.
IdentifyRun identify_tensors(const TensorData& before, const TensorData& after, const DumpPairInput& input);

}  // namespace rope
