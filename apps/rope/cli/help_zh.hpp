/// @file
/// The Chinese of `--help`: the entries of the catalog (po/zh_CN.po, catalog.hpp) keyed by the exact
/// English text of each description (commands and options), group name, footer paragraph and CLI11
/// heading. The English stays a single literal next to its option in each cmd_*.cpp; its Chinese is one
/// entry of the catalog, which tests/cli/test_help_zh.cpp asks for by its English text when it is missing.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rope::cli {

/// The Chinese of one English help text, nullptr when the catalog has none.
const char* help_zh(std::string_view english);

/// A command's footer in Chinese: each paragraph of prose (separated by a blank line) by the catalog,
/// the "Example:" heading translated, the example command lines (starting with two spaces) kept.
/// Paragraphs without Chinese stay English and are appended to `missing` when it is given.
std::string footer_zh(const std::string& footer, std::vector<std::string>* missing = nullptr);

}  // namespace rope::cli
