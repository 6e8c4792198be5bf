/// @file
/// A sentence for people, as gettext keeps it: an id (its English text with numbered fields {0}, {1}, …,
/// fmt's format specs allowed: {1:.6g}) and the values of its fields. The library states what it noticed (a
/// warning, a rule it applied, where a value came from) as a Message and holds no other language: a front
/// end installs a translator (the command line installs its catalog po/zh_CN.po, apps/rope/cli/catalog.hpp)
/// and `in(true)` formats the translated id with the same values. A value may be a Message itself
/// (translated too). JSON output and tests use the English, `en`.
///
///     msg("factor {0} < 1 compresses the context instead of extending it", f)
///     Message::same("get_mscale(f) = 0.1·ln f + 1")   // a formula: the same in every language
///
/// `make pot` extracts the ids of msg(...) with xgettext (keyword msg).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace rope {

struct Message;

/// The language a person reads: English (the ids) or Chinese (the catalog's translations).
enum class Lang { En, Zh };

/// One value of a message: a number or a text shown as it is, or a message of its own.
struct MessageArg {
  enum class Kind { Int, UInt, Float, Double, Text, Nested };
  Kind kind = Kind::Text;
  long long i = 0;
  unsigned long long u = 0;
  double d = 0.0;
  std::string text;
  std::shared_ptr<const Message> nested;

  MessageArg(const Message& message);
  MessageArg(std::string value) : kind(Kind::Text), text(std::move(value)) {}
  MessageArg(const char* value) : kind(Kind::Text), text(value) {}
  MessageArg(std::string_view value) : kind(Kind::Text), text(value) {}
  MessageArg(char value) : kind(Kind::Text), text(1, value) {}
  MessageArg(bool value) : kind(Kind::Text), text(value ? "true" : "false") {}
  MessageArg(float value) : kind(Kind::Float), d(value) {}
  MessageArg(double value) : kind(Kind::Double), d(value) {}
  template <class T, std::enable_if_t<std::is_integral_v<T> && std::is_signed_v<T> && !std::is_same_v<T, char> &&
                                          !std::is_same_v<T, bool>,
                                      int> = 0>
  MessageArg(T value) : kind(Kind::Int), i(value) {}
  template <class T,
            std::enable_if_t<std::is_integral_v<T> && std::is_unsigned_v<T> && !std::is_same_v<T, bool>, int> = 0>
  MessageArg(T value) : kind(Kind::UInt), u(value) {}
};

struct Message {
  std::string en;                ///< the English, formatted
  std::string id;                ///< the catalog id: the English with its fields; empty for an empty message
  std::vector<MessageArg> args;  ///< the values of {0}, {1}, …
  bool verbatim = false;         ///< Message::same: shown as it is in every language
  std::string context;           ///< the catalog's msgctxt: "error" for an error's message (error_msg), else none

  Message() = default;
  Message(std::string id, std::vector<MessageArg> args);
  /// A text with no words to translate (a formula, a key, a number).
  static Message same(std::string text);

  /// The translation of an id in a context (or nullptr when there is none); installed by a front end.
  using Translator = const std::string* (*)(std::string_view id, std::string_view context);
  static void set_translator(Translator translator);

  /// The translation of `id` in `context` by the installed translator; nullptr without one or without a
  /// translation (report/text.hpp's Text::tr looks the commands' sentences up with it).
  static const std::string* translation(std::string_view id, std::string_view context = {});

  /// The English, or in Chinese the translation of the id filled with the same values (nested messages
  /// translated too); the English where no translator or no translation is found.
  std::string in(Lang lang) const;
  bool empty() const { return en.empty(); }
  bool operator==(const Message& other) const { return en == other.en && id == other.id; }
  bool operator!=(const Message& other) const { return !(*this == other); }
};

/// A message with values: `id` is its English with fields {0}, {1}, … in any order.
template <class... Args>
Message msg(std::string id, Args&&... args) {
  return Message(std::move(id), std::vector<MessageArg>{MessageArg(std::forward<Args>(args))...});
}

/// The message of an error (core/error.hpp): an id of the catalog's "error" context, which also holds the
/// templates the command line matches finished error text against. `make pot` extracts it (keyword
/// error_msg) into that context.
template <class... Args>
Message error_msg(std::string id, Args&&... args) {
  Message m = msg(std::move(id), std::forward<Args>(args)...);
  m.context = "error";
  return m;
}

/// How a front end names one of the library's settings in its messages: the library refers to a setting by
/// its own name ("layout", "float32", "bf16_bits") and never names a flag; the command line installs a namer
/// that gives its option ("--layout"). Without one a setting is shown by its name.
using OptionNamer = std::string (*)(std::string_view setting);
void set_option_namer(OptionNamer namer);
/// The front end's name of `setting`, for a message ("--float32: position 0.5 is not a float32 value").
std::string option_name(std::string_view setting);

/// The English texts, in order (JSON output and tests).
inline std::vector<std::string> english(const std::vector<Message>& messages) {
  std::vector<std::string> out;
  out.reserve(messages.size());
  for (const auto& m : messages) out.push_back(m.en);
  return out;
}

}  // namespace rope
