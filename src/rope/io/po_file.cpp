#include "rope/io/po_file.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "rope/core/error.hpp"

namespace rope {

bool PoEntry::has_flag(std::string_view flag) const {
  return std::find(flags.begin(), flags.end(), flag) != flags.end();
}

namespace {

class PoParser {
 public:
  PoParser(std::string_view text, const std::string& name) : text_(text), name_(name) {}

  std::vector<PoEntry> run() {
    if (text_.size() > kMaxPoBytes) {
      throw InvalidArgument(
          error_msg("{0}: a catalog must be at most {1} bytes (got {2})", name_, kMaxPoBytes, text_.size()));
    }
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") text_.remove_prefix(3);
    std::size_t start = 0;
    while (start < text_.size()) {
      std::size_t end = text_.find('\n', start);
      if (end == std::string_view::npos) end = text_.size();
      ++line_;
      std::string_view line = text_.substr(start, end - start);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      take(line);
      if (end == text_.size()) break;
      start = end + 1;
    }
    if (state_ == State::Str) finish();
    if (state_ != State::None) {
      line_ = cur_.line != 0 ? cur_.line : line_;
      fail("an entry must end with a msgstr");
    }
    return std::move(entries_);
  }

 private:
  enum class State { None, Ctxt, Id, Str };

  [[noreturn]] void fail(std::string_view rule) const {
    throw InvalidArgument(fmt::format("{}:{}: {}", name_, line_, rule));
  }

  static std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
  }

  void finish() {
    if (entries_.size() >= kMaxPoEntries) fail(fmt::format("a catalog must hold at most {} entries", kMaxPoEntries));
    entries_.push_back(std::move(cur_));
    cur_ = PoEntry{};
    state_ = State::None;
  }

  void take(std::string_view line) {
    line = trim(line);
    if (line.empty()) return;
    bool obsolete = false;
    if (line.substr(0, 2) == "#~") {
      obsolete = true;
      line = trim(line.substr(2));
      if (line.empty()) return;
      if (line.front() == '|') return;  // #~| previous msgid of an obsolete entry
    } else if (line.front() == '#') {
      if (state_ == State::Str) finish();
      if (state_ != State::None) fail("a comment cannot stand inside an entry");
      comment(line);
      return;
    }
    if (line.front() == '"') {
      if (state_ == State::None) fail("a continuation string must follow msgctxt, msgid or msgstr");
      field() += unquote(line);
      return;
    }
    const std::size_t space = line.find_first_of(" \t");
    const std::string_view keyword = line.substr(0, space);
    const std::string_view rest = space == std::string_view::npos ? std::string_view{} : trim(line.substr(space));
    if (keyword == "msgctxt") {
      if (state_ == State::Str) finish();
      if (state_ != State::None) fail("msgctxt must come before msgid");
      state_ = State::Ctxt;
      cur_.has_context = true;
    } else if (keyword == "msgid") {
      if (state_ == State::Str) finish();
      if (state_ == State::Id) fail("msgid given twice in one entry");
      state_ = State::Id;
      cur_.line = line_;
    } else if (keyword == "msgstr") {
      if (state_ != State::Id) fail("msgstr must follow msgid");
      state_ = State::Str;
    } else if (keyword == "msgid_plural" || keyword.substr(0, 7) == "msgstr[") {
      fail("plural forms are not supported (rope's catalog has none)");
    } else {
      fail(fmt::format("expected msgctxt, msgid, msgstr or a string (got '{}')", keyword));
    }
    cur_.obsolete = cur_.obsolete || obsolete;
    field() = unquote(rest);
  }

  void comment(std::string_view line) {
    if (line.substr(0, 2) == "#,") {
      std::string_view flags = line.substr(2);
      while (!flags.empty()) {
        const std::size_t comma = flags.find(',');
        const std::string_view flag = trim(flags.substr(0, comma));
        if (!flag.empty()) cur_.flags.emplace_back(flag);
        if (comma == std::string_view::npos) break;
        flags.remove_prefix(comma + 1);
      }
    } else if (line.substr(0, 2) == "#.") {
      std::string_view text = line.substr(2);
      if (!text.empty() && text.front() == ' ') text.remove_prefix(1);
      cur_.extracted.emplace_back(text);
    }
  }

  std::string& field() {
    switch (state_) {
      case State::Ctxt:
        return cur_.context;
      case State::Id:
        return cur_.id;
      default:
        return cur_.str;
    }
  }

  std::string unquote(std::string_view s) const {
    if (s.size() < 2 || s.front() != '"' || s.back() != '"') fail("a string must be enclosed in '\"'");
    s = s.substr(1, s.size() - 2);
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
      const char c = s[i];
      if (c == '"') fail("a '\"' inside a string must be written \\\"");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (++i == s.size()) fail("a string cannot end with a single '\\'");
      switch (s[i]) {
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'r':
          out += '\r';
          break;
        case 'a':
          out += '\a';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'v':
          out += '\v';
          break;
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        default:
          if (s[i] >= '0' && s[i] <= '7') {
            int value = 0;
            for (int k = 0; k < 3 && i < s.size() && s[i] >= '0' && s[i] <= '7'; ++k, ++i)
              value = value * 8 + (s[i] - '0');
            --i;
            if (value > 255) fail("an octal escape must be at most \\377");
            out += static_cast<char>(value);
          } else {
            fail(fmt::format("unknown escape '\\{}' in a string", s[i]));
          }
      }
    }
    return out;
  }

  std::string_view text_;
  const std::string& name_;
  std::size_t line_ = 0;
  State state_ = State::None;
  PoEntry cur_;
  std::vector<PoEntry> entries_;
};

}  // namespace

std::vector<PoEntry> parse_po(std::string_view text, const std::string& name) { return PoParser(text, name).run(); }

}  // namespace rope
