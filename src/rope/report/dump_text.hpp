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
