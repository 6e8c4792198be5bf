#include "rope/cli/options.hpp"

#include <CLI/CLI.hpp>
#include <climits>
#include <fmt/format.h>

#include "rope/cli/choice_option.hpp"
#include "rope/io/csv.hpp"
#include "rope/core/error.hpp"
#include "rope/core/parse.hpp"
#include "rope/io/text_file.hpp"

namespace rope::cli {

namespace {

/// `text` as an int, or the message of add_int_option.
int parse_int(const std::string& text, const std::string& what) {
  const long value = parse_integer(text, what);
  if (value < INT_MIN || value > INT_MAX) {
    throw InvalidArgument(error_msg("{0} is out of range (got {1})", what, text));
  }
  return static_cast<int>(value);
}

/// An option whose text `parse(text, what)` turns into `target` (a value or an optional), with
/// `shown_default` and `type_name` in --help; `what` is the option's long name, for the messages.
template <typename Target, typename Parse>
CLI::Option* add_parsed_option(CLI::App& app, const std::string& name, Target& target, Parse parse,
                               const std::string& shown_default, const char* type_name, const std::string& help) {
  const std::string what = name.substr(name.rfind(',') + 1);
  return app
      .add_option_function<std::string>(
          name, [&target, what, parse](const std::string& text) { target = parse(text, what); }, help)
      ->default_str(shown_default)
      ->type_name(type_name);
}

}  // namespace

CLI::Option* add_long_option(CLI::App& app, const std::string& name, long& target, const std::string& help) {
  return add_parsed_option(app, name, target, parse_integer, std::to_string(target), "INT", help);
}

CLI::Option* add_int_option(CLI::App& app, const std::string& name, int& target, const std::string& help) {
  return add_parsed_option(app, name, target, parse_int, std::to_string(target), "INT", help);
}

CLI::Option* add_real_option(CLI::App& app, const std::string& name, double& target, const std::string& help) {
  return add_parsed_option(app, name, target, parse_real, format_number(target), "NUM", help);
}

CLI::Option* add_int_option(CLI::App& app, const std::string& name, std::optional<int>& target, int shown_default,
                            const std::string& help) {
  return add_parsed_option(app, name, target, parse_int, std::to_string(shown_default), "INT", help);
}

CLI::Option* add_long_option(CLI::App& app, const std::string& name, std::optional<long>& target, long shown_default,
                             const std::string& help) {
  return add_parsed_option(app, name, target, parse_integer, std::to_string(shown_default), "INT", help);
}

CLI::Option* add_real_option(CLI::App& app, const std::string& name, std::optional<double>& target,
                             double shown_default, const std::string& help) {
  return add_parsed_option(app, name, target, parse_real, format_number(shown_default), "NUM", help);
}

CLI::Option* add_digits_option(CLI::App& app, std::optional<int>& target, const std::string& shown_default,
                               const std::string& help) {
  const auto parse = [](const std::string& text, const std::string& what) {
    const int digits = parse_int(text, what);
    if (digits < 0 || digits > 17)
      throw InvalidArgument(error_msg("{0} must be between {1} and {2} (got {3})", what, 0, 17, digits));
    return digits;
  };
  return add_parsed_option(app, "--digits", target, parse, shown_default, "INT", help);
}

CLI::Option* add_position_option(CLI::App& app, const std::string& name, std::optional<AxisPosition>& target,
                                 const std::string& help) {
  return add_parsed_option(app, name, target, parse_axis_position, "", "POS", help);
}

CLI::Option* add_reals_option(CLI::App& app, const std::string& name, std::vector<double>& target,
                              const std::string& help) {
  const std::string what = name.substr(name.rfind(',') + 1);
  std::string defaults;
  for (double x : target) defaults += (defaults.empty() ? "" : " ") + format_number(x);
  return app
      .add_option_function<std::vector<std::string>>(
          name,
          [&target, what](const std::vector<std::string>& texts) {
            target.clear();
            for (const auto& text : texts) target.push_back(parse_real(text, what));
          },
          help)
      ->default_str(defaults)
      ->type_name("NUM");
}

CLI::Option* add_reals_option(CLI::App& app, const std::string& name, std::optional<std::vector<double>>& target,
                              const std::vector<double>& shown_default, const std::string& help) {
  const std::string what = name.substr(name.rfind(',') + 1);
  std::string defaults;
  for (double x : shown_default) defaults += (defaults.empty() ? "" : " ") + format_number(x);
  return app
      .add_option_function<std::vector<std::string>>(
          name,
          [&target, what](const std::vector<std::string>& texts) {
            target.emplace();
            for (const auto& text : texts) target->push_back(parse_real(text, what));
          },
          help)
      ->default_str(defaults)
      ->type_name("NUM");
}

namespace {

/// `text` as a seed: a decimal integer >= 0.
std::uint64_t parse_seed(const std::string& text, const std::string& what) {
  const long seed = parse_integer(text, what);
  if (seed < 0) throw InvalidArgument(error_msg("{0} must be >= {1} (got {2})", what, 0, text));
  return static_cast<std::uint64_t>(seed);
}

}  // namespace

CLI::Option* add_seed_option(CLI::App& app, std::uint64_t& target, const std::string& help) {
  return add_parsed_option(app, "--seed", target, parse_seed, std::to_string(target), "INT", help);
}

CLI::Option* add_seed_option(CLI::App& app, std::optional<std::uint64_t>& target, std::uint64_t shown_default,
                             const std::string& help) {
  return add_parsed_option(app, "--seed", target, parse_seed, std::to_string(shown_default), "INT", help);
}

CLI::Option* add_wide_option(CLI::App& app, bool& target) {
  return app.add_flag("--wide", target, "print the wide table (every column; lines may exceed 100 terminal columns)");
}

CLI::Option* add_dim_option(CLI::App& app, int& target) {
  return add_int_option(app, "-d,--dim", target, "head (rotary) dimension d: even, >= 2");
}

CLI::Option* add_dim_option(CLI::App& app, std::optional<int>& target, int shown_default) {
  return add_int_option(app, "-d,--dim", target, shown_default, "head (rotary) dimension d: even, >= 2");
}

CLI::Option* add_base_option(CLI::App& app, double& target) {
  return add_real_option(app, "-b,--base", target, "RoPE base: theta_i = base^(-2i/d), > 1");
}

CLI::Option* add_base_option(CLI::App& app, std::optional<double>& target, double shown_default) {
  return add_real_option(app, "-b,--base", target, shown_default, "RoPE base: theta_i = base^(-2i/d), > 1");
}

CLI::Option* add_layout_option(CLI::App& app, Layout& target) {
  return add_choice_option(app, "--layout", target, kLayoutWords, parse_layout,
                           "pair layout: interleaved (pairs 2i,2i+1: paper, Meta) or half (pairs i,i+d/2: NeoX, "
                           "Hugging Face rotate_half)",
                           "LAYOUT")
      ->default_str(std::string(to_string(target)));
}

CLI::Option* add_layout_option(CLI::App& app, std::optional<Layout>& target, Layout shown_default) {
  return add_choice_option(app, "--layout", target, kLayoutWords, parse_layout,
                           "pair layout: interleaved (pairs 2i,2i+1: paper, Meta) or half (pairs i,i+d/2: NeoX, "
                           "Hugging Face rotate_half); with --model/--config the model's own layout unless given",
                           "LAYOUT")
      ->default_str(std::string(to_string(shown_default)));
}

void rethrow_naming_option(const InvalidQuantity& e, const OptionNames& options) {
  for (const auto& [quantity, option] : options) {
    if (quantity == e.quantity()) throw InvalidArgument(option + " " + e.rule());
  }
  throw InvalidArgument(e.what());
}

}  // namespace rope::cli
