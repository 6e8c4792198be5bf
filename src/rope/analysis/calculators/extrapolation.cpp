#include "rope/analysis/calculators/extrapolation.hpp"

#include <cmath>
#include <fmt/format.h>
#include <string_view>

#include "rope/io/csv.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "rope/core/types.hpp"

namespace rope {

namespace {

void check_length(double T, std::string_view what) {
  if (!(T > kTwoPi && T <= kMaxExtrapolationLength)) {
    throw InvalidArgument(error_msg("{0} must be > 2π ≈ 6.283 (one turn of pair 0) and <= {1} (got {2})", what,
                                    fmt::format("{:g}", kMaxExtrapolationLength), format_number(T)));
  }
}

}  // namespace

CriticalDimension critical_dimension(int d, double base, double T) {
  check_dimension(d);
  check_base(base);
  check_length(T, "training length T");
  CriticalDimension c;
  c.x = (d / 2.0) * std::log(T / kTwoPi) / std::log(base);  // (C6)
  const int half = d / 2;
  if (c.x > half) {
    c.pairs = half;
    c.capped = true;
  } else {
    c.pairs = static_cast<int>(std::ceil(c.x));
  }
  c.dimension = 2 * c.pairs;
  return c;
}

double extrapolation_bound(int d, double beta, int d_extra) {
  check_dimension(d);
  check_base(beta);
  if (d_extra < 0 || d_extra > d || d_extra % 2 != 0) {
    throw InvalidArgument(error_msg("{0} must be even and between {1} and {2} (got {3})", "critical dimension", 0,
                                    fmt::format("d = {}", d), d_extra));
  }
  return kTwoPi * std::pow(beta, static_cast<double>(d_extra) / d);  // (C7)
}

double critical_base(double base, double T_train, double T_tune) {
  check_base(base);
  check_length(T_train, "training length T");
  check_length(T_tune, "tuning length T_tune");
  return std::pow(base, std::log(T_tune / kTwoPi) / std::log(T_train / kTwoPi));  // (C8)
}

SmallBaseThresholds small_base_thresholds(double T) {
  check_length(T, "tuning length T_tune");
  return {2 * T / kPi, T / kPi, T / kTwoPi};  // (C9)
}

}  // namespace rope
