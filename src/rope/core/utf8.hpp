/// @file
/// UTF-8 decoding (RFC 3629): one code point at a time, whether a text is valid UTF-8, and where a
/// cut falls on a character boundary. The figures use it to clean the texts they quote
/// (rope/plot/text.hpp) and to find the characters that need a CJK font.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace rope {

/// Decodes one UTF-8 sequence at text[i]; advances i. Strict: overlong forms, surrogates and values
/// above U+10FFFF are invalid (then i advances by one byte and nullopt is returned).
/// @pre i < text.size()
std::optional<char32_t> decode_utf8(std::string_view text, std::size_t& i);

/// Whether every byte of `text` belongs to a valid UTF-8 sequence (decode_utf8 never fails on it).
bool is_valid_utf8(std::string_view text);

/// The first position at or after `pos` that does not fall inside a character: continuation bytes
/// (10xxxxxx) are skipped, so text.substr(result) starts with a whole character. At most text.size().
std::size_t utf8_boundary_at_or_after(std::string_view text, std::size_t pos);

/// The columns a terminal gives `text`: 2 for a wide character (CJK radicals … Han, compatibility
/// ideographs, full-width forms), 0 for a combining diacritical mark, 1 for anything else (an invalid
/// byte is shown as one replacement character). The one measure of display width: the command line pads
/// its tables with it (rope/report/printing.hpp columns(), pad()).
std::size_t display_width(std::string_view text);

/// The bound of a value quoted in a message (a cell, a path, a tensor name, a key): its escaped text keeps at most
/// this many bytes, so a megabyte of one input line still gives one line a reader can take in.
inline constexpr std::size_t kQuotedBytes = 200;
/// No bound: the whole text (a report's own header, the terminal's stream).
inline constexpr std::size_t kWholeText = std::string_view::npos;

/// Whether escape_controls keeps a report's layout (newline and tab as they are) or writes one line.
enum class Lines { Escaped, Kept };

/// `text` safe for a terminal, the one escape of rope's messages and output: every C0 control, DEL, C1 control
/// (U+0080 … U+009F), bidirectional control (U+061C, U+200E, U+200F, U+202A … U+202E, U+2066 … U+2069) and byte
/// that is not UTF-8 is shown escaped (\n, \t, \r, \e, \xNN, \u0085, \u202e), so no input can move the cursor,
/// retitle, clear the terminal or reorder what it shows. When the escaped text is longer than `max_bytes`, it
/// ends after the last whole character or escape that fits, then "…" (never inside a UTF-8 sequence or an
/// escape). With Lines::Kept, newline and tab stay as they are.
std::string escape_controls(std::string_view text, std::size_t max_bytes = kWholeText, Lines lines = Lines::Escaped);

/// `text` with every byte that is not part of a UTF-8 sequence written as the text \xNN (JSON output).
std::string valid_utf8(const std::string& text);

}  // namespace rope
