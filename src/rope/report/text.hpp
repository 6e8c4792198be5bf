/// @file
/// The language of what a person reads, and the one way a report's printer writes a sentence in it. A printer
/// (report/*.hpp) holds each sentence in English, its catalog id; the front end that installed a translator
/// (the command line, the Python module, the live page: core/message.hpp) gives its Chinese from po/zh_CN.po.
///
///     const Text t(lang);
///     out << t.tr("{0} of {1} identities passed\n", passed, total);
///
/// `make pot` extracts the ids (keywords tr, and trc with a context). Internal to the library and its front
/// ends: it includes fmt, so it is not installed (src/CMakeLists.txt).
#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <utility>

#include "rope/core/message.hpp"

namespace rope {

/// "en" or "zh". @throws rope::InvalidArgument naming the value and the rule.
Lang parse_lang(std::string_view value);

/// "en" or "zh".
const char* to_string(Lang lang);

/// The English or the Chinese version of a report's sentences.
class Text {
 public:
  explicit Text(Lang lang = Lang::En) : lang_(lang) {}
  Lang lang() const { return lang_; }
  /// `english` in this language: in Chinese its translation from the installed catalog, the English itself
  /// where there is none (the test catalog.complete lists those). `english` is the id (keyword tr).
  const char* tr(const char* english) const { return trc({}, english); }
  /// The same with values: `english` names its fields {0}, {1}, … (python-brace-format, fmt's format specs
  /// allowed: {1:.3f}); the Chinese may order them differently.
  template <class... Args>
  std::string tr(const char* english, Args&&... args) const {
    return fmt::format(fmt::runtime(tr(english)), std::forward<Args>(args)...);
  }
  /// `english` in the catalog's context `context`: for a word the catalog translates otherwise elsewhere
  /// (rope check's verdict "FAIL"; keyword trc, the context first).
  const char* trc(std::string_view context, const char* english) const;

 private:
  Lang lang_;
};

}  // namespace rope
