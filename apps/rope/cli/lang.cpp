#include "rope/cli/lang.hpp"

#include "rope/cli/choice_option.hpp"
#include "rope/core/error.hpp"

namespace rope::cli {

Lang parse_lang(std::string_view value) {
  if (value == "en") return Lang::En;
  if (value == "zh") return Lang::Zh;
  throw InvalidArgument(fmt::format("--lang must be 'en' or 'zh' (got '{}')", value));
}

const char* to_string(Lang lang) { return lang == Lang::Zh ? "zh" : "en"; }

CLI::Option* add_lang_option(CLI::App& app, Lang& lang) {
  return add_choice_option(app, "--lang", lang, {"en", "zh"}, parse_lang, "language of the text: en or zh (中文)", "LANG")
      ->default_str(to_string(lang));
}

}  // namespace rope::cli
