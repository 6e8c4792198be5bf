#include "rope/cli/lang.hpp"

#include "rope/core/error.hpp"

namespace rope::cli {

Lang parse_lang(const std::string& value) {
  if (value == "en") return Lang::En;
  if (value == "zh") return Lang::Zh;
  throw InvalidArgument(fmt::format("--lang must be 'en' or 'zh' (got '{}')", value));
}

CLI::Option* add_lang_option(CLI::App& app, std::string& lang) {
  return app.add_option("--lang", lang, "language of the text: en or zh (中文)")->type_name("LANG")->capture_default_str();
}

}  // namespace rope::cli
