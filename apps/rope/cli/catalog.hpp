/// @file
/// The one message catalog: po/zh_CN.po, GNU gettext's format, embedded into the program at build time
/// (scripts/embed_po.cmake) and read once by rope::parse_po. Every sentence rope shows a person has one id,
/// its English text; the catalog gives its Chinese. No system locale and no .mo file is involved, and
/// `--lang` still wins over the locale (lang.hpp).
///
/// Two contexts: no context for help texts and the commands' own text (looked up exactly), and "error" for
/// error messages, whose ids carry numbered fields {0}, {1}, … (python-brace-format): an error's message
/// is looked up by its id (error_zh.hpp), an error without one (CLI11's own) matched by its English. An
/// extracted comment "nested: {k} …" marks the fields that are messages of their own.
/// tests/cli/test_catalog.cpp holds the catalog's rules (msgfmt --check, no fuzzy or obsolete entry, fields
/// that agree).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rope/io/po_file.hpp"

namespace rope::cli {

/// The context of error messages in the catalog.
inline constexpr std::string_view kErrorContext = "error";

/// The Chinese of `english` in `context`, nullptr when the catalog has no (non-empty) translation.
const std::string* catalog_zh(std::string_view english, std::string_view context = {});

/// The translated entry of `english` in `context`, nullptr when the catalog has none.
const PoEntry* catalog_entry(std::string_view english, std::string_view context = {});

/// Every entry of the embedded catalog, the header included, in file order.
const std::vector<PoEntry>& catalog_entries();

/// The embedded catalog's text, as the build copied it from po/zh_CN.po.
std::string_view catalog_text();

/// The field numbers named by an extracted comment "nested: {0} {2}" of `entry`.
std::vector<int> nested_fields(const PoEntry& entry);

}  // namespace rope::cli
