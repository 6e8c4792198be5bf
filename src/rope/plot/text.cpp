#include "rope/plot/text.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <optional>
#include <utility>
#include <vector>

#include "rope/core/utf8.hpp"

namespace rope::plot {

bool has_control_character(std::string_view text) {
  return std::any_of(text.begin(), text.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u < 0x20 || u == 0x7F;
  });
}

std::string squash(std::string_view text) {
  std::string out;
  bool space = false;
  for (const char c : text) {
    if (std::isspace(static_cast<unsigned char>(c)) != 0) {
      space = !out.empty();
    } else {
      if (space) out += ' ';
      space = false;
      out += c;
    }
  }
  if (out.size() > kMaxMessage) {
    const std::size_t start = utf8_boundary_at_or_after(out, out.size() - kMaxMessage);
    out = "..." + out.substr(start);
  }
  return out;
}

std::string quote(std::string_view text) {
  // First the characters: controls become spaces (a raw newline would end the string and start a new
  // command), bytes that are not UTF-8 become U+FFFD (keeps the SVG valid XML).
  std::string clean;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t start = i;
    const std::optional<char32_t> cp = decode_utf8(text, i);
    if (!cp) {
      clean += "\xEF\xBF\xBD";
    } else if (*cp < 0x20 || (*cp >= 0x7F && *cp <= 0x9F)) {
      clean += ' ';
    } else {
      clean.append(text.substr(start, i - start));
    }
  }
  // Then the quotes. gnuplot 5.4's scanner reads '' as a quote only after another character inside the
  // literal: not at its start, not twice in a row (scanner.c looks one character back). Those quotes go
  // into a double-quoted string of quotes only, cut to length: its even count of ' keeps the @macro
  // pass (which toggles "inside single quotes" at every ') in step, so '@x' after it stays literal.
  std::vector<std::string> pieces;
  std::string literal;
  i = 0;
  while (i < clean.size()) {
    if (clean[i] != '\'') {
      literal += clean[i++];
      continue;
    }
    std::size_t run = 0;
    while (i + run < clean.size() && clean[i + run] == '\'') ++run;
    i += run;
    if (run == 1 && !literal.empty()) {
      literal += "''";
      continue;
    }
    if (!literal.empty()) pieces.push_back("'" + literal + "'");
    literal.clear();
    pieces.push_back(fmt::format("\"{}\"[1:{}]", std::string(2 * run, '\''), run));
  }
  if (!literal.empty() || pieces.empty()) pieces.push_back("'" + literal + "'");
  return fmt::format("{}", fmt::join(pieces, " . "));
}

}  // namespace rope::plot

namespace rope::plot {

namespace {

/// One line of fit_wide_characters(): its characters (an ANSI sequence is one, of no column).
std::string fit_line(std::string_view line) {
  struct Piece {
    std::string_view text;
    std::size_t width;
  };
  std::vector<Piece> pieces;
  std::size_t extra = 0;
  std::size_t first_wide = std::string::npos;
  for (std::size_t i = 0; i < line.size();) {
    const std::size_t start = i;
    if (line[i] == '\x1b') {  // ESC [ … m
      const std::size_t end = line.find('m', i);
      i = end == std::string_view::npos ? line.size() : end + 1;
      pieces.push_back({line.substr(start, i - start), 0});
      continue;
    }
    decode_utf8(line, i);
    const std::string_view character = line.substr(start, i - start);
    const std::size_t width = display_width(character);
    if (width > 1) {
      extra += width - 1;
      if (first_wide == std::string::npos) first_wide = pieces.size();
    }
    pieces.push_back({character, width});
  }
  if (extra == 0) return std::string(line);
  std::size_t last = pieces.size();  // one past the last character that is not a space
  while (last > 0 && (pieces[last - 1].text == " " || pieces[last - 1].width == 0)) --last;
  // The second and later spaces of the gaps after the first wide character give their column back, then
  // those before it (nearest first), then the trailing spaces: the frame's border stays where it is
  // unless the line has no gap left.
  std::vector<bool> drop(pieces.size(), false);
  const auto second_space = [&](std::size_t k) { return k > 0 && pieces[k].text == " " && pieces[k - 1].text == " "; };
  std::vector<std::size_t> order;
  for (std::size_t k = first_wide; k < last; ++k) order.push_back(k);
  for (std::size_t k = first_wide; k-- > 0;) order.push_back(k);
  for (std::size_t k = last; k < pieces.size(); ++k) order.push_back(k);
  for (const std::size_t k : order) {
    if (extra == 0) break;
    if (second_space(k) || (k >= last && pieces[k].text == " ")) drop[k] = true, --extra;
  }
  std::string out;
  for (std::size_t k = 0; k < pieces.size(); ++k) {
    if (!drop[k]) out.append(pieces[k].text);
  }
  return out;
}

}  // namespace

std::string fit_wide_characters(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = text.find('\n', start);
    out += fit_line(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) break;
    out += '\n';
    start = end + 1;
  }
  return out;
}

}  // namespace rope::plot

namespace rope::plot {

namespace {

/// The plain character of a Unicode subscript or superscript (U+2080–U+209C, U+2070–U+207F, ¹ ² ³, ᵢ ⱼ ᵀ), and
/// which it is: '_' or '^'; nullopt for any other character.
std::optional<std::pair<char, std::string_view>> script_character(char32_t c) {
  static constexpr std::string_view kSubLetters = "aeohklmnpst";  // U+2090 … U+209C in this order, gaps left out
  static constexpr char32_t kSubLetterCodes[] = {0x2090, 0x2091, 0x2092, 0x2095, 0x2096, 0x2097,
                                                 0x2098, 0x2099, 0x209A, 0x209B, 0x209C};
  static constexpr std::string_view kDigits[] = {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"};
  if (c >= 0x2080 && c <= 0x2089) return std::pair{'_', kDigits[c - 0x2080]};
  if (c >= 0x2074 && c <= 0x2079) return std::pair{'^', kDigits[c - 0x2070]};
  for (std::size_t k = 0; k < kSubLetters.size(); ++k)
    if (c == kSubLetterCodes[k]) return std::pair{'_', kSubLetters.substr(k, 1)};
  switch (c) {
    case 0x2070:
      return std::pair{'^', std::string_view("0")};
    case 0x00B9:
      return std::pair{'^', std::string_view("1")};
    case 0x00B2:
      return std::pair{'^', std::string_view("2")};
    case 0x00B3:
      return std::pair{'^', std::string_view("3")};
    case 0x207A:
      return std::pair{'^', std::string_view("+")};
    case 0x207B:
      return std::pair{'^', std::string_view("-")};
    case 0x207D:
      return std::pair{'^', std::string_view("(")};
    case 0x207E:
      return std::pair{'^', std::string_view(")")};
    case 0x1D40:
      return std::pair{'^', std::string_view("T")};
    case 0x208A:
      return std::pair{'_', std::string_view("+")};
    case 0x208B:
      return std::pair{'_', std::string_view("−")};
    case 0x208D:
      return std::pair{'_', std::string_view("(")};
    case 0x208E:
      return std::pair{'_', std::string_view(")")};
    case 0x1D62:
      return std::pair{'_', std::string_view("i")};
    case 0x2C7C:
      return std::pair{'_', std::string_view("j")};
    default:
      return std::nullopt;
  }
}

}  // namespace

std::string in_cjk_font(std::string_view text) {
  // Each run of subscripts (superscripts) becomes _ (^) and its plain characters, in braces where the run is more
  // than a number (R_{n−m}, p_{a(j)}; 10^-4, 10^12): the notation the Chinese figures write with glyphs their
  // font has. Angle brackets and ✗, which WenQuanYi Micro Hei lacks too (its charset by fc-query), as < > x.
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t start = i;
    const std::optional<char32_t> cp = decode_utf8(text, i);
    const auto script = cp ? script_character(*cp) : std::nullopt;
    if (!script) {
      const std::string_view c = text.substr(start, i - start);
      out += c == "⟨" ? "<" : c == "⟩" ? ">" : c == "✗" ? "x" : std::string(c);
      continue;
    }
    std::string run(script->second);
    for (std::size_t next = i; next < text.size();) {
      const std::optional<char32_t> more = decode_utf8(text, next);
      const auto same = more ? script_character(*more) : std::nullopt;
      if (!same || same->first != script->first) break;
      run += same->second;
      i = next;
    }
    const bool number = std::all_of(run.begin(), run.end(), [](char c) { return std::isdigit(c) || c == '-'; });
    out += script->first;
    out += run.size() == 1 || number ? run : "{" + run + "}";
  }
  return out;
}

}  // namespace rope::plot
