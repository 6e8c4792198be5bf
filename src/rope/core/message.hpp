/// @file
/// A sentence for people, in English and in Chinese. The library states what it noticed (a warning, a
/// rule it applied, where a value came from) as a Message; the CLI prints the language of --lang and
/// writes the English one into JSON. Formulas and key names read the same in both languages:
/// Message::same("get_mscale(f) = 0.1·ln f + 1").
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace rope {

struct Message {
  std::string en;
  std::string zh;

  Message() = default;
  Message(std::string english, std::string chinese) : en(std::move(english)), zh(std::move(chinese)) {}
  /// A text with no words to translate (a formula, a key, a number).
  static Message same(const std::string& text) { return {text, text}; }

  const std::string& in(bool chinese) const { return chinese ? zh : en; }
  bool operator==(const Message& other) const { return en == other.en && zh == other.zh; }
};

/// The English texts, in order (JSON output and tests).
inline std::vector<std::string> english(const std::vector<Message>& messages) {
  std::vector<std::string> out;
  out.reserve(messages.size());
  for (const auto& m : messages) out.push_back(m.en);
  return out;
}

}  // namespace rope
