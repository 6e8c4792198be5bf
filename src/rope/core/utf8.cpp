#include "rope/core/utf8.hpp"

#include <algorithm>
#include <cstdio>
#include <fmt/format.h>

namespace rope {

std::optional<char32_t> decode_utf8(std::string_view text, std::size_t& i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) {
    ++i;
    return lead;
  }
  int extra = 0;
  char32_t cp = 0;
  char32_t min = 0;
  if ((lead & 0xE0) == 0xC0) {
    extra = 1;
    cp = lead & 0x1F;
    min = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    extra = 2;
    cp = lead & 0x0F;
    min = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    extra = 3;
    cp = lead & 0x07;
    min = 0x10000;
  } else {
    ++i;
    return std::nullopt;
  }
  if (i + static_cast<std::size_t>(extra) >= text.size()) {
    ++i;
    return std::nullopt;
  }
  for (int k = 1; k <= extra; ++k) {
    const unsigned char c = byte(i + static_cast<std::size_t>(k));
    if ((c & 0xC0) != 0x80) {
      ++i;
      return std::nullopt;
    }
    cp = (cp << 6) | (c & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    ++i;
    return std::nullopt;
  }
  i += static_cast<std::size_t>(extra) + 1;
  return cp;
}

bool is_valid_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    if (!decode_utf8(text, i)) return false;
  }
  return true;
}

std::size_t utf8_boundary_at_or_after(std::string_view text, std::size_t pos) {
  while (pos < text.size() && (static_cast<unsigned char>(text[pos]) & 0xC0) == 0x80) ++pos;
  return pos < text.size() ? pos : text.size();
}

std::size_t display_width(std::string_view text) {
  std::size_t w = 0;
  for (std::size_t i = 0; i < text.size();) {
    const std::optional<char32_t> decoded = decode_utf8(text, i);
    if (!decoded) {  // an invalid byte is shown as one replacement character
      ++w;
      continue;
    }
    const char32_t cp = *decoded;
    if (cp >= 0x300 && cp <= 0x36F) continue;  // combining diacritical marks take no column
    const bool wide =
        (cp >= 0x2E80 && cp <= 0x9FFF) || (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFF00 && cp <= 0xFF60);
    w += wide ? 2 : 1;
  }
  return w;
}

namespace {

/// The bidirectional formatting characters (Unicode's Bidi_Control): ALM U+061C, LRM U+200E, RLM U+200F, the
/// embeddings and overrides U+202A … U+202E and the isolates U+2066 … U+2069. A terminal reorders what follows
/// them (a right-to-left override in a model_type made the report read backwards), so they are escaped as controls.
bool is_bidi_control(char32_t cp) {
  return cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

}  // namespace

std::string escape_controls(std::string_view text, std::size_t max_bytes, Lines lines) {
  std::string out;
  out.reserve(std::min(text.size(), max_bytes));
  char code[16];  // an escape written by number: \xNN, \uNNNN
  const auto number = [&](const char* form, unsigned value) {
    return std::string_view(code, static_cast<std::size_t>(std::snprintf(code, sizeof code, form, value)));
  };
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t start = i;
    const std::optional<char32_t> cp = decode_utf8(text, i);
    std::string_view piece;  // one character or its escape, written whole or not at all
    if (!cp) {
      piece = number("\\x%02x", static_cast<unsigned char>(text[start]));
    } else if (*cp == '\n') {
      piece = lines == Lines::Kept ? "\n" : "\\n";
    } else if (*cp == '\t') {
      piece = lines == Lines::Kept ? "\t" : "\\t";
    } else if (*cp == '\r') {
      piece = "\\r";
    } else if (*cp == 0x1b) {
      piece = "\\e";
    } else if (*cp < 0x20 || *cp == 0x7f) {
      piece = number("\\x%02x", static_cast<unsigned>(*cp));
    } else if ((*cp >= 0x80 && *cp <= 0x9f) || is_bidi_control(*cp)) {
      piece = number("\\u%04x", static_cast<unsigned>(*cp));
    } else {
      piece = text.substr(start, i - start);
    }
    if (piece.size() > max_bytes - out.size()) return out + "…";
    out += piece;
  }
  return out;
}

// `text` with every byte that is not part of a UTF-8 sequence written as the text \xNN.
std::string valid_utf8(const std::string& text) {
  if (is_valid_utf8(text)) return text;
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t start = i;
    if (decode_utf8(text, i))
      out.append(text, start, i - start);
    else
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(text[start]));
  }
  return out;
}

}  // namespace rope
