/// @file
/// Error messages in Chinese, at the CLI boundary. An error of the library or the command line carries a
/// rope::Message (core/message.hpp): with `--lang zh` cli.cpp shows it by its key, `error_zh(message)`,
/// the catalog's Chinese of its id (po/zh_CN.po, context "error", catalog.hpp) filled with its values, a
/// nested message translated the same way. CLI11's own parse errors carry finished English only:
/// `error_zh(english)` matches that text against the error entries of the catalog and fills the matching
/// Chinese with the variable parts as they were (values, paths, option names, numbers; control characters
/// are escaped afterwards, as for English). Exit codes do not change.
///
/// An entry's id is the English text with numbered fields {0}, {1}, … for the values ("{{" and "}}" for a
/// literal brace); a field that is a message of its own (the reason after "cannot read 'FILE': ") is
/// named by the comment "nested: {k}" and translated too when an entry matches it, else kept. When
/// several entries match, the one with the most fixed text wins. tests/cli/test_error_zh.cpp runs every
/// message of docs/errors.md through it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rope/core/message.hpp"

namespace rope::cli {

/// The Chinese of an error's message, by its key: the catalog's translation of its id with the same values,
/// nested messages translated too. A text value the catalog marks `nested: {k}` (a system's reason, a
/// library sentence handed on as text) is translated by matching it; a message whose id has no Chinese is
/// matched by its English, `error_zh(message.en)`. An entry with more fixed text than the id that fits the
/// whole English wins: the catalog's phrasing of a name the library builds in English ("FILE line 3").
std::string error_zh(const Message& message);

/// The Chinese of `english`, or nullopt when no template matches it.
std::optional<std::string> error_zh_exact(const std::string& english);

/// The Chinese of `english`, or `english` itself when no template matches.
std::string error_zh(const std::string& english);

}  // namespace rope::cli
