#include "rope/core/parse.hpp"

#include <charconv>
#include <cmath>
#include <fmt/format.h>

#include "rope/core/error.hpp"

namespace rope {

namespace {

std::string_view trim(std::string_view s) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t'; };
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

/// The text as shown in a message: quoted, and cut if long, so one bad value stays one line.
std::string shown(std::string_view text) {
  std::string s;
  for (char c : text.substr(0, 40)) s += (static_cast<unsigned char>(c) < 0x20) ? '?' : c;
  return fmt::format("'{}'{}", s, text.size() > 40 ? "…" : "");
}

}  // namespace

long parse_integer(std::string_view text, std::string_view what) {
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (first != last && *first == '+') ++first;  // from_chars rejects a leading '+'
  if (first != text.data() && first != last && *first == '-') first = last;  // "+-1": one sign at most
  long value = 0;
  const auto [end, ec] = std::from_chars(first, last, value, 10);
  if (ec == std::errc::result_out_of_range) {
    throw InvalidArgument(error_msg("{0} is out of range (got {1})", what, shown(text)));
  }
  if (ec != std::errc() || end != last) {
    throw InvalidArgument(error_msg("{0} must be a decimal integer (got {1})", what, shown(text)));
  }
  return value;
}

double parse_real(std::string_view text, std::string_view what) {
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (first != last && *first == '+') ++first;
  if (first != text.data() && first != last && *first == '-') first = last;  // "+-1": one sign at most
  double value = 0.0;
  const auto [end, ec] = std::from_chars(first, last, value, std::chars_format::general);
  if (ec == std::errc::result_out_of_range) {
    throw InvalidArgument(error_msg("{0} is out of the range of a double (got {1})", what, shown(text)));
  }
  if (ec != std::errc() || end != last) {
    throw InvalidArgument(error_msg("{0} must be a decimal number (got {1})", what, shown(text)));
  }
  if (!std::isfinite(value)) {
    throw InvalidArgument(error_msg("{0} must be a finite number (got {1})", what, shown(text)));
  }
  return value;
}

std::vector<double> parse_real_list(std::string_view text, std::string_view what) {
  if (trim(text).empty()) {
    throw InvalidArgument(fmt::format("{} must be a comma-separated list of numbers (got '')", what));
  }
  std::vector<double> values;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string_view item = trim(text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (values.size() == kMaxListItems) {
      throw InvalidArgument(error_msg("{0} has more than {1} items", what, kMaxListItems));
    }
    const std::string item_name = fmt::format("{} item {}", what, values.size() + 1);
    if (item.empty()) {
      throw InvalidArgument(error_msg("{0} is empty (in {1})", item_name, shown(text)));
    }
    values.push_back(parse_real(item, item_name));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return values;
}

}  // namespace rope
