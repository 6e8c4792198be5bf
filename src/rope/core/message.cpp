#include "rope/core/message.hpp"

#include <fmt/args.h>
#include <fmt/format.h>

#include <atomic>
#include <stdexcept>

namespace rope {

namespace {

std::atomic<Message::Translator> g_translator{nullptr};
std::atomic<OptionNamer> g_namer{nullptr};

std::string format_with(const std::string& format, const std::vector<MessageArg>& args, Lang lang) {
  fmt::dynamic_format_arg_store<fmt::format_context> store;
  for (const MessageArg& a : args) {
    switch (a.kind) {
      case MessageArg::Kind::Int:
        store.push_back(a.i);
        break;
      case MessageArg::Kind::UInt:
        store.push_back(a.u);
        break;
      case MessageArg::Kind::Float:
        store.push_back(static_cast<float>(a.d));
        break;
      case MessageArg::Kind::Double:
        store.push_back(a.d);
        break;
      case MessageArg::Kind::Text:
        store.push_back(a.text);
        break;
      case MessageArg::Kind::Nested:
        store.push_back(a.nested->in(lang));
        break;
    }
  }
  return fmt::vformat(format, store);
}

}  // namespace

MessageArg::MessageArg(const Message& message) : kind(Kind::Nested), nested(std::make_shared<const Message>(message)) {}

Message::Message(std::string id_, std::vector<MessageArg> args_) : id(std::move(id_)), args(std::move(args_)) {
  try {
    en = format_with(id, args, Lang::En);
  } catch (const fmt::format_error& e) {  // an id whose fields do not match its values: a bug
    throw std::logic_error("message '" + id + "': " + e.what());
  }
}

Message Message::same(std::string text) {
  Message m;
  m.en = text;
  m.id = std::move(text);
  m.verbatim = true;
  return m;
}

void Message::set_translator(Translator translator) { g_translator.store(translator); }

const std::string* Message::translation(std::string_view id, std::string_view context) {
  const Translator translator = g_translator.load();
  return translator != nullptr ? translator(id, context) : nullptr;
}

std::string Message::in(Lang lang) const {
  if (lang == Lang::En || verbatim || id.empty()) return en;
  const std::string* zh = translation(id, context);
  try {
    return format_with(zh != nullptr ? *zh : id, args, Lang::Zh);
  } catch (const fmt::format_error&) {  // a translation with a bad field: tests/cli/test_catalog.cpp
    return en;
  }
}

void set_option_namer(OptionNamer namer) { g_namer.store(namer); }

std::string option_name(std::string_view setting) {
  const OptionNamer namer = g_namer.load();
  return namer != nullptr ? namer(setting) : std::string(setting);
}

}  // namespace rope
