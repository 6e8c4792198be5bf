/// @file
/// cos/sin of p·θ_i for every integer position p below a limit, from a few small tables: the angles of
/// `rope verify`'s fast path (verify_fast.hpp). p is split into base-128 digits and
///
///     e^{ipθ_i} = Π_l T_l[digit_l(p)],   T_l[j] = e^{i·(j·128^l)·θ_i}   (angle addition, docs/math.md (M7))
///
/// with every table entry computed directly by std::cos/std::sin, so an entry's error is a few ulp per
/// level (at most 7 levels within verify's limits), never accumulated along the positions as a
/// running recurrence would. Memory: levels × 128 × d/2 × 16 bytes (25 MB at d = 4096 and p < 2^42).
/// tests/analysis/check/test_angle_table.cpp compares it with cos/sin in long double.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <vector>

namespace rope {

/// cos(p·θ_i), sin(p·θ_i) for integers |p| < limit by base-128 digits (docs/performance.md):
/// e^{ipθ} = Π_l T_l[digit_l(p)], T_l[j] = e^{i·(j·128^l)·θ} evaluated with std::cos/std::sin.
class AngleTable {
 public:
  static constexpr int kDigitBits = 7;
  static constexpr int kDigits = 1 << kDigitBits;
  /// @pre theta non-empty, 1 <= limit <= 2^49.
  AngleTable(const Eigen::VectorXd& theta, double limit);
  int half() const { return half_; }
  int levels() const { return levels_; }
  /// c[i] = cos(p·θ_i), s[i] = sin(p·θ_i), i < half(); p may be negative (cos even, sin odd).
  void at(std::int64_t p, double* c, double* s) const;

 private:
  int half_ = 0;
  int levels_ = 0;
  std::vector<double> cos_, sin_;  ///< [level][digit][i]
};

}  // namespace rope
