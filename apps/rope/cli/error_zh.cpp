#include "rope/cli/error_zh.hpp"

#include <fmt/args.h>
#include <fmt/format.h>

#include <algorithm>
#include <string_view>

#include "rope/cli/catalog.hpp"
#include "rope/core/message.hpp"

namespace rope::cli {

namespace {

/// One template cut at its holes: literals[0] hole literals[1] … hole literals[n].
struct Compiled {
  std::vector<std::string> literals;
  std::vector<int> fields;   // per hole: the field number {k} of the id
  std::vector<bool> nested;  // per hole: a message of its own ("nested: {k}")
  std::size_t fixed = 0;     // characters of fixed text
  const std::string* zh = nullptr;
};

/// The error entries of the catalog, cut at their fields ({k}; "{{" and "}}" are literal braces).
const std::vector<Compiled>& compiled() {
  static const auto* list = [] {
    auto* out = new std::vector<Compiled>();
    for (const PoEntry& e : catalog_entries()) {
      if (e.context != kErrorContext || e.id.empty() || e.str.empty() || e.obsolete || e.has_flag("fuzzy")) continue;
      const std::vector<int> nested = nested_fields(e);
      Compiled c;
      c.zh = &e.str;
      std::string_view rest = e.id;
      c.literals.emplace_back();
      while (!rest.empty()) {
        if (rest.rfind("{{", 0) == 0 || rest.rfind("}}", 0) == 0) {
          c.literals.back() += rest.front();
          ++c.fixed;
          rest.remove_prefix(2);
        } else if (rest.front() == '{' && rest.find('}') != std::string_view::npos) {
          const std::size_t close = rest.find('}');
          const int field = std::stoi(std::string(rest.substr(1, close - 1)));
          c.fields.push_back(field);
          c.nested.push_back(std::find(nested.begin(), nested.end(), field) != nested.end());
          c.literals.emplace_back();
          rest.remove_prefix(close + 1);
        } else {
          c.literals.back() += rest.front();
          ++c.fixed;
          rest.remove_prefix(1);
        }
      }
      out->push_back(std::move(c));
    }
    return out;
  }();
  return *list;
}

/// Matches `text` from `pos` against literals[k..] (the hole before literals[k] starting at `pos`),
/// shortest holes first; `steps` (characters left to search) bounds the work on long or adversarial
/// messages.
bool match_from(const Compiled& c, std::string_view text, std::size_t k, std::size_t pos,
                std::vector<std::string_view>& holes, long long& steps) {
  const std::string& literal = c.literals[k];
  const bool last = k + 1 == c.literals.size();
  if (last) {
    if (text.size() < pos + literal.size() || text.substr(text.size() - literal.size()) != literal) return false;
    holes.push_back(text.substr(pos, text.size() - literal.size() - pos));
    return true;
  }
  for (std::size_t at = text.find(literal, pos); at != std::string_view::npos; at = text.find(literal, at + 1)) {
    steps -= static_cast<long long>(text.size() - pos) + 1;  // what the search read, at most
    if (steps < 0) return false;
    holes.push_back(text.substr(pos, at - pos));
    if (match_from(c, text, k + 1, at + literal.size(), holes, steps)) return true;
    holes.pop_back();
    if (literal.empty()) break;  // two adjacent holes: the first takes the shortest text only
  }
  return false;
}

/// Work bound of one translation, all templates and nested messages together, in characters searched.
/// A short message takes about 10^4, one holding a 100 000-character value about 10^7; a hostile value
/// (thousands of "', '" that every template would try) stops here and is shown in English, after
/// some tens of milliseconds.
constexpr long long kMaxSteps = 50'000'000;

bool ends_with(std::string_view text, std::string_view tail) {
  return text.size() >= tail.size() && text.substr(text.size() - tail.size()) == tail;
}

/// The Chinese of `english` by the entry with the most fixed text that matches it; `fixed` (when given) is
/// told that entry's count of fixed characters.
std::optional<std::string> translate(std::string_view english, int depth, long long& steps,
                                     std::size_t* fixed = nullptr) {
  if (depth > 4 || steps <= 0) return std::nullopt;
  const Compiled* best = nullptr;
  std::vector<std::string_view> best_holes;
  bool wrapped = false;
  // A wrapper (a template starting with a nested message, "{m} (see 'rope X --help')") comes first
  // when its message translates: a value hole of another template would otherwise swallow the suffix.
  for (const Compiled& c : compiled()) {
    if (c.literals.front().empty() && !c.nested.empty() && c.nested.front()) {
      std::vector<std::string_view> holes;
      if (!ends_with(english, c.literals.back())) continue;
      if (match_from(c, english, 1, 0, holes, steps) && translate(holes.front(), depth + 1, steps)) {
        best = &c;
        best_holes = std::move(holes);
        wrapped = true;
        break;
      }
    }
  }
  for (const Compiled& c : compiled()) {
    if (wrapped) break;
    if (best != nullptr && c.fixed <= best->fixed) continue;
    if (english.rfind(c.literals.front(), 0) != 0) continue;
    if (!ends_with(english, c.literals.back())) continue;
    std::vector<std::string_view> holes;
    if (c.literals.size() == 1) {
      if (english != c.literals.front()) continue;
    } else if (!match_from(c, english, 1, c.literals.front().size(), holes, steps)) {
      continue;
    }
    best = &c;
    best_holes = std::move(holes);
  }
  if (best == nullptr) return std::nullopt;
  if (fixed != nullptr) *fixed = best->fixed;
  // the values by field number: an id may name its fields in any order
  std::vector<std::string> values(best_holes.size());
  for (std::size_t i = 0; i < best_holes.size(); ++i) {
    // a nested message without a template (a system error text rope has not seen) stays as it is
    std::optional<std::string> nested = best->nested[i] ? translate(best_holes[i], depth + 1, steps) : std::nullopt;
    const auto field = static_cast<std::size_t>(best->fields[i]);
    if (field >= values.size()) return std::nullopt;  // a field number beyond the holes: test_catalog.cpp
    values[field] = nested ? *nested : std::string(best_holes[i]);
  }
  fmt::dynamic_format_arg_store<fmt::format_context> args;
  for (const std::string& v : values) args.push_back(v);
  try {
    return fmt::vformat(*best->zh, args);
  } catch (const fmt::format_error&) {  // a Chinese template with a bad field: tests/cli/test_error_zh.cpp
    return std::nullopt;
  }
}

}  // namespace

std::optional<std::string> error_zh_exact(const std::string& english) {
  long long steps = kMaxSteps;
  return translate(english, 0, steps);
}

std::string error_zh(const std::string& english) {
  std::optional<std::string> zh = error_zh_exact(english);
  return zh ? *zh : english;
}

namespace {

/// `message` with its text values that the catalog marks nested already in Chinese (matched by their
/// text), in its nested messages too; false where an id of the tree has no Chinese.
bool keyed(Message& message, int depth, long long& steps) {
  if (message.verbatim || message.id.empty()) return true;
  const PoEntry* entry = catalog_entry(message.id, message.context);
  if (entry == nullptr || depth > 4) return false;
  const std::vector<int> nested = nested_fields(*entry);
  for (std::size_t i = 0; i < message.args.size(); ++i) {
    MessageArg& a = message.args[i];
    if (a.kind == MessageArg::Kind::Nested) {
      Message inner = *a.nested;
      if (!keyed(inner, depth + 1, steps)) return false;
      a.nested = std::make_shared<const Message>(std::move(inner));
    } else if (a.kind == MessageArg::Kind::Text &&
               std::find(nested.begin(), nested.end(), static_cast<int>(i)) != nested.end()) {
      if (std::optional<std::string> zh = translate(a.text, depth + 1, steps)) a.text = std::move(*zh);
    }
  }
  return true;
}

}  // namespace

/// Characters of `id` outside its fields ("{{" and "}}" one each), as Compiled::fixed counts them.
std::size_t fixed_text(std::string_view id) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < id.size(); ++i) {
    if (id.compare(i, 2, "{{") == 0 || id.compare(i, 2, "}}") == 0) {
      ++n;
      ++i;
    } else if (id[i] == '{' && id.find('}', i) != std::string_view::npos) {
      i = id.find('}', i);
    } else {
      ++n;
    }
  }
  return n;
}

std::string error_zh(const Message& message) {
  Message copy = message;
  long long steps = kMaxSteps;
  if (!keyed(copy, 0, steps)) return error_zh(message.en);
  // A value that is a name of the library's own making ("--vector file 'v.txt'", "FILE line 3") is text with
  // English in it; an entry with more fixed text than the id that fits the whole English ("{0} line {1} must
  // be a finite number …") is the catalog's phrasing of that name, and wins.
  std::size_t fixed = 0;
  long long match_steps = kMaxSteps;
  if (std::optional<std::string> zh = translate(message.en, 0, match_steps, &fixed);
      zh && fixed > fixed_text(message.id)) {
    return *zh;
  }
  return copy.in(Lang::Zh);
}

}  // namespace rope::cli
