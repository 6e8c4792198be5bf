/// @file
/// "Did you mean": the known word closest to a mistyped one, by edit distance. Used for commands,
/// options, model presets, layer types and the words of an enumerated option.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace rope {

/// Optimal string alignment distance between `a` and `b`: insertions, deletions, substitutions and
/// transpositions of two neighbouring characters cost 1 each ("dmi" -> "dim" is 1). Bytes, not characters.
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate closest to `word` when it is close enough to be a typo: at most 1 edit for a word of up
/// to 4 characters, 2 up to 8, 3 beyond; the same letters without '-', '_' and '.' also count as a match
/// ("llama3.1-8b" for "llama-3.1-8b"). The first of equally close candidates; "" when none is close or
/// `word` is itself a candidate.
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace rope
