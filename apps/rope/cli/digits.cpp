#include "rope/cli/digits.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "rope/io/csv.hpp"

namespace rope::cli {

std::string with_digits(double x, int digits) {
  if (digits <= 0) return format_number(x);
  return fmt::format("{:.{}g}", x, std::min(digits, 17));
}

int separating_digits(const std::vector<double>& values, int min_digits) {
  int digits = std::clamp(min_digits, 1, 17);
  for (; digits < 17; ++digits) {
    bool separated = true;
    for (std::size_t i = 0; i < values.size() && separated; ++i) {
      for (std::size_t j = i + 1; j < values.size() && separated; ++j) {
        if (values[i] != values[j] && with_digits(values[i], digits) == with_digits(values[j], digits)) separated = false;
      }
    }
    if (separated) break;
  }
  return digits;
}

std::vector<std::string> separated(const std::vector<double>& values, int min_digits) {
  const int digits = separating_digits(values, min_digits);
  std::vector<std::string> out;
  out.reserve(values.size());
  for (const double x : values) out.push_back(with_digits(x, digits));
  return out;
}

}  // namespace rope::cli
