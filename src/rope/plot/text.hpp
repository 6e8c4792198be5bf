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

/// A text figure of gnuplot's dumb terminal as a terminal shows it: gnuplot counts every character as
/// one column, a terminal gives a Chinese character two, which pushes the rest of its line (the frame's
/// right border) to the right. On each line, after wide characters, as many spaces as they took extra
/// columns are removed from the following gaps (the first space of every gap stays), so the line keeps
/// its width. ANSI colour sequences take no column.
std::string fit_wide_characters(std::string_view text);

/// `text` with the few characters the Chinese figures' font (WenQuanYi Micro Hei) lacks written with
/// glyphs it has: a run of subscripts or superscripts as _ or ^ and its characters (θᵢ → θ_i, QKᵀ → QK^T,
/// Rₙ₋ₘ → R_{n−m}, 10⁻⁴ → 10^-4), angle brackets as < >. gnuplot's GIF and sixel terminals (libgd) draw
/// a missing glyph as an empty box, so a Chinese figure drawn into one of them goes through it; the cairo
/// terminals (PNG, PDF) and SVG take each glyph WenQuanYi lacks from another font (DejaVu Sans) and keep them.
std::string in_cjk_font(std::string_view text);

/// Whether `text` holds an ASCII control character (below 0x20, or DEL).
bool has_control_character(std::string_view text);

}  // namespace rope::plot
