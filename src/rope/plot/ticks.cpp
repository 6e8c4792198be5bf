#include "rope/plot/ticks.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>

#include "rope/core/error.hpp"

namespace rope::plot {

namespace {

// log_ticks: 1-2-5 steps up to this ratio hi/lo (about 2.5 decades, ≤ ~8 ticks), powers of ten above.
constexpr double kMaxRatioFor125 = 300.0;

/// m·10^k as the double nearest to the decimal value (10^k is exact up to 10^22).
double decimal(int m, int k) {
  double p = 1.0;
  for (int i = 0; i < std::abs(k) && i < 22; ++i) p *= 10.0;
  if (std::abs(k) > 22) p = std::pow(10.0, std::abs(k));
  return k >= 0 ? m * p : m / p;
}

int decade_of(double v) { return static_cast<int>(std::floor(std::log10(v))); }

/// Largest "nice" value ≤ v, nice = m·10^k with m in `steps` (ascending).
template <std::size_t N>
double nice_floor(double v, const std::array<int, N>& steps) {
  for (int k = decade_of(v) + 1; k >= decade_of(v) - 1; --k) {
    for (auto m = steps.rbegin(); m != steps.rend(); ++m) {
      if (decimal(*m, k) <= v) return decimal(*m, k);
    }
  }
  return v;
}

/// Smallest nice value ≥ v.
template <std::size_t N>
double nice_ceil(double v, const std::array<int, N>& steps) {
  for (int k = decade_of(v) - 1; k <= decade_of(v) + 1; ++k) {
    for (const int m : steps) {
      if (decimal(m, k) >= v) return decimal(m, k);
    }
  }
  return v;
}

constexpr std::array<int, 3> k125 = {1, 2, 5};
constexpr std::array<int, 1> k1 = {1};

}  // namespace

namespace {

/// An integer in Unicode superscripts (10⁵, 10⁻⁴), which the figures' fonts hold (plot/text.hpp in_cjk_font).
std::string superscript(int n) {
  static constexpr std::string_view kDigits[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
  std::string out = n < 0 ? "⁻" : "";
  for (const char c : std::to_string(std::abs(n))) out += kDigits[c - '0'];
  return out;
}

std::string exponent_label(double x) {
  int exponent = static_cast<int>(std::floor(std::log10(std::abs(x))));
  double mantissa = std::round(x / std::pow(10.0, exponent) * 1e6) / 1e6;
  if (std::abs(mantissa) >= 10) mantissa /= 10, ++exponent;  // 9.9999999 rounded up to 10
  if (mantissa == 1) return "10" + superscript(exponent);
  if (mantissa == -1) return "-10" + superscript(exponent);
  return fmt::format("{:g}×10{}", mantissa, superscript(exponent));
}

/// Whether `x` is written with an exponent on its own: 10^5 and more, or under 10^-4 (but not 0).
bool needs_exponent(double x) { return x != 0 && (std::abs(x) >= 1e5 || std::abs(x) < 1e-4); }

}  // namespace

std::string tick_label(double x) { return needs_exponent(x) ? exponent_label(x) : fmt::format("{:g}", x); }

std::vector<std::string> tick_labels(const std::vector<double>& ticks) {
  const bool exponents = std::any_of(ticks.begin(), ticks.end(), needs_exponent);
  std::vector<std::string> labels;
  for (const double t : ticks) labels.push_back(exponents && t != 0 ? exponent_label(t) : fmt::format("{:g}", t));
  return labels;
}

std::pair<double, double> nice_log_range(double lo, double hi) {
  double a = nice_floor(lo, k125);
  double b = nice_ceil(hi, k125);
  if (a == b) {  // a single value: one 1-2-5 step either side
    a = nice_floor(std::nextafter(a, 0.0), k125);
    b = nice_ceil(std::nextafter(b, INFINITY), k125);
  }
  if (b / a > kMaxRatioFor125) {
    a = nice_floor(lo, k1);
    b = nice_ceil(hi, k1);
  }
  return {a, b};
}

std::vector<double> log_ticks(double lo, double hi) {
  if (!(lo > 0) || !(lo < hi) || !std::isfinite(hi)) {
    throw InvalidArgument(error_msg("log ticks need 0 < lo < hi, both finite (got {0} and {1})", lo, hi));
  }
  // Values computed by arithmetic (hi = 50.000000000000007) still count as their nice neighbour.
  const double slack = 1e-9;
  const auto collect = [&](auto steps) {
    std::vector<double> ticks;
    for (int k = decade_of(lo) - 1; k <= decade_of(hi) + 1; ++k) {
      for (const int m : steps) {
        const double v = decimal(m, k);
        if (v >= lo * (1 - slack) && v <= hi * (1 + slack)) ticks.push_back(v);
      }
    }
    return ticks;
  };
  std::vector<double> ticks = hi / lo <= kMaxRatioFor125 ? collect(k125) : collect(k1);
  if (ticks.size() < 2) ticks = collect(std::array<int, 9>{1, 2, 3, 4, 5, 6, 7, 8, 9});
  if (ticks.size() < 2) ticks = {lo, hi};
  return ticks;
}

}  // namespace rope::plot
