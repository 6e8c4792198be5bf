#include "rope/cli/help_pages.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "rope/cli/commands.hpp"
#include "rope/cli/figure_options.hpp"
#include "rope/cli/help_formatter.hpp"
#include "rope/cli/help_wrap.hpp"
#include "rope/cli/help_zh.hpp"
#include "rope/report/printing.hpp"
#include "rope/cli/scaling_options.hpp"

namespace rope::cli {

namespace {

/// The colon after a heading: full-width after Chinese (po/glossary.md, the punctuation rule).
std::string colon_of(const Text& t) { return t.lang() == Lang::Zh ? "：" : ":"; }

/// The column where a description starts (CLI11's default).
constexpr std::size_t kColumn = 30;
/// The most lines `rope COMMAND -h` prints.
constexpr std::size_t kShortLines = 25;

/// A shared option as the shared code adds it: its topic, help and shown default.
struct SharedOption {
  std::string topic, description, shown_default;
};

/// The shared options, by name ("--png"): the options of a throwaway command.
const std::map<std::string, SharedOption>& shared_options() {
  static const std::map<std::string, SharedOption> names = [] {
    std::map<std::string, SharedOption> out;
    for (const std::string& topic : help_topics()) {
      CLI::App app;
      auto scaling = std::make_shared<ScalingOptions>();
      auto figure = std::make_shared<FigureOptions>();
      if (topic == "scaling") {
        add_scaling_options(app, *scaling);
        add_float32_options(app, *scaling);
      } else if (topic == "figures") {
        add_figure_options(app, *figure);  // not the animation options: their --gif says what a command animates
      } else {
        add_lang_option(app, figure->lang);
      }
      for (const CLI::Option* option : app.get_options()) {
        const std::string name = option->get_name();
        const SharedOption shared{topic, option->get_description(), option->get_default_str()};
        if (name != "--help" && name != "--lang") out.emplace(name, shared);
        if (name == "--lang" && topic == "language") out.emplace(name, shared);
      }
    }
    return out;
  }();
  return names;
}

/// The first example of a command's footer ("  rope …"), or "".
std::string first_example(const std::string& footer) {
  std::istringstream lines(footer);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("  rope ", 0) == 0) return line;
  }
  return {};
}

/// A topic's heading in the language of `t`.
std::string topic_heading(const Text& t, const std::string& topic) {
  return topic == "scaling" ? t.tr("Model and scaling") : topic == "figures" ? t.tr("Figures") : t.tr("Language");
}

/// A group of the overview in the language of `t`.
std::string group_heading(const Text& t, std::string_view group) {
  if (group == "Learn") return t.tr("Learn");
  if (group == "Compute") return t.tr("Compute");
  if (group == "Check a model") return t.tr("Check a model");
  return t.tr("Figures");
}

}  // namespace

const std::vector<std::string>& help_topics() {
  static const std::vector<std::string> topics{"scaling", "figures", "language"};
  return topics;
}

std::string shared_topic(const CLI::Option& option) {
  const auto& names = shared_options();
  const auto found = names.find(option.get_name());
  // a command that gives the option its own help or default (explain's --width 900) lists it itself
  if (found == names.end() || found->second.description != option.get_description() ||
      (found->second.shown_default != option.get_default_str() &&
       option.get_name() != "--lang")) {  // --lang: the run's
    return {};
  }
  return found->second.topic;
}

const char* command_group(std::string_view command) {
  for (const CommandEntry& entry : kCommands) {
    if (command != entry.name) continue;
    switch (entry.group) {  // the headings of the overview (group_heading)
      case HelpGroup::Learn:
        return "Learn";
      case HelpGroup::Compute:
        return "Compute";
      case HelpGroup::CheckModel:
        return "Check a model";
      case HelpGroup::Figures:
        return "Figures";
    }
  }
  return "";
}

std::string overview_help(const CLI::App& app, const std::vector<const CLI::App*>& commands, Lang lang, bool full) {
  const Text t(lang);
  const std::size_t width = help_width();
  std::string out;
  for (const std::string& line : wrap_text(option_text_in(app.get_description(), lang), width)) out += line + '\n';
  for (const std::string& text : std::vector<std::string>{
           t.tr("Usage: rope COMMAND [OPTIONS]; rope COMMAND -h for its short help, --help for all of it\n"),
           t.tr("New to RoPE? Start with rope explain (then rope lesson --html lesson.html for a whole class).\n")}) {
    for (const std::string& line : wrap_text(text.substr(0, text.size() - 1), width)) out += line + '\n';
  }
  for (const char* group : {"Learn", "Compute", "Check a model", "Figures"}) {
    out += "\n" + group_heading(t, group) + colon_of(t) + "\n";
    for (const CLI::App* command : commands) {
      if (std::string_view(command_group(command->get_name())) != group) continue;
      std::string name = command->get_name();
      for (const std::string& alias : command->get_aliases()) name += ", " + alias;
      out += help_entry(name, option_text_in(command->get_description(), lang), 22, width);
    }
  }
  out += '\n';
  for (const std::string& line : wrap_text(
           t.tr("rope help COMMAND: a command's help; rope help scaling, rope help figures, rope help language: the "
                "options every command shares"),
           width)) {
    out += line + '\n';
  }
  if (full) {
    out += '\n';
    for (const std::string& line :
         wrap_text((t.lang() == Lang::Zh) ? footer_zh(app.get_footer()) : app.get_footer(), width))
      out += line + '\n';
  }
  return out;
}

std::string shared_summary(const CLI::App& command, Lang lang) {
  const Text t(lang);
  std::map<std::string, std::vector<std::string>> by_topic;
  for (const CLI::Option* option : command.get_options()) {
    const std::string topic = shared_topic(*option);
    if (!topic.empty()) by_topic[topic].push_back(option->get_name());
  }
  if (by_topic.empty()) return {};
  std::string out = t.tr("Shared options") + colon_of(t) + "\n";
  for (const std::string& topic : help_topics()) {
    const auto found = by_topic.find(topic);
    if (found == by_topic.end()) continue;
    const std::vector<std::string>& names = found->second;
    std::string list;
    const std::size_t shown = std::min<std::size_t>(names.size(), 4);
    for (std::size_t i = 0; i < shown; ++i) list += (i > 0 ? ", " : "") + names[i];
    const std::string line = names.size() > shown
                                 ? t.tr("{0} and {1} more: rope help {2}", list, names.size() - shown, topic)
                                 : t.tr("{0}: rope help {1}", list, topic);
    out += help_entry(topic_heading(t, topic), line, 22, help_width());
  }
  return out;
}

std::string short_help(const CLI::App& command, Lang lang) {
  const Text t(lang);
  const std::size_t width = help_width();
  std::vector<std::string> head, options, tail;
  for (const std::string& line : wrap_text(option_text_in(command.get_description(), lang), width))
    head.push_back(line);
  head.push_back(t.tr("Usage: rope {0} [OPTIONS]", command.get_name()));
  head.emplace_back();
  head.push_back(t.tr("Options") + colon_of(t));
  for (const CLI::Option* option : command.get_options()) {
    if (option->get_name() == "--help" || option->get_name() == "--help-all" || !shared_topic(*option).empty())
      continue;
    std::istringstream entry(
        help_entry(option_label(*option, lang), option_text_in(option->get_description(), lang), kColumn, width));
    std::vector<std::string> lines;
    for (std::string line; std::getline(entry, line);) lines.push_back(line);
    options.push_back(std::string());  // one entry, lines joined
    for (std::size_t i = 0; i < lines.size(); ++i) options.back() += (i > 0 ? "\n" : "") + lines[i];
  }
  const std::string example = first_example(command.get_footer());
  if (!example.empty()) {
    tail.emplace_back();
    tail.push_back(std::string(t.tr("Example")) + colon_of(t));
    std::istringstream broken(wrap_footer(example, width));  // a long example broken as a shell reads it
    for (std::string line; std::getline(broken, line);) tail.push_back(line);
  }
  tail.emplace_back();
  for (const std::string& line :
       wrap_text(t.tr("All options: rope {0} --help; shared options: rope help scaling, rope help figures",
                      command.get_name()),
                 width)) {
    tail.push_back(line);
  }
  // The options that fit: each entry's lines counted; the rest named by a line of their own.
  const auto lines_of = [](const std::string& entry) {
    return 1 + static_cast<std::size_t>(std::count(entry.begin(), entry.end(), '\n'));
  };
  std::size_t room = kShortLines - head.size() - tail.size();
  std::size_t total = 0;
  for (const std::string& entry : options) total += lines_of(entry);
  std::string out;
  for (const std::string& line : head) out += line + '\n';
  if (total <= room) {
    for (const std::string& entry : options) out += entry + '\n';
  } else {
    room -= 1;  // the line "… and N more"
    std::size_t used = 0, shown = 0;
    while (shown < options.size() && used + lines_of(options[shown]) <= room) used += lines_of(options[shown++]);
    for (std::size_t i = 0; i < shown; ++i) out += options[i] + '\n';
    out += "  " + t.tr("… and {0} more: rope {1} --help", options.size() - shown, command.get_name()) + '\n';
  }
  for (const std::string& line : tail) out += line + '\n';
  return out;
}

std::optional<std::string> topic_help(std::string_view topic, Lang lang) {
  const auto& topics = help_topics();
  if (std::find(topics.begin(), topics.end(), topic) == topics.end()) return std::nullopt;
  const Text t(lang);
  const std::size_t width = help_width();
  CLI::App app;
  auto scaling = std::make_shared<ScalingOptions>();
  auto figure = std::make_shared<FigureOptions>();
  std::string out;
  if (topic == "scaling") {
    out += t.tr("Model and scaling: the options of every command with --dim and --base (docs/scaling.md)\n");
    add_scaling_options(app, *scaling);
    add_float32_options(app, *scaling);
  } else if (topic == "figures") {
    out += t.tr(
        "Figures: the options of every command that draws (gnuplot; docs/gallery.md); --gif, --frames and "
        "--delay (its own) where a command animates\n");
    add_figure_options(app, *figure);
  } else {
    out += t.tr(
        "Language: --lang en|zh on every command; without it, Chinese when LC_ALL, LC_MESSAGES or LANG (the "
        "first set) starts with zh. CSV and JSON keys, option names and file names stay as they are.\n");
    add_lang_option(app, figure->lang);
  }
  std::string heading;
  for (const std::string& line : wrap_text(out, width)) heading += line + '\n';
  out = heading + '\n';
  for (const CLI::Option* option : app.get_options()) {
    const std::string name = option->get_name();
    if (name == "--help" || (topic != "language" && name == "--lang")) continue;
    out += help_entry(option_label(*option, lang), option_text_in(option->get_description(), lang), kColumn, width);
  }
  return out;
}

}  // namespace rope::cli
