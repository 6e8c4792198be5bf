/// @file
/// The language of a command's human-readable text: `--lang en|zh` on every command. Tables, headings,
/// explanations and figure labels follow it; CSV and JSON keys, option names and file names stay as
/// they are. Every command prints through a Text: the source holds each sentence in English, its id, and
/// the one catalog po/zh_CN.po its Chinese (catalog.hpp; `make pot` lists the ids):
///
///     const Text t(lang);
///     out << t.tr("{0} of {1} identities passed\n", passed, total);
#pragma once

#include "rope/report/text.hpp"
#include <string>
#include <string_view>
#include <utility>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace rope::cli {

using rope::Lang;  // report/text.hpp: the language and the printers' Text are the library's
using rope::Text;

/// The language of a run, known before the command line is parsed (for --help and parse errors):
/// an explicit `--lang zh` / `--lang=zh` (or en) anywhere in argv wins, the last one if repeated;
/// otherwise the locale, POSIX order: the first non-empty of LC_ALL, LC_MESSAGES, LANG, Chinese when it
/// starts with "zh" (zh_CN.UTF-8, zh_TW, …); otherwise English. A --lang word that is not en or zh is
/// ignored here (its error is then reported in the locale's language).
Lang detect_lang(int argc, const char* const* argv);

/// The language every command's --lang starts with when not typed: rope::cli::run sets it from
/// detect_lang before the commands are added, so LANG=zh_CN.UTF-8 gives Chinese tables too.
void set_default_lang(Lang lang);
Lang default_lang();

/// Adds `--lang LANG` (en or zh) to a command, parsed into `lang` by parse_lang's words
/// (choice_option.hpp); `lang` starts as default_lang().
CLI::Option* add_lang_option(CLI::App& app, Lang& lang);

}  // namespace rope::cli
