#include "rope/cli/help_formatter.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <sstream>
#include <string>

#include "rope/cli/help_pages.hpp"
#include "rope/cli/help_zh.hpp"

namespace rope::cli {

namespace {

/// CLI11's labels (headings and badges) that rope's help shows.
constexpr const char* kLabels[] = {"Usage", "OPTIONS", "SUBCOMMAND", "REQUIRED"};

class HelpFormatter : public CLI::Formatter {
 public:
  explicit HelpFormatter(Lang lang) : zh_(lang == Lang::Zh) {
    if (!zh_) return;
    for (const char* key : kLabels) {
      if (const char* text = help_zh(key)) label(key, text);
    }
  }

  /// The colon after a label: full-width after Chinese (po/glossary.md, the punctuation rule).
  const char* colon() const { return zh_ ? "：" : ":"; }

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
      // an option whose value may be left out (--term) has no default: its default_str is the value then
      const bool show_default = !shown.empty() && !opt->get_required() && opt->get_expected_min() > 0;
      if (repeatable) {
        out += " ...";
        if (show_default)
          out += zh_ ? "（" + tr("default") + "：" + shown + "）" : " (" + tr("default") + ": " + shown + ")";
      } else {
        if (show_default) out += "=" + shown;
        // "x 2" only where the value's name does not already show the count (--relative M N)
        const std::string& value_name = opt->get_type_name();
        if (opt->get_expected_min() > 1 && value_name.find(' ') == std::string::npos) {
          out += " x " + std::to_string(opt->get_expected());
        }
      }
      if (opt->get_required()) out += " " + get_label("REQUIRED");
    }
    return out;
  }

  std::string make_option_desc(const CLI::Option* opt) const override { return tr(opt->get_description()); }

  /// The options `opt` needs or excludes, as the end of its description in --help, not as CLI11's badge beside
  /// the option's name: " (needs --xpos)", " (not with --relative, --csv)", in Chinese "（需要 --xpos）",
  /// "（不能与 --relative、--csv 同用）". (docs/cli.md's option tables say it their own way, option_tables.cpp.)
  std::string rules(const CLI::Option* opt) const {
    std::string out;
    // By name: CLI11 keeps them in a std::set of pointers, whose order is the allocator's (it differed
    // between the Release and the sanitizer builds).
    const auto names = [&](const auto& others) {
      std::vector<std::string> sorted;
      for (const CLI::Option* other : others) sorted.push_back(other->get_name());
      std::sort(sorted.begin(), sorted.end());
      std::string list;
      for (const std::string& name : sorted) list += (list.empty() ? "" : zh_ ? "、" : ", ") + name;
      return list;
    };
    const auto rule = [&](const char* sentence, const auto& others) {
      out += CLI::detail::find_and_replace(tr(sentence), "{0}", names(others));
    };
    if (!opt->get_needs().empty()) rule(" (needs {0})", opt->get_needs());
    if (!opt->get_excludes().empty()) rule(" (not with {0})", opt->get_excludes());
    return out;
  }

  /// The description broken at the help's width (help_pages.hpp), CJK characters counted as two columns.
  std::string make_option(const CLI::Option* opt, bool is_positional) const override {
    return help_entry(make_option_name(opt, is_positional) + make_option_opts(opt), make_option_desc(opt) + rules(opt),
                      column_width_, help_width());
  }

  /// CLI11's "\nGROUP:\n" and the group's options, the colon full-width in Chinese ("选项：").
  std::string make_group(std::string group, bool is_positional, std::vector<const CLI::Option*> opts) const override {
    std::string out = "\n" + tr(group) + colon() + "\n";
    for (const CLI::Option* opt : opts) out += make_option(opt, is_positional);
    return out;
  }

  /// CLI11's usage line, its label's colon full-width in Chinese.
  std::string make_usage(const CLI::App* app, std::string name) const override {
    std::string out = CLI::Formatter::make_usage(app, std::move(name));
    const std::string label = get_label("Usage") + ":";
    if (const auto k = out.find(label);
        zh_ && k != std::string::npos) {  // "用法：rope …", no space after the full-width colon
      const std::size_t n = label.size() + (out.compare(k + label.size(), 1, " ") == 0 ? 1 : 0);
      out.replace(k, n, get_label("Usage") + colon());
    }
    return out;
  }

  /// CLI11's, with the option groups of groups() (CLI11's make_groups is not virtual).
  std::string make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const override {
    if (mode == CLI::AppFormatMode::Sub) return make_expanded(app);
    return make_description(app) + make_usage(app, std::move(name)) + make_positionals(app) + groups(app, mode) +
           make_subcommands(app, mode) + '\n' + make_footer(app);
  }

  /// --help (Normal): the options shared by many commands (help_pages.hpp shared_topic) one line per
  /// group after the command's own; --help-all (All): every option.
  std::string groups(const CLI::App* app, CLI::AppFormatMode mode) const {
    const bool summarise = mode == CLI::AppFormatMode::Normal && app->get_parent() != nullptr;
    std::string out;
    const std::vector<std::string> groups = app->get_groups();
    for (const std::string& group : groups) {
      const std::vector<const CLI::Option*> opts = app->get_options([&](const CLI::Option* opt) {
        return opt->get_group() == group && opt->nonpositional() && (!summarise || shared_topic(*opt).empty()) &&
               (mode != CLI::AppFormatMode::Sub || (app->get_help_ptr() != opt && app->get_help_all_ptr() != opt));
      });
      if (group.empty() || opts.empty()) continue;
      out += make_group(group, false, opts);
    }
    if (summarise) {
      const std::string shared = shared_summary(*app, zh_ ? Lang::Zh : Lang::En);
      if (!shared.empty()) out += "\n" + shared;
    }
    return out;
  }

  std::string make_description(const CLI::App* app) const override {
    std::string out;
    for (const std::string& line : wrap_text(tr(app->get_description()), help_width())) out += line + '\n';
    return app->get_description().empty() ? std::string() : out;
  }

  std::string make_subcommand(const CLI::App* sub) const override {
    std::stringstream out;
    CLI::detail::format_help(out, sub->get_display_name(true), tr(sub->get_description()), column_width_);
    return out.str();
  }

  std::string make_subcommands(const CLI::App* app, CLI::AppFormatMode mode) const override {
    std::string text = CLI::Formatter::make_subcommands(app, mode);
    if (zh_) text = CLI::detail::find_and_replace(text, "\nSubcommands:\n", "\n" + tr("Subcommands") + colon() + "\n");
    return text;
  }

  std::string make_footer(const CLI::App* app) const override {
    const std::string& footer = app->get_footer();
    if (footer.empty()) return std::string();
    return wrap_footer(zh_ ? footer_zh(footer) : footer, help_width()) + "\n";
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

std::string option_label(const CLI::Option& option, Lang lang) {
  const HelpFormatter formatter(lang);
  return formatter.make_option_name(&option, option.get_positional()) + formatter.make_option_opts(&option);
}

std::string option_text_in(const std::string& english, Lang lang) { return HelpFormatter(lang).tr(english); }

std::vector<std::string> help_texts_without_chinese(const CLI::App& app) {
  std::vector<std::string> missing;
  for (const char* key : kLabels) add_missing(missing, key);
  for (const char* key : {"default", "Positionals", "Options", "Subcommands", "Example"}) add_missing(missing, key);
  collect(app, missing);
  return missing;
}

}  // namespace rope::cli
