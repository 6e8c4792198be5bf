#include "rope/core/parse.hpp"

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>

#include "rope/core/error.hpp"
#include "rope/core/utf8.hpp"

namespace rope {

namespace {

std::string_view trim(std::string_view s) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t'; };
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

/// The text as shown in a message: quoted, with rope's one escape of controls (core/utf8.hpp) and cut after
/// 40 bytes, so one bad value stays one short line.
std::string shown(std::string_view text) { return fmt::format("'{}'", escape_controls(text, 40)); }

bool starts_with_word(const char* p, const char* last, std::string_view word) {
  if (static_cast<std::size_t>(last - p) < word.size()) return false;
  for (char c : word) {
    if (std::tolower(static_cast<unsigned char>(*p++)) != c) return false;
  }
  return true;
}

/// The end of the longest prefix of [first, last) that from_chars (general format) reads as a double:
/// an optional '-', then "inf", "infinity", "nan" or "nan(chars)" in any case, or digits with at most
/// one '.' (at least one digit) and an exponent e[+-]digits only when it is complete; `first` if none.
const char* number_end(const char* first, const char* last) {
  const char* p = first;
  if (p != last && *p == '-') ++p;
  if (starts_with_word(p, last, "infinity")) return p + 8;
  if (starts_with_word(p, last, "inf")) return p + 3;
  if (starts_with_word(p, last, "nan")) {
    p += 3;
    const char* q = p;
    if (q != last && *q == '(') {
      ++q;
      while (q != last && (std::isalnum(static_cast<unsigned char>(*q)) || *q == '_')) ++q;
      if (q != last && *q == ')') return q + 1;
    }
    return p;
  }
  const auto digits = [last](const char* s) {
    while (s != last && *s >= '0' && *s <= '9') ++s;
    return s;
  };
  const char* integer_end = digits(p);
  bool any = integer_end != p;
  p = integer_end;
  if (p != last && *p == '.') {
    const char* fraction_end = digits(p + 1);
    any = any || fraction_end != p + 1;
    p = fraction_end;
  }
  if (!any) return first;
  if (p != last && (*p == 'e' || *p == 'E')) {
    const char* e = p + 1;
    if (e != last && (*e == '+' || *e == '-')) ++e;
    const char* exponent_end = digits(e);
    if (exponent_end != e) p = exponent_end;
  }
  return p;
}

}  // namespace

namespace detail {

std::from_chars_result from_chars_strtod(const char* first, const char* last, double& value) {
  const char* end = number_end(first, last);
  if (end == first) return {first, std::errc::invalid_argument};
  const std::string text(first, end);  // strtod needs the terminating 0; the C locale's '.'
  errno = 0;
  char* stop = nullptr;
  const double v = std::strtod(text.c_str(), &stop);
  if (stop != text.c_str() + text.size()) return {first, std::errc::invalid_argument};
  if (errno == ERANGE && (std::isinf(v) || v == 0.0)) return {end, std::errc::result_out_of_range};
  value = v;
  return {end, std::errc()};
}

}  // namespace detail

namespace {

/// std::from_chars for a double where the C++ library has it (libstdc++), else the same through strtod.
std::from_chars_result from_chars_double(const char* first, const char* last, double& value) {
#if defined(__cpp_lib_to_chars)
  return std::from_chars(first, last, value, std::chars_format::general);
#else
  return detail::from_chars_strtod(first, last, value);
#endif
}

}  // namespace

long parse_integer(std::string_view text, std::string_view what) {
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (first != last && *first == '+') ++first;                               // from_chars rejects a leading '+'
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

namespace {

enum class RealFault { None, Range, Syntax, NotFinite };

/// The number of `text`, or what is wrong with it (the messages name the value by their own key).
RealFault read_real(std::string_view text, double& value) {
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (first != last && *first == '+') ++first;
  if (first != text.data() && first != last && *first == '-') first = last;  // "+-1": one sign at most
  value = 0.0;
  const auto [end, ec] = from_chars_double(first, last, value);
  if (ec == std::errc::result_out_of_range) return RealFault::Range;
  if (ec != std::errc() || end != last) return RealFault::Syntax;
  if (!std::isfinite(value)) return RealFault::NotFinite;
  return RealFault::None;
}

/// Item `index` (from 1) of the list `what`: parse_real's rules, its messages naming the item.
double parse_list_item(std::string_view text, std::string_view what, std::size_t index) {
  double value = 0.0;
  switch (read_real(text, value)) {
    case RealFault::None:
      return value;
    case RealFault::Range:
      throw InvalidArgument(
          error_msg("{0} item {1} is out of the range of a double (got {2})", what, index, shown(text)));
    case RealFault::Syntax:
      throw InvalidArgument(error_msg("{0} item {1} must be a decimal number (got {2})", what, index, shown(text)));
    case RealFault::NotFinite:
      break;
  }
  throw InvalidArgument(error_msg("{0} item {1} must be a finite number (got {2})", what, index, shown(text)));
}

}  // namespace

double parse_real(std::string_view text, std::string_view what) {
  double value = 0.0;
  switch (read_real(text, value)) {
    case RealFault::None:
      return value;
    case RealFault::Range:
      throw InvalidArgument(error_msg("{0} is out of the range of a double (got {1})", what, shown(text)));
    case RealFault::Syntax:
      throw InvalidArgument(error_msg("{0} must be a decimal number (got {1})", what, shown(text)));
    case RealFault::NotFinite:
      break;
  }
  throw InvalidArgument(error_msg("{0} must be a finite number (got {1})", what, shown(text)));
}

std::vector<double> parse_real_list(std::string_view text, std::string_view what) {
  if (trim(text).empty()) {
    throw InvalidArgument(error_msg("{0} must be a comma-separated list of numbers (got '{1}')", what, ""));
  }
  std::vector<double> values;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string_view item =
        trim(text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (values.size() == kMaxListItems) {
      throw InvalidArgument(error_msg("{0} has more than {1} items", what, kMaxListItems));
    }
    const std::size_t index = values.size() + 1;
    if (item.empty()) throw InvalidArgument(error_msg("{0} item {1} is empty (in {2})", what, index, shown(text)));
    values.push_back(parse_list_item(item, what, index));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return values;
}

}  // namespace rope
