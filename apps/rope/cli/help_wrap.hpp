/// @file
/// The line breaking of every help text (help_formatter.hpp, help_pages.hpp): at 100 columns, the
/// projector width, or at $COLUMNS; CJK characters count two columns and may break between them.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace rope::cli {

/// The columns help is broken at: $COLUMNS when it holds a number >= 40, else 100 (the projector width).
std::size_t help_width();

/// Lines of `text` (a paragraph; '\n' starts a new line) of at most `width` terminal columns (columns(),
/// CJK characters count 2), broken at spaces, or between two CJK characters; a word wider than the line
/// stays whole. Without line ends.
std::vector<std::string> wrap_text(std::string_view text, std::size_t width);

/// One entry of a list: "  name", the description starting at column `column` (on the next line when the
/// name reaches it) and continued there, every line within `width` columns. Ends with '\n'.
std::string help_entry(const std::string& name, const std::string& description, std::size_t column, std::size_t width);

/// A footer (prose and example command lines) within `width` columns: a longer command line is broken
/// at spaces and continued with " \\" as a shell would read it (tests/docs/check_help_examples.py joins
/// them), a longer line of prose is broken under its own indentation.
std::string wrap_footer(const std::string& footer, std::size_t width);

}  // namespace rope::cli
