/// @file
/// Error messages in Chinese, at the CLI boundary: the library (namespace rope) and CLI11 throw English
/// messages; with `--lang zh` cli.cpp shows each through error_zh, which matches it against the error
/// entries of the catalog (po/zh_CN.po, context "error", catalog.hpp) and fills the matching Chinese with
/// the variable parts as they were (values, paths, option names, numbers; control characters are escaped
/// afterwards, as for English). Exit codes do not change.
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

namespace rope::cli {

/// The Chinese of `english`, or nullopt when no template matches it.
std::optional<std::string> error_zh_exact(const std::string& english);

/// The Chinese of `english`, or `english` itself when no template matches.
std::string error_zh(const std::string& english);

}  // namespace rope::cli
