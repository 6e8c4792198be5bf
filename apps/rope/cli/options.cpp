#include "rope/cli/options.hpp"

#include <climits>
#include <fmt/format.h>

#include "rope/io/csv.hpp"
#include "rope/core/error.hpp"
#include "rope/core/parse.hpp"
#include "rope/io/text_file.hpp"

namespace rope::cli {

CLI::Option* add_long_option(CLI::App& app, const std::string& name, long& target, const std::string& help) {
  const std::string what = name.substr(name.rfind(',') + 1);
  return app
      .add_option_function<std::string>(
          name, [&target, what](const std::string& text) { target = parse_integer(text, what); }, help)
      ->default_str(std::to_string(target))
      ->type_name("INT");
}

CLI::Option* add_int_option(CLI::App& app, const std::string& name, int& target, const std::string& help) {
  const std::string what = name.substr(name.rfind(',') + 1);
  return app
      .add_option_function<std::string>(
          name,
          [&target, what](const std::string& text) {
            const long value = parse_integer(text, what);
            if (value < INT_MIN || value > INT_MAX) {
              throw InvalidArgument(fmt::format("{} is out of range (got {})", what, text));
            }
            target = static_cast<int>(value);
          },
          help)
      ->default_str(std::to_string(target))
      ->type_name("INT");
}

CLI::Option* add_real_option(CLI::App& app, const std::string& name, double& target, const std::string& help) {
  const std::string what = name.substr(name.rfind(',') + 1);
  return app
      .add_option_function<std::string>(
          name, [&target, what](const std::string& text) { target = parse_real(text, what); }, help)
      ->default_str(format_number(target))
      ->type_name("NUM");
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

std::vector<double> parse_list_argument(const std::string& text, const std::string& what) {
  if (text.empty() || text[0] != '@') return parse_real_list(text, what);
  const std::string path = text.substr(1);
  const std::string content = read_text_file(path, what + " file", kMaxListFileBytes);
  std::string joined;
  std::string item;
  const auto flush = [&] {
    if (!item.empty()) joined += (joined.empty() ? "" : ",") + item;
    item.clear();
  };
  for (char c : content) {
    if (c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      flush();
    } else {
      item += c;
    }
  }
  flush();
  if (joined.empty()) throw InvalidArgument(fmt::format("{} file '{}' holds no numbers", what, path));
  return parse_real_list(joined, fmt::format("{} file '{}'", what, path));
}

CLI::Option* add_seed_option(CLI::App& app, std::uint64_t& target, const std::string& help) {
  return app
      .add_option_function<std::string>(
          "--seed",
          [&target](const std::string& text) {
            const long seed = parse_integer(text, "--seed");
            if (seed < 0) throw InvalidArgument(fmt::format("--seed must be >= 0 (got {})", text));
            target = static_cast<std::uint64_t>(seed);
          },
          help)
      ->default_str(std::to_string(target))
      ->type_name("INT");
}

CLI::Option* add_dim_option(CLI::App& app, int& target) {
  return add_int_option(app, "-d,--dim", target, "head (rotary) dimension d: even, >= 2");
}

CLI::Option* add_base_option(CLI::App& app, double& target) {
  return add_real_option(app, "-b,--base", target, "RoPE base: theta_i = base^(-2i/d), > 1");
}

CLI::Option* add_layout_option(CLI::App& app, Layout& target) {
  return app
      .add_option_function<std::string>(
          "--layout", [&target](const std::string& text) { target = parse_layout(text); },
          "pair layout: interleaved (pairs 2i,2i+1: paper, Meta) or half (pairs i,i+d/2: NeoX, "
          "Hugging Face rotate_half)")
      ->default_str(std::string(to_string(target)))
      ->type_name("LAYOUT");
}

std::string layout_name(Layout layout, const Text& t) {
  const std::string name(to_string(layout));
  if (!t.zh()) return name;
  return (layout == Layout::Interleaved ? "相邻配对 " : "前后半配对 ") + name;
}

}  // namespace rope::cli
