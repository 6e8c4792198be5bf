#include "rope/analysis/check/angle_table.hpp"

#include <algorithm>
#include <cmath>

#include "rope/core/simd.hpp"

namespace rope {

AngleTable::AngleTable(const Eigen::VectorXd& theta, double limit) : half_(static_cast<int>(theta.size())) {
  levels_ = 1;
  while (std::ldexp(1.0, kDigitBits * levels_) < limit) ++levels_;
  cos_.resize(static_cast<std::size_t>(levels_) * kDigits * half_);
  sin_.resize(cos_.size());
  for (int l = 0; l < levels_; ++l) {
    for (int j = 0; j < kDigits; ++j) {
      const double p = std::ldexp(static_cast<double>(j), kDigitBits * l);  // exact: < 2^53
      const std::size_t row = (static_cast<std::size_t>(l) * kDigits + j) * half_;
      for (int i = 0; i < half_; ++i) {
        cos_[row + i] = std::cos(p * theta[i]);
        sin_[row + i] = std::sin(p * theta[i]);
      }
    }
  }
}

ROPE_CLONES void AngleTable::at(std::int64_t p, double* c, double* s) const {
  const bool negative = p < 0;
  std::uint64_t u = negative ? static_cast<std::uint64_t>(-p) : static_cast<std::uint64_t>(p);
  const auto row = [&](int level, std::uint64_t digit, const std::vector<double>& v) {
    return v.data() + (static_cast<std::size_t>(level) * kDigits + digit) * half_;
  };
  const double* ca = row(0, u & (kDigits - 1), cos_);
  const double* sa = row(0, u & (kDigits - 1), sin_);
  u >>= kDigitBits;
  int l = 1;
  while (u != 0 && (u & (kDigits - 1)) == 0) ++l, u >>= kDigitBits;
  if (u == 0) {  // one digit: the table row itself
    std::copy(ca, ca + half_, c);
    std::copy(sa, sa + half_, s);
  }
  bool first = true;
  for (; u != 0 && l < levels_; ++l, u >>= kDigitBits) {
    const std::size_t digit = u & (kDigits - 1);
    if (digit == 0) continue;  // e^{i·0} = 1: nothing to multiply
    const double* cl = row(l, digit, cos_);
    const double* sl = row(l, digit, sin_);
    const double* cx = first ? ca : c;
    const double* sx = first ? sa : s;
#pragma omp simd
    for (int i = 0; i < half_; ++i) {
      const double a = cx[i], b = sx[i];
      c[i] = a * cl[i] - b * sl[i];  // (a + ib)(cl + i·sl)
      s[i] = a * sl[i] + b * cl[i];
    }
    first = false;
  }
  if (negative) {
    for (int i = 0; i < half_; ++i) s[i] = -s[i];
  }
}

}  // namespace rope
