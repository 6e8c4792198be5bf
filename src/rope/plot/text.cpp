#include "rope/plot/text.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <optional>
#include <vector>

#include "rope/io/utf8.hpp"

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
