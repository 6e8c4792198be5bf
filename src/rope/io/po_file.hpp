/// @file
/// Reading a GNU gettext PO file (a translation catalog) from its text: the subset that msgfmt writes and
/// checks, so that a catalog can be embedded in a program as text and read without a system locale or a
/// compiled .mo file. glibc's gettext reads only .mo files from a locale directory, and libgettextpo only
/// files on disk, so rope parses the text itself (docs/architecture.md, "One message catalog").
///
/// Understood: comments (`#`, `#.` extracted, `#:` references, `#,` flags, `#|` previous), `msgctxt`,
/// `msgid`, `msgstr` with continuation strings and the C escapes msgfmt accepts (\n \t \" \\ \a \b \f \r
/// \v and octal), and obsolete entries (`#~`), which are kept and marked. Plural forms (`msgid_plural`,
/// `msgstr[n]`) are refused: rope's catalog has none.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace rope {

/// One entry of a PO file. The header (empty msgid) is an entry like the others.
struct PoEntry {
  std::string context;                 ///< msgctxt, empty when absent
  bool has_context = false;            ///< whether a msgctxt line was present (an empty one counts)
  std::string id;                      ///< msgid
  std::string str;                     ///< msgstr
  std::vector<std::string> flags;      ///< from `#,` lines: "fuzzy", "python-brace-format", ...
  std::vector<std::string> extracted;  ///< `#.` lines, without the marker and one leading space
  bool obsolete = false;               ///< a `#~` entry
  std::size_t line = 0;                ///< line of its msgid, from 1

  bool has_flag(std::string_view flag) const;
};

/// Limits of what parse_po reads (a catalog is written by people; these bound a hostile one).
inline constexpr std::size_t kMaxPoBytes = 16u << 20;
inline constexpr std::size_t kMaxPoEntries = 100000;

/// The entries of a PO file's text, in file order. `name` names the file in messages.
/// @throws InvalidArgument ("zh_CN.po:12: a string must start with '\"'") naming the line and the rule
///         broken, for text larger than kMaxPoBytes, or with more than kMaxPoEntries entries.
std::vector<PoEntry> parse_po(std::string_view text, const std::string& name);

}  // namespace rope
