/// @file
/// How the reports of `rope check`, `diff` and `identify` name a dump's positions and vectors.
#pragma once

#include <string>

#include "rope/analysis/check/dump_files.hpp"

namespace rope {

class Text;
class Value;

/// The positions as typed, or "0:seq (assumed)" in the language of t.
std::string positions_text(const LoadedDumps& dumps, const Text& t);

/// The positions of the sequence indices [start, start + length), as runs: "57", "0–127", or, where the positions
/// do not step by one, each run of them ("9, 47, 36"; at most four runs, then "…"). Positions per axis are named
/// by their first and last ("(0, 0, 0)–(0, 3, 5)").
std::string position_span(const LoadedDumps& dumps, long start, long length);

/// Whether sequence index `next` continues a run of positions that ends at index `last`: its position is one more
/// (positions per axis: always, a run of indices).
bool position_follows(const LoadedDumps& dumps, long last, long next);

/// The reports' row after "dump" when 4 axes were read as Hugging Face's [batch, heads, seq, d] without --axes
/// (LoadedDumps::axes_assumed): "batch,heads,seq,d assumed: …; give --axes batch,seq,heads,d …"; "" otherwise.
std::string axes_assumed_text(const LoadedDumps& dumps, const Text& t);

/// The same in JSON: "axes": "batch,heads,seq,d" and "axes_assumed": true when assumed; nothing otherwise.
void axes_assumed_value(Value& j, const LoadedDumps& dumps);

/// "head 3", or "batch 1, head 3" when the dump has a batch axis longer than 1.
std::string group_name(const DumpVectors& dump, long group, const Text& t);

/// "head 3" or "batch 1, head 3" of the vector at sequence index s, group g, batch rows laid along the
/// sequence axis counted too.
std::string vector_name(const LoadedDumps& dumps, long s, long group, const Text& t);

}  // namespace rope
