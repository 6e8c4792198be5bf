/// @file
/// Options whose value is one word of a list (--layout, --kind, --encoding, --dtype, --lang, …), parsed
/// into an enum when the command line is read, by CLI11's CheckedTransformer. A word outside the list
/// stops parsing with the message of the parser that owns the words (parse_layout, parse_dtype, …), the
/// one line docs/errors.md shows. Includes CLI11: include it from .cpp files only.
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rope/core/error.hpp"
#include "rope/core/message.hpp"
#include "rope/core/suggest.hpp"

namespace rope::cli {

/// The words of parse_layout (rope/core/types.hpp) and parse_dtype (rope/core/dtype.hpp), aliases
/// included.
inline const std::vector<std::string> kLayoutWords{"interleaved", "gptj", "meta", "half", "neox", "rotate_half"};
inline const std::vector<std::string> kDTypeWords{"f64", "float64", "double", "f32",  "float32", "float",
                                                  "f16", "float16", "half",   "bf16", "bfloat16"};
/// The words of parse_angle_model (rope/analysis/check/angle_error.hpp).
inline const std::vector<std::string> kAngleModelWords{"float64", "float32", "ggml"};

/// The validator of a choice: maps each of `words` to parse(word) with CLI::CheckedTransformer. An
/// empty value passes, for the check of cli.cpp that names empty values; any other word outside `words`
/// is given to `parse`, which throws its InvalidArgument, followed by "did you mean" when one of `words` is
/// close to it (core/suggest.hpp).
template <class E>
CLI::Validator choice_validator(const std::vector<std::string>& words, E (*parse)(std::string_view)) {
  std::map<std::string, E> table;
  for (const std::string& word : words) table.emplace(word, parse(word));
  const CLI::CheckedTransformer checked(table);
  return CLI::Validator(
      [table, checked, parse, words](std::string& value) {
        if (value.empty()) return std::string();
        if (table.count(value) == 0) {
          try {
            parse(value);  // throws the message of docs/errors.md
          } catch (const InvalidArgument& e) {
            const std::string suggestion = closest_match(value, words);  // with "did you mean" when close
            if (suggestion.empty()) throw;
            const Message reason = e.message() != nullptr ? *e.message() : Message::same(e.what());
            throw InvalidArgument(error_msg("{0}; did you mean {1}?", reason, suggestion));
          }
          throw InvalidArgument(error_msg("'{0}' is not one of the choices", value));
        }
        return checked(value);
      },
      "");
}

/// Adds the option `name` (one word, or with a delimiter a list of words) stored in `target`, an enum
/// or a std::vector of one, with `shown_default` in --help.
template <class T, class E>
CLI::Option* add_choice_option(CLI::App& app, const std::string& name, T& target, const std::vector<std::string>& words,
                               E (*parse)(std::string_view), const std::string& help, const std::string& type_name) {
  return app
      .add_option_function<T>(
          name, [&target](const T& value) { target = value; }, help)
      ->transform(choice_validator(words, parse))
      ->type_name(type_name);
}

/// The same for a choice that matters only when typed: `target` stays nullopt unless the option is given.
template <class E>
CLI::Option* add_choice_option(CLI::App& app, const std::string& name, std::optional<E>& target,
                               const std::vector<std::string>& words, E (*parse)(std::string_view),
                               const std::string& help, const std::string& type_name) {
  return app
      .add_option_function<E>(
          name, [&target](const E& value) { target = value; }, help)
      ->transform(choice_validator(words, parse))
      ->type_name(type_name);
}

}  // namespace rope::cli
