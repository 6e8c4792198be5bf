/// @file
/// A constant offset of the positions (docs/check.md, the row "positions offset"): the dump turned each vector by
/// (p + δ)·θ_i where the positions given say p: positions forgotten (a dump at 40000 + i checked at 0 … n − 1), a batch
/// row's or a packed sequence's start left out, a context-parallel rank's slice at another rank's positions. δ is
/// measured from one vector's pair angles, as identify reads angles: for pair i the dump turns by φ_i, so
///
///     δ·θ_i ≡ φ_i − p·θ_i   (mod 2π)                                                               (P1)
///
/// for every rotated pair at once. The lowest frequency leaves δ ambiguous by multiples of 2π/θ_min; each candidate
/// there is unwrapped through the higher frequencies in turn (the ratio of neighbouring θ is base^(2/r), small, so
/// each step resolves the next pair's turns), rounded to an integer, and kept when every pair agrees with (P1).
#pragma once

#include <optional>

#include "rope/analysis/check/check.hpp"

namespace rope {

/// Largest |δ| searched (positions beyond 2^24 are not integers in float32, where most kernels compute m·θ).
inline constexpr double kMaxOffsetSearched = 1 << 24;
/// Most candidates of the lowest frequency unwrapped (each costs one pass over the pairs): with θ_min large (θ = 1 for
/// every pair) the search stops at kMaxOffsetCandidates·2π/θ_min.
inline constexpr long kMaxOffsetCandidates = 4096;
/// Largest angle (rad) by which a pair may miss (P1) at the δ found: well above a bf16 dump's angle error (≈ 2^-8 rad)
/// and a float32 angle's rounding at positions up to 2^20, well below a wrong δ's typical miss (up to π).
inline constexpr double kOffsetAngleTolerance = 0.05;

/// The integer δ ≠ 0 such that the vector `y` (after RoPE) is `x` (before) turned at position `position` + δ under
/// `expected` (pairs where pair_channels puts them; the attention factor changes only the norm); nullopt when no
/// integer within kMaxOffsetSearched fits every pair of a norm worth reading within kOffsetAngleTolerance, or the
/// expectation has several position axes. `x` and `y` hold the d channels of one vector.
std::optional<long> measure_position_offset(const RopeExpectation& expected, const double* x, const double* y,
                                            double position);

/// A failing range whose first failing vector (`report.comparison`'s) fits its position plus an integer δ: the
/// variant "positions offset" by δ compared over the range [start, start + positions.size()) of `source` and kept in
/// report.variants; the diagnosis matches it (found "offset") when it passes. Nothing for multi-axis positions.
void try_position_offset(CheckReport& report, const DumpSource& source, long start,
                         const std::vector<AxisPosition>& positions);

/// Most heads named with their offsets (try_head_offsets); more failing heads are not searched.
inline constexpr long kMaxOffsetHeads = 16;

/// Some heads fail, the others pass, and each failing head (group) fits its positions plus its own integer δ, measured
/// from its vector at the first failing index and confirmed over the whole range (the variant of each δ compared in
/// one pass: the heads of that δ fail nowhere under it): the diagnosis "positions offset" per head, found "offset" and
/// "head" (then "offset_1", "head_1", … for the others, and "batch" where the groups hold batch rows), "heads" the
/// number of failing heads. Nothing for multi-axis positions, a sample, or more than kMaxOffsetHeads failing heads.
void try_head_offsets(CheckReport& report, const DumpSource& source, long start,
                      const std::vector<AxisPosition>& positions);

/// Batch rows (`rows`) or packed sequences whose whole check matches nothing, while every failing one was diagnosed
/// as its positions plus a constant offset: the whole diagnosis names them, each with its offset ("2 of 4 batch rows
/// fail, each matching its positions shifted by a constant (row: shift) 1: +5000, 3: +7000"), found "offset" the
/// first one's.
void diagnose_segment_offsets(CheckReport& report, const SegmentChecks& checks, bool rows);

/// Largest range (tokens) whose positions diagnose_cp_positions reads, and largest packed batch (the rank's tokens
/// times the cp size) it splits: one fit of (P1) per token, one split per size and layout tried.
inline constexpr long kMaxCpDiagnosedTokens = 1L << 16;

/// A failing range of packed sequences (`segments`, two or more) whose every vector is turned at a context-parallel
/// rank's positions other than those given (a
/// rank's positions from the dump, (P1) at every index with |δ| ≤ 64·n, confirmed by comparing the whole range at
/// them): the positions 0 … n − 1 where a rank's are given (found "not_offset": positions not offset per rank),
/// another rank's of the same packed batch (found "cp_size", "cp_rank", "given_rank", "layout"; the batch is the
/// rank's sequences `segments` each cp times as long, zigzag or contiguous), or the rank's own of the packed batch cut
/// as one sequence (found "one_sequence"). Replaces a diagnosis of the positions (none, pieces of offsets, position_ids
/// ignored, a short cache, a restart, a rank named from pieces), never one constant offset or another kind; tokens
/// numbered across sequences whose positions restart stay position_ids ignored. Nothing for multi-axis positions, a
/// sample, or more than kMaxCpDiagnosedTokens tokens.
void diagnose_cp_positions(CheckReport& report, const DumpSource& source, long start,
                           const std::vector<AxisPosition>& positions, const std::vector<DumpSegment>& segments);

}  // namespace rope
