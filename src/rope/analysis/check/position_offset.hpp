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
/// The row positions-offset (analysis/variants/positions_offset.cpp) compares and names what these measure: one
/// offset of a range, pieces of offsets, each head's own, a context-parallel rank's positions.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

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

/// δ at sequence index s of the range from `start` of `source`, group g, whose position is `position`
/// (measure_position_offset on that vector).
std::optional<long> measured_offset_at(const RopeExpectation& expected, const DumpSource& source, long start, long s,
                                       long g, double position);

/// Most pieces of constant offset searched in one range (each costs one comparison of it).
inline constexpr int kMaxOffsetPieces = 4;
/// Largest context-parallel size tried when pieces of offsets, or a range's positions read, are another rank's.
inline constexpr long kMaxCpSizeTried = 64;
/// Fewest positions named as a context-parallel rank's (fewer match a rank by chance).
inline constexpr long kMinCpPositions = 4;
/// Most heads named with their offsets; more failing heads are not searched.
inline constexpr long kMaxOffsetHeads = 16;
/// Largest range (tokens) whose positions are read at every token (dump_positions_read), and largest packed batch
/// (the rank's tokens times the cp size) split to name the rank: one fit of (P1) per token, one split per size and
/// layout tried.
inline constexpr long kMaxCpDiagnosedTokens = 1L << 16;

/// The context-parallel rank whose positions of one sequence (cp_positions) are `dump` where those given are another
/// rank's of the same size and layout: found {"cp_size", "cp_rank", "layout" (CpLayout's index), "given_rank"}, or,
/// where the positions given are no rank's of that sequence, the rank of the batch cut as one sequence
/// ({…, "one_sequence"}); empty where none is (fewer than kMinCpPositions positions, sizes up to kMaxCpSizeTried).
std::vector<std::pair<std::string, double>> cp_rank_of(const std::vector<AxisPosition>& given,
                                                       const std::vector<double>& dump);

/// The position at which the dump turned each vector of the range [start, start + positions.size()) of `source`: the
/// one given plus the integer δ of (P1) that fits, 0 included, |δ| ≤ `largest_delta`, read from the first of the
/// first 4 groups whose vector gives it; nullopt when one index gives none, or the positions have several axes.
std::optional<std::vector<double>> dump_positions_read(const RopeExpectation& expected, const DumpSource& source,
                                                       long start, const std::vector<AxisPosition>& positions,
                                                       double largest_delta);

}  // namespace rope
