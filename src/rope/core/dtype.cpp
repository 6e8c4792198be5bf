#include "rope/core/dtype.hpp"

#include <cmath>
#include <fmt/format.h>
#include <limits>

#include "rope/core/error.hpp"

namespace rope {

std::string_view to_string(DType type) {
  switch (type) {
    case DType::F64:
      return "f64";
    case DType::F32:
      return "f32";
    case DType::F16:
      return "f16";
    case DType::BF16:
      return "bf16";
  }
  return "?";
}

DType parse_dtype(std::string_view text) {
  if (text == "f64" || text == "float64" || text == "double") return DType::F64;
  if (text == "f32" || text == "float32" || text == "float") return DType::F32;
  if (text == "f16" || text == "float16" || text == "half") return DType::F16;
  if (text == "bf16" || text == "bfloat16") return DType::BF16;
  throw InvalidArgument(error_msg("dtype must be f64, f32, f16 or bf16 (got '{0}')", text));
}

int precision_bits(DType type) {
  switch (type) {
    case DType::F64:
      return 53;
    case DType::F32:
      return 24;
    case DType::F16:
      return 11;
    case DType::BF16:
      return 8;
  }
  return 0;
}

double epsilon(DType type) { return std::ldexp(1.0, 1 - precision_bits(type)); }  // (P1)

double max_exact_integer(DType type) { return std::ldexp(1.0, precision_bits(type)); }  // (P2)

double max_finite(DType type) {
  switch (type) {
    case DType::F64:
      return std::numeric_limits<double>::max();
    case DType::F32:
      return static_cast<double>(std::numeric_limits<float>::max());
    case DType::F16:
      return 65504.0;
    case DType::BF16:
      return static_cast<double>(static_cast<float>(std::numeric_limits<Eigen::bfloat16>::max()));
  }
  return 0;
}

double round_to(DType type, double x) {
  switch (type) {
    case DType::F64:
      return x;
    case DType::F32:
      return static_cast<double>(static_cast<float>(x));
    case DType::F16:
      return static_cast<double>(static_cast<float>(Eigen::half(static_cast<float>(x))));
    case DType::BF16:
      return static_cast<double>(static_cast<float>(Eigen::bfloat16(static_cast<float>(x))));
  }
  return x;
}

PositionMerges position_merges(DType type, double max_position, int groups) {
  if (!(max_position >= 0 && max_position <= 16777216.0) || max_position != std::floor(max_position)) {
    throw InvalidArgument(error_msg("{0} must be an integer between {1} and {2} (got {3})",
                                    "position merges: max position", 0, 16777216, max_position));
  }
  PositionMerges r;
  r.type = type;
  r.max_position = max_position;
  const long last = static_cast<long>(max_position);
  double previous = std::numeric_limits<double>::quiet_NaN();
  PositionMerges::Group current{0, 0, 0};
  const auto close_group = [&] {
    if (current.last > current.first && static_cast<int>(r.first_groups.size()) < groups)
      r.first_groups.push_back(current);
  };
  // round_to is monotone, so positions with one value are consecutive.
  for (long m = 0; m <= last; ++m) {
    const double x = static_cast<double>(m);
    const double v = round_to(type, x);
    if (std::isinf(v)) {
      ++r.overflow;
      continue;
    }
    if (v != x) ++r.inexact;
    if (v != previous) {
      if (m > 0) close_group();
      current = {v, x, x};
      ++r.distinct;
      previous = v;
    } else {
      current.last = x;
    }
  }
  close_group();
  r.merged = last + 1 - r.distinct - r.overflow;
  return r;
}

}  // namespace rope
