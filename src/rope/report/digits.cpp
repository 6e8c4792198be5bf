#include "rope/report/digits.hpp"
#include "rope/report/text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>

#include "rope/io/csv.hpp"

namespace rope {

std::string sci_with_digits(double x, int digits) {
  if (digits > 0) return fmt::format("{:.{}e}", x, std::min(digits, 17) - 1);
  std::string text;
  for (int n = 1; n <= 17; ++n) {  // the fewest digits that read back (17 always do)
    text = fmt::format("{:.{}e}", x, n - 1);
    if (std::strtod(text.c_str(), nullptr) == x) break;
  }
  return text;
}

std::string readable(double x, int digits) {
  // Integers below 2^53 are exact doubles: a position or a context is printed as it is, never as 1.04858e+06.
  if (digits > 0 && std::isfinite(x) && x == std::floor(x) && std::abs(x) < 9007199254740992.0)
    return fmt::format("{:.0f}", x == 0 ? 0.0 : x);
  return with_digits(x, digits);
}

int separating_digits(const std::vector<double>& values, int min_digits) {
  int digits = std::clamp(min_digits, 1, 17);
  for (; digits < 17; ++digits) {
    bool separated = true;
    for (std::size_t i = 0; i < values.size() && separated; ++i) {
      for (std::size_t j = i + 1; j < values.size() && separated; ++j) {
        if (values[i] != values[j] && with_digits(values[i], digits) == with_digits(values[j], digits))
          separated = false;
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

int digits_for(const std::vector<std::vector<double>>& groups, const std::optional<int>& requested, int min_digits) {
  if (requested) return std::clamp(*requested, 0, 17);
  int digits = std::clamp(min_digits, 1, 17);
  for (const std::vector<double>& group : groups) digits = std::max(digits, separating_digits(group, min_digits));
  return digits;
}

std::vector<std::string> compared(const std::vector<double>& values, const std::optional<int>& requested,
                                  int min_digits) {
  const int digits = digits_for({values}, requested, min_digits);
  std::vector<std::string> out;
  for (const double x : values) out.push_back(with_digits(x, digits));
  return out;
}

std::vector<std::string> compared_sci(const std::vector<double>& values, const std::optional<int>& requested,
                                      int min_digits) {
  const int digits = digits_for({values}, requested, min_digits);
  std::vector<std::string> out;
  for (const double x : values) out.push_back(sci_with_digits(x, digits));
  return out;
}

}  // namespace rope
