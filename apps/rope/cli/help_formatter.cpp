#include "rope/cli/help_formatter.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <sstream>
#include <string>

#include "rope/cli/help_zh.hpp"

namespace rope::cli {

namespace {

/// CLI11's labels (headings and badges) that rope's help shows.
constexpr const char* kLabels[] = {"Usage", "OPTIONS", "SUBCOMMAND", "REQUIRED", "Needs", "Excludes"};

class HelpFormatter : public CLI::Formatter {
 public:
  explicit HelpFormatter(Lang lang) : zh_(lang == Lang::Zh) {
    if (!zh_) return;
    for (const char* key : kLabels) {
      if (const char* text = help_zh(key)) label(key, text);
    }
  }

  /// The Chinese of `english` when the help is Chinese and the catalog has it, else `english`.
  std::string tr(const std::string& english) const {
    if (!zh_ || english.empty()) return english;
    const char* text = help_zh(english);
    return text != nullptr ? std::string(text) : english;
  }

  std::string make_option_opts(const CLI::Option* opt) const override {
    if (!opt->get_option_text().empty()) return " " + opt->get_option_text();
    std::string out;
    if (opt->get_type_size() != 0) {
      if (!opt->get_type_name().empty()) out += " " + get_label(opt->get_type_name());
      const bool repeatable = opt->get_expected_max() == CLI::detail::expected_max_vector_size;
      const std::string& shown = opt->get_default_str();
      const bool show_default = !shown.empty() && !opt->get_required();
      if (repeatable) {
        out += " ...";
        if (show_default) out += " (" + tr("default") + ": " + shown + ")";
      } else {
        if (show_default) out += "=" + shown;
        if (opt->get_expected_min() > 1) out += " x " + std::to_string(opt->get_expected());
      }
      if (opt->get_required()) out += " " + get_label("REQUIRED");
    }
    if (!opt->get_needs().empty()) {
      out += " " + get_label("Needs") + ":";
      for (const CLI::Option* other : opt->get_needs()) out += " " + other->get_name();
    }
    if (!opt->get_excludes().empty()) {
      out += " " + get_label("Excludes") + ":";
      for (const CLI::Option* other : opt->get_excludes()) out += " " + other->get_name();
    }
    return out;
  }

  std::string make_option_desc(const CLI::Option* opt) const override { return tr(opt->get_description()); }

  std::string make_group(std::string group, bool is_positional, std::vector<const CLI::Option*> opts) const override {
    return CLI::Formatter::make_group(tr(group), is_positional, std::move(opts));
  }

  std::string make_description(const CLI::App* app) const override {
    const std::string desc = tr(app->get_description());
    return desc.empty() ? std::string() : desc + "\n";
  }

  std::string make_subcommand(const CLI::App* sub) const override {
    std::stringstream out;
    CLI::detail::format_help(out, sub->get_display_name(true), tr(sub->get_description()), column_width_);
    return out.str();
  }

  std::string make_subcommands(const CLI::App* app, CLI::AppFormatMode mode) const override {
    std::string text = CLI::Formatter::make_subcommands(app, mode);
    if (zh_) text = CLI::detail::find_and_replace(text, "\nSubcommands:\n", "\n" + tr("Subcommands") + ":\n");
    return text;
  }

  std::string make_footer(const CLI::App* app) const override {
    const std::string& footer = app->get_footer();
    if (footer.empty()) return std::string();
    return (zh_ ? footer_zh(footer) : footer) + "\n";
  }

 private:
  bool zh_;
};

void add_missing(std::vector<std::string>& missing, const std::string& english) {
  if (english.empty() || help_zh(english) != nullptr) return;
  if (std::find(missing.begin(), missing.end(), english) == missing.end()) missing.push_back(english);
}

void collect(const CLI::App& app, std::vector<std::string>& missing) {
  add_missing(missing, app.get_description());
  std::vector<std::string> footer;
  footer_zh(app.get_footer(), &footer);
  for (const std::string& text : footer) add_missing(missing, text);
  for (const CLI::Option* option : app.get_options()) {
    add_missing(missing, option->get_description());
    add_missing(missing, option->get_group());
  }
  for (const CLI::App* sub : app.get_subcommands({})) {
    add_missing(missing, sub->get_group());
    collect(*sub, missing);
  }
}

}  // namespace

std::shared_ptr<CLI::Formatter> make_help_formatter(Lang lang) { return std::make_shared<HelpFormatter>(lang); }

std::vector<std::string> help_texts_without_chinese(const CLI::App& app) {
  std::vector<std::string> missing;
  for (const char* key : kLabels) add_missing(missing, key);
  for (const char* key : {"default", "Positionals", "Options", "Subcommands", "Example"}) add_missing(missing, key);
  collect(app, missing);
  return missing;
}

}  // namespace rope::cli
