#include "rope/cli/lang.hpp"

#include <optional>

#include "rope/cli/catalog.hpp"
#include "rope/cli/choice_option.hpp"
#include "rope/core/error.hpp"

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

namespace rope::cli {

namespace {

Lang g_default_lang = Lang::En;  // set by run() before the commands are added; one run at a time

}  // namespace

/// Whether a locale name can show Chinese as rope writes it, in UTF-8: its codeset (after '.', before
/// '@') is UTF-8, or it names none. zh_TW.Big5 or zh_CN.GB18030 cannot: English there, not mojibake.
static bool utf8_codeset(std::string_view locale) {
  const std::size_t dot = locale.find('.');
  if (dot == std::string_view::npos) return true;
  std::string codeset;
  for (char c : locale.substr(dot + 1, locale.find('@', dot) - dot - 1)) {
    if (c != '-' && c != '_') codeset += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return codeset == "utf8";
}

Lang detect_lang(int argc, const char* const* argv) {
  std::optional<Lang> typed;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i] != nullptr ? argv[i] : "";
    if (arg == "--") break;  // what follows is a positional value, never an option
    std::string_view value;
    if (arg == "--lang" && i + 1 < argc && argv[i + 1] != nullptr) {
      value = argv[++i];
    } else if (arg.rfind("--lang=", 0) == 0) {
      value = arg.substr(7);
    } else {
      continue;
    }
    if (value == "zh") typed = Lang::Zh;
    if (value == "en") typed = Lang::En;
  }
  if (typed) return *typed;
  for (const char* name : {"LC_ALL", "LC_MESSAGES", "LANG"}) {
    const char* value = std::getenv(name);
    if (value != nullptr && *value != '\0')
      return std::strncmp(value, "zh", 2) == 0 && utf8_codeset(value) ? Lang::Zh : Lang::En;
  }
  return Lang::En;
}

void set_default_lang(Lang lang) { g_default_lang = lang; }

Lang default_lang() { return g_default_lang; }

CLI::Option* add_lang_option(CLI::App& app, Lang& lang) {
  lang = default_lang();
  return add_choice_option(app, "--lang", lang, {"en", "zh"}, parse_lang, "language of the text: en or zh (中文)",
                           "LANG")
      ->default_str(to_string(lang));
}

}  // namespace rope::cli
