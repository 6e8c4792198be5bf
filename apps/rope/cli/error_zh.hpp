/// @file
/// Error messages in Chinese, at the CLI boundary: the library (namespace rope) and CLI11 throw English
/// messages; with `--lang zh` cli.cpp shows each through error_zh, which matches it against the English
/// templates of error_zh_messages.cpp and fills the matching Chinese template with the variable parts as
/// they were (values, paths, option names, numbers; control characters are escaped afterwards, as for
/// English). Exit codes do not change.
///
/// A template is the English text with `{}` for a value kept verbatim and `{m}` for a nested message
/// (translated too when a template matches it, e.g. the reason after "cannot read 'FILE': ", else kept); the Chinese names them {0}, {1}, …
/// in the order they appear in the English. When several templates match, the one with the most fixed
/// text wins. tests/cli/test_error_zh.cpp runs every message of docs/errors.md through it.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace rope::cli {

/// The Chinese of `english`, or nullopt when no template matches it.
std::optional<std::string> error_zh_exact(const std::string& english);

/// The Chinese of `english`, or `english` itself when no template matches.
std::string error_zh(const std::string& english);

namespace detail {
struct ErrorTemplate {
  const char* en;
  const char* zh;
};
/// Every template: error_templates_first() (error_zh_messages.cpp: CLI11, values, lists, files) then
/// error_templates_second() (error_zh_messages_more.cpp: the rules of each command and of the library), then
/// error_templates_third() (error_zh_messages_third.cpp: file and config readers, figures, internal checks),
/// then error_templates_fourth() (error_zh_messages_fourth.cpp: vision towers, apply's vector lengths).
std::vector<ErrorTemplate> error_templates();
const std::vector<ErrorTemplate>& error_templates_first();
const std::vector<ErrorTemplate>& error_templates_second();
const std::vector<ErrorTemplate>& error_templates_third();
const std::vector<ErrorTemplate>& error_templates_fourth();
}  // namespace detail

}  // namespace rope::cli
