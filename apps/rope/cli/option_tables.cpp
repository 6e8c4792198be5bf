#include "rope/cli/option_tables.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "rope/core/error.hpp"

namespace rope::cli {

namespace {

constexpr const char* kCommandMarker = "<!-- rope_docgen: options of rope ";
constexpr const char* kGroupMarker = "<!-- rope_docgen: group ";
constexpr const char* kEndMarker = "<!-- rope_docgen: end -->";
constexpr const char* kMarkerClose = " -->";

bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

/// A table cell: a '|' would end it, a '<' before a letter, '/', '!' or '?' could open an HTML tag.
std::string cell(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i], next = i + 1 < text.size() ? text[i + 1] : ' ';
    const bool tag =
        c == '<' && (std::isalpha(static_cast<unsigned char>(next)) != 0 || next == '/' || next == '!' || next == '?');
    if (c == '|' || tag) out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

/// `meaning` and then `more` as its own sentence.
void append_sentence(std::string& meaning, const std::string& more) {
  if (!meaning.empty() && meaning.back() != '.') meaning += '.';
  if (!meaning.empty()) meaning += ' ';
  meaning += more;
}

std::string code_list(const std::vector<const CLI::Option*>& options) {
  std::vector<std::string> names;
  for (const CLI::Option* other : options) names.push_back("`" + other->get_name() + "`");
  std::sort(names.begin(), names.end());  // by name, not by the pointers CLI11's std::set orders them by
  return fmt::format("{}", fmt::join(names, ", "));
}

/// What is between a marker's prefix and " -->": the command or group name.
std::string marker_name(const std::string& line, const std::string& prefix) {
  const std::size_t close = line.rfind(kMarkerClose);
  if (close == std::string::npos || close < prefix.size() || close + std::string(kMarkerClose).size() != line.size()) {
    throw InvalidArgument(fmt::format("malformed rope_docgen marker: {}", line));
  }
  return line.substr(prefix.size(), close - prefix.size());
}

bool same_row(const OptionRow& a, const OptionRow& b) {
  return a.names == b.names && a.fallback == b.fallback && a.meaning == b.meaning;
}

/// The lines of a generated block: a blank line, the table, a blank line.
std::string block(const std::string& table) { return "\n" + table + "\n"; }

struct SharedGroup {
  std::string anchor;  ///< of the section the group's block sits in
  std::vector<OptionRow> rows;
};

}  // namespace

std::vector<OptionRow> option_rows(const CLI::App& command) {
  const auto formatter = std::dynamic_pointer_cast<CLI::Formatter>(command.get_formatter());
  std::vector<OptionRow> rows;
  for (const CLI::Option* opt : command.get_options()) {
    if (opt == command.get_help_ptr() || opt == command.get_help_all_ptr() || opt->get_group().empty()) {
      continue;  // --help, --help-all and hidden options
    }
    OptionRow row;
    row.group = opt->get_group();
    std::vector<std::string> names;
    for (const std::string& s : opt->get_snames()) row.flags.push_back("-" + s);
    for (const std::string& l : opt->get_lnames()) row.flags.push_back("--" + l);
    const bool positional = row.flags.empty();  // shown by its type name alone, as in --help's usage line
    if (positional) row.flags.push_back(opt->get_type_name().empty() ? opt->get_name() : opt->get_type_name());
    for (const std::string& flag : row.flags) names.push_back("`" + flag);
    std::string value;
    if (!positional && opt->get_type_size() != 0 && !opt->get_type_name().empty()) {
      value = opt->get_type_name();
      const bool one_word = value.find(' ') == std::string::npos;  // "M N" already names both values
      for (int i = 1; one_word && i < opt->get_expected_min(); ++i) value += " " + opt->get_type_name();
      if (opt->get_expected_max() == CLI::detail::expected_max_vector_size) value += " …";
    }
    if (!value.empty()) names.back() += " " + value;
    for (std::string& name : names) name += "`";
    row.names = fmt::format("{}", fmt::join(names, ", "));
    if (opt->get_required()) {
      row.fallback = "required";
    } else if (opt->get_type_size() != 0) {
      if (opt->get_expected_min() > 0) row.fallback = opt->get_default_str();  // --term alone: not a default
    }
    row.meaning = formatter != nullptr ? formatter->make_option_desc(opt) : opt->get_description();
    const std::set<CLI::Option*> needs = opt->get_needs(), excludes = opt->get_excludes();  // copies
    if (!needs.empty()) append_sentence(row.meaning, "Needs: " + code_list({needs.begin(), needs.end()}) + ".");
    if (!excludes.empty())
      append_sentence(row.meaning, "Excludes: " + code_list({excludes.begin(), excludes.end()}) + ".");
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string option_table(const std::vector<OptionRow>& rows) {
  std::string out = "| option | default | meaning |\n|---|---|---|\n";
  for (const OptionRow& row : rows) {
    out += fmt::format("| {} | {} | {} |\n", row.names, cell(row.fallback), cell(row.meaning));
  }
  return out;
}

std::string heading_anchor(const std::string& heading) {
  std::string text = heading;
  text.erase(0, text.find_first_not_of('#'));
  text.erase(0, text.find_first_not_of(' '));
  std::string anchor;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) != 0) {
      anchor += static_cast<char>(std::tolower(u));
    } else if (c == ' ' || c == '-') {
      anchor += '-';
    } else if (c == '_' || u >= 0x80) {
      anchor += c;
    }
  }
  return anchor;
}

std::string update_option_tables(const std::string& markdown, const std::vector<const CLI::App*>& commands) {
  std::vector<std::string> lines;
  {
    std::istringstream in(markdown);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  std::map<std::string, const CLI::App*> by_name;
  for (const CLI::App* command : commands) by_name[command->get_name()] = command;

  // The shared groups: each block's group, the section it sits in, and the union of its rows.
  std::map<std::string, SharedGroup> groups;
  std::string heading;
  bool in_code = false;
  for (const std::string& line : lines) {
    if (starts_with(line, "```")) in_code = !in_code;
    if (!in_code && starts_with(line, "#")) heading = line;
    if (!in_code && starts_with(line, kGroupMarker)) {
      const std::string name = marker_name(line, kGroupMarker);
      if (groups.count(name) != 0) throw InvalidArgument(fmt::format("group {} has two rope_docgen blocks", name));
      groups[name].anchor = heading_anchor(heading);
    }
  }
  // An option joins its group's table with the row most commands give it (the first of a tie), when at
  // least two do; a row of one command alone (its own help text, its own default) stays in its table.
  std::vector<std::pair<OptionRow, int>> seen;  // distinct rows of the shared groups, how many commands
  for (const CLI::App* command : commands) {
    for (OptionRow& row : option_rows(*command)) {
      if (groups.count(row.group) == 0) continue;
      const auto same = std::find_if(seen.begin(), seen.end(), [&](const auto& s) { return same_row(s.first, row); });
      if (same != seen.end()) {
        ++same->second;
      } else {
        seen.emplace_back(std::move(row), 1);
      }
    }
  }
  for (std::size_t i = 0; i < seen.size(); ++i) {
    bool best = seen[i].second >= 2;
    for (std::size_t j = 0; j < seen.size() && best; ++j) {
      const bool better = seen[j].second > seen[i].second || (seen[j].second == seen[i].second && j < i);
      if (j != i && seen[j].first.names == seen[i].first.names && better) best = false;
    }
    if (best) groups.at(seen[i].first.group).rows.push_back(seen[i].first);
  }
  for (const auto& [name, group] : groups) {
    if (group.rows.empty()) throw InvalidArgument(fmt::format("no command has an option of group {}", name));
  }

  const auto command_table = [&](const CLI::App& command) {
    std::vector<OptionRow> own;
    std::vector<std::pair<std::string, std::vector<std::string>>> links;  // group, option names
    for (OptionRow& row : option_rows(command)) {
      const auto group = groups.find(row.group);
      const bool shared = group != groups.end() && std::any_of(group->second.rows.begin(), group->second.rows.end(),
                                                               [&](const OptionRow& r) { return same_row(r, row); });
      if (!shared) {
        own.push_back(std::move(row));
        continue;
      }
      auto link = std::find_if(links.begin(), links.end(), [&](const auto& l) { return l.first == row.group; });
      if (link == links.end()) link = links.insert(links.end(), {row.group, {}});
      for (const std::string& flag : row.flags) link->second.push_back("`" + flag + "`");
    }
    for (const auto& [group, flags] : links) {
      own.push_back({group,
                     fmt::format("{}", fmt::join(flags, ", ")),
                     "",
                     fmt::format("the [{} options](#{})", group, groups.at(group).anchor),
                     {}});
    }
    return option_table(own);
  };

  std::string out;
  std::map<std::string, int> blocks;
  in_code = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    out += line + '\n';
    if (starts_with(line, "```")) in_code = !in_code;
    const bool command_block = !in_code && starts_with(line, kCommandMarker);
    if (!command_block && (in_code || !starts_with(line, kGroupMarker))) continue;
    std::size_t end = i + 1;
    while (end < lines.size() && lines[end] != kEndMarker) {
      if (starts_with(lines[end], "<!-- rope_docgen:")) break;
      ++end;
    }
    if (end == lines.size() || lines[end] != kEndMarker) {
      throw InvalidArgument(
          fmt::format("the rope_docgen block '{}' has no '{}' before the next marker", line, kEndMarker));
    }
    if (command_block) {
      const std::string name = marker_name(line, kCommandMarker);
      const auto command = by_name.find(name);
      if (command == by_name.end()) throw InvalidArgument(fmt::format("rope_docgen: no command 'rope {}'", name));
      ++blocks[name];
      out += block(command_table(*command->second));
    } else {
      out += block(option_table(groups.at(marker_name(line, kGroupMarker)).rows));
    }
    out += std::string(kEndMarker) + '\n';
    i = end;
  }
  for (const CLI::App* command : commands) {
    const int count = blocks[command->get_name()];
    if (count != 1) {
      throw InvalidArgument(fmt::format("rope {} has {} rope_docgen blocks (needs one: '{}{}{}')", command->get_name(),
                                        count, kCommandMarker, command->get_name(), kMarkerClose));
    }
  }
  if (!markdown.empty() && markdown.back() != '\n') out.pop_back();
  return out;
}

std::string option_list(const std::vector<const CLI::App*>& commands) {
  std::string out;
  for (const CLI::App* command : commands) {
    for (const OptionRow& row : option_rows(*command)) {
      out += fmt::format("rope {}\t{}\t{}\n", command->get_name(), fmt::join(row.flags, " "), row.group);
    }
  }
  return out;
}

}  // namespace rope::cli
