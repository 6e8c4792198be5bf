#include "rope/report/text.hpp"

#include "rope/core/error.hpp"

namespace rope {

Lang parse_lang(std::string_view value) {
  if (value == "en") return Lang::En;
  if (value == "zh") return Lang::Zh;
  throw InvalidArgument(
      error_msg("{0} must be '{1}' or '{2}' (got '{3}')", option_name("lang"), "en", "zh", std::string(value)));
}

const char* to_string(Lang lang) { return lang == Lang::Zh ? "zh" : "en"; }

const char* Text::trc(std::string_view context, const char* english) const {
  if (lang_ != Lang::Zh) return english;
  const std::string* chinese = Message::translation(english, context);
  return chinese != nullptr ? chinese->c_str() : english;
}

}  // namespace rope
