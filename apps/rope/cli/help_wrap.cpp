#include "rope/cli/help_wrap.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>

#include "rope/report/printing.hpp"
#include "rope/core/utf8.hpp"

namespace rope::cli {

namespace {

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

/// Whether `piece` is a full-width punctuation mark that ends a clause or closes a bracket.
bool closing_punctuation(const std::string& piece) {
  for (const char* mark : {"，", "。", "；", "：", "、", "）", "？", "！"}) {
    if (piece == mark) return true;
  }
  return false;
}

}  // namespace

std::size_t help_width() {
  // The terminal's own width when standard output is one (an interactive shell does not export COLUMNS), then
  // $COLUMNS, then the projector's 100 columns; below 40 columns the help keeps its 100 (docs/cli.md "Help").
  winsize size{};
  if (::isatty(STDOUT_FILENO) == 1 && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col >= 40) {
    return size.ws_col;
  }
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
      for (std::size_t comma = piece.find(','); start < piece.size(); comma = piece.find(',', start)) {
        const std::size_t end = comma == std::string::npos ? piece.size() : comma + 1;
        parts.push_back(piece.substr(start, end - start));
        start = end;
      }
    }
    std::vector<std::string> line;  // its pieces
    std::size_t used = 0;
    const auto finish = [&lines](std::vector<std::string>& pieces_of_line) {
      while (!pieces_of_line.empty() && pieces_of_line.back().front() == ' ') pieces_of_line.pop_back();
      std::string text;
      for (const std::string& piece : pieces_of_line) text += piece;
      lines.push_back(text);
      pieces_of_line.clear();
    };
    for (const std::string& piece : parts) {
      const std::size_t w = columns(piece);
      if (used + w <= width || line.empty()) {
        line.push_back(piece);
        used += w;
        continue;
      }
      // Chinese punctuation that closes (，。；：、）) does not start a line: the character before it comes along
      std::vector<std::string> next;
      if (closing_punctuation(piece) && line.size() > 1 && line.back().front() != ' ') {
        next.push_back(line.back());
        line.pop_back();
      }
      finish(line);
      if (piece.front() != ' ') next.push_back(piece);
      line = next;
      used = 0;
      for (const std::string& carried : line) used += columns(carried);
    }
    finish(line);
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
  std::vector<std::string> lines;
  {
    std::istringstream in(footer);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  const auto is_command = [](const std::string& line) {
    const std::size_t indent = line.find_first_not_of(' ');
    return indent != std::string::npos && indent > 0 && line.compare(indent, 5, "rope ") == 0;
  };
  std::string out;
  for (std::size_t i = 0; i < lines.size();) {
    const std::string& line = lines[i];
    if (is_command(line)) {  // broken as a shell reads it, two columns kept for " \\"
      const std::size_t indent = line.find_first_not_of(' ');
      const std::vector<std::string> parts = columns(line) <= width
                                                 ? std::vector<std::string>{line.substr(indent)}
                                                 : wrap_text(line.substr(indent), width - indent - 6);
      for (std::size_t k = 0; k < parts.size(); ++k) {
        out += std::string(k == 0 ? indent : indent + 4, ' ') + parts[k] + (k + 1 < parts.size() ? " \\" : "") + '\n';
      }
      ++i;
      continue;
    }
    // a paragraph: up to a blank line, a heading ("Example:") or a command; kept as written unless a line
    // is too wide, then filled again
    std::size_t end = i + 1;
    while (end < lines.size() && !lines[end].empty() && !is_command(lines[end]) && lines[end].back() != ':' &&
           !line.empty() && line.back() != ':') {
      ++end;
    }
    bool wide = false;
    for (std::size_t k = i; k < end; ++k) wide = wide || columns(lines[k]) > width;
    if (!wide) {
      for (std::size_t k = i; k < end; ++k) out += lines[k] + '\n';
    } else {
      std::string text;
      for (std::size_t k = i; k < end; ++k) text += (k > i ? " " : "") + lines[k];
      for (const std::string& part : wrap_text(text, width)) out += part + '\n';
    }
    i = end;
  }
  if (!out.empty() && (footer.empty() || footer.back() != '\n')) out.pop_back();
  return out;
}

}  // namespace rope::cli
