/// @file
/// User text on its way into a gnuplot script or a message: quote() for the script (the one way user
/// text enters it), squash() for a message on one line.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace rope::plot {

/// `text` as a gnuplot string expression that prints as `text`: single-quoted, embedded ' doubled
/// (quote("it's") == "'it''s'"), every control character (newline, CR, tab, ESC, …) replaced by a space
/// and bytes that are not UTF-8 by U+FFFD. Inside single quotes gnuplot does no backslash, backquote or
/// macro processing, so no text can run a command. gnuplot 5.4 cannot double a ' at the start of a
/// literal or twice in a row, so such quotes are joined on as a substring of a string of quotes:
/// quote("'a") == "\"''\"[1:1] . 'a'".
std::string quote(std::string_view text);

/// The longest text squash() returns, in bytes (plus "...").
inline constexpr std::size_t kMaxMessage = 400;

/// The last kMaxMessage bytes of `text` on one line (every run of white space one space, cut at a
/// character boundary): gnuplot's own message comes last, after the echoed command and the caret line.
std::string squash(std::string_view text);

/// Whether `text` holds an ASCII control character (below 0x20, or DEL).
bool has_control_character(std::string_view text);

}  // namespace rope::plot
