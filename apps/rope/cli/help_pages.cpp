#include "rope/cli/help_pages.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <sstream>
#include <string>

#include "rope/cli/figure_options.hpp"
#include "rope/cli/help_formatter.hpp"
#include "rope/cli/help_zh.hpp"
#include "rope/cli/printing.hpp"
#include "rope/cli/scaling_options.hpp"
#include "rope/io/utf8.hpp"

namespace rope::cli {

namespace {

/// The column where a description starts (CLI11's default).
constexpr std::size_t kColumn = 30;
/// The most lines `rope COMMAND -h` prints.
constexpr std::size_t kShortLines = 25;

/// The pieces a line may break between: a run of spaces, a word, or one wide (CJK) character.
std::vector<std::string> pieces(std::string_view text) {
  std::vector<std::string> out;
  std::size_t i = 0;
  enum class Kind { None, Space, Word } last = Kind::None;
  while (i < text.size()) {
    const std::size_t start = i;
    decode_utf8(text, i);
    const std::string_view ch = text.substr(start, i - start);
    if (ch == " ") {
      if (last != Kind::Space) out.emplace_back();
      out.back() += ch;
      last = Kind::Space;
    } else if (display_width(ch) == 2) {
      out.emplace_back(ch);
      last = Kind::None;
    } else {
      if (last != Kind::Word) out.emplace_back();
      out.back() += ch;
      last = Kind::Word;
    }
  }
  return out;
}

/// The shared options, by name ("--png"), with their topic: the options of a throwaway command.
const std::map<std::string, std::string>& shared_options() {
  static const std::map<std::string, std::string> names = [] {
    std::map<std::string, std::string> out;
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
        if (name != "--help" && name != "--lang") out.emplace(name, topic);
        if (name == "--lang" && topic == "language") out.emplace(name, topic);
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

std::size_t help_width() {
  const char* columns_env = std::getenv("COLUMNS");
  if (columns_env != nullptr) {
    char* end = nullptr;
    const long value = std::strtol(columns_env, &end, 10);
    if (end != columns_env && *end == '\0' && value >= 40) return static_cast<std::size_t>(value);
  }
  return kProjectorColumns;
}

std::vector<std::string> wrap_text(std::string_view text, std::size_t width) {
  std::vector<std::string> lines;
  std::istringstream paragraphs{std::string(text)};
  std::string paragraph;
  while (std::getline(paragraphs, paragraph)) {
    // a word wider than a line (a list of CSV columns) may break after its commas
    std::vector<std::string> parts;
    for (const std::string& piece : pieces(paragraph)) {
      if (columns(piece) <= width || piece.find(',') == std::string::npos) {
        parts.push_back(piece);
        continue;
      }
      std::size_t start = 0;
      for (std::size_t comma = piece.find(','); start < piece.size();
           comma = piece.find(',', start)) {
        const std::size_t end = comma == std::string::npos ? piece.size() : comma + 1;
        parts.push_back(piece.substr(start, end - start));
        start = end;
      }
    }
    std::string line;
    std::size_t used = 0;
    for (const std::string& piece : parts) {
      const std::size_t w = columns(piece);
      if (used + w <= width || line.empty()) {
        line += piece;
        used += w;
        continue;
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      lines.push_back(line);
      line.clear();
      used = 0;
      if (piece.front() != ' ') {
        line = piece;
        used = w;
      }
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

std::string help_entry(const std::string& name, const std::string& description, std::size_t column, std::size_t width) {
  std::string out = "  " + name;
  if (description.empty()) return out + '\n';
  if (columns(out) >= column) {  // CLI11's rule: a name that reaches the column gets a line of its own
    out += '\n';
    out += std::string(column, ' ');
  } else {
    out = pad(out, column);
  }
  const std::size_t room = width > column + 20 ? width - column : 20;
  const std::vector<std::string> lines = wrap_text(description, room);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) out += '\n' + std::string(column, ' ');
    out += lines[i];
  }
  return out + '\n';
}

std::string wrap_footer(const std::string& footer, std::size_t width) {
  std::string out;
  std::istringstream lines(footer);
  for (std::string line; std::getline(lines, line);) {
    if (columns(line) <= width) {
      out += line + '\n';
      continue;
    }
    const std::size_t indent = line.find_first_not_of(' ');
    const bool command = line.compare(indent, 5, "rope ") == 0;
    const std::string lead(indent, ' '), more(command ? indent + 4 : indent, ' ');
    // a command line keeps two columns for " \\"
    const std::vector<std::string> parts = wrap_text(line.substr(indent), width - indent - (command ? 6 : 0));
    for (std::size_t i = 0; i < parts.size(); ++i) {
      out += (i == 0 ? lead : more) + parts[i] + (command && i + 1 < parts.size() ? " \\" : "") + '\n';
    }
  }
  if (!out.empty() && (footer.empty() || footer.back() != '\n')) out.pop_back();
  return out;
}

const std::vector<std::string>& help_topics() {
  static const std::vector<std::string> topics{"scaling", "figures", "language"};
  return topics;
}

std::string shared_topic(const CLI::Option& option) {
  const auto& names = shared_options();
  const auto found = names.find(option.get_name());
  return found != names.end() ? found->second : std::string();
}

const char* command_group(std::string_view command) {
  static const std::map<std::string_view, const char*> groups{
      {"explain", "Learn"},        {"lesson", "Learn"},        {"encodings", "Learn"},     {"layouts", "Learn"},
      {"positions", "Learn"},      {"sections", "Learn"},      {"frequencies", "Compute"}, {"matrix", "Compute"},
      {"apply", "Compute"},        {"precision", "Compute"},   {"bound", "Compute"},       {"extrapolation", "Compute"},
      {"bench", "Compute"},        {"verify", "Check a model"}, {"check", "Check a model"}, {"inspect", "Check a model"},
      {"identify", "Check a model"}, {"permute", "Check a model"}, {"decay", "Figures"},   {"wavelengths", "Figures"},
      {"attention", "Figures"},
  };
  const auto found = groups.find(command);
  return found != groups.end() ? found->second : "Compute";
}

std::string overview_help(const CLI::App& app, const std::vector<const CLI::App*>& commands, Lang lang, bool full) {
  const Text t(lang);
  const std::size_t width = help_width();
  std::string out = option_text_in(app.get_description(), lang) + "\n";
  out += t.tr("Usage: rope COMMAND [OPTIONS]; rope COMMAND -h for its short help, --help for all of it\n");
  for (const char* group : {"Learn", "Compute", "Check a model", "Figures"}) {
    out += "\n" + group_heading(t, group) + ":\n";
    for (const CLI::App* command : commands) {
      if (std::string_view(command_group(command->get_name())) != group) continue;
      std::string name = command->get_name();
      for (const std::string& alias : command->get_aliases()) name += ", " + alias;
      out += help_entry(name, option_text_in(command->get_description(), lang), 22, width);
    }
  }
  out += '\n';
  for (const std::string& line :
       wrap_text(t.tr("rope help COMMAND: a command's help; rope help scaling, rope help figures, rope help language: the "
                      "options every command shares"),
                 width)) {
    out += line + '\n';
  }
  if (full) {
    out += '\n';
    out += t.zh() ? footer_zh(app.get_footer()) : app.get_footer();
    out += '\n';
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
  std::string out = t.tr("Shared options") + std::string(":\n");
  for (const std::string& topic : help_topics()) {
    const auto found = by_topic.find(topic);
    if (found == by_topic.end()) continue;
    const std::vector<std::string>& names = found->second;
    std::string list;
    const std::size_t shown = std::min<std::size_t>(names.size(), 4);
    for (std::size_t i = 0; i < shown; ++i) list += (i > 0 ? ", " : "") + names[i];
    const std::string line =
        names.size() > shown ? t.tr("{0} and {1} more: rope help {2}", list, names.size() - shown, topic)
                             : t.tr("{0}: rope help {1}", list, topic);
    out += help_entry(topic_heading(t, topic), line, 22, help_width());
  }
  return out;
}

std::string short_help(const CLI::App& command, Lang lang) {
  const Text t(lang);
  const std::size_t width = help_width();
  std::vector<std::string> head, options, tail;
  for (const std::string& line : wrap_text(option_text_in(command.get_description(), lang), width)) head.push_back(line);
  head.push_back(t.tr("Usage: rope {0} [OPTIONS]", command.get_name()));
  head.emplace_back();
  head.push_back(t.tr("Options") + std::string(":"));
  for (const CLI::Option* option : command.get_options()) {
    if (option->get_name() == "--help" || option->get_name() == "--help-all" || !shared_topic(*option).empty()) continue;
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
    tail.push_back(t.tr("Example") + std::string(":"));
    tail.push_back(example);
  }
  tail.emplace_back();
  for (const std::string& line :
       wrap_text(t.tr("All options: rope {0} --help; shared options: rope help scaling, rope help figures",
                      command.get_name()),
                 width)) {
    tail.push_back(line);
  }
  // The options that fit: each entry's lines counted; the rest named by a line of their own.
  const auto lines_of = [](const std::string& entry) { return 1 + static_cast<std::size_t>(std::count(entry.begin(), entry.end(), '\n')); };
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
    out += t.tr("Figures: the options of every command that draws (gnuplot; docs/gallery.md); --gif, --frames and "
                "--delay (its own) where a command animates\n");
    add_figure_options(app, *figure);
  } else {
    out += t.tr("Language: --lang en|zh on every command; without it, Chinese when LC_ALL, LC_MESSAGES or LANG (the "
                "first set) starts with zh. CSV and JSON keys, option names and file names stay as they are.\n");
    add_lang_option(app, figure->lang);
  }
  out += '\n';
  for (const CLI::Option* option : app.get_options()) {
    const std::string name = option->get_name();
    if (name == "--help" || (topic != "language" && name == "--lang")) continue;
    out += help_entry(option_label(*option, lang), option_text_in(option->get_description(), lang), kColumn, width);
  }
  return out;
}

}  // namespace rope::cli
