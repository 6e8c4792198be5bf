/// @file
/// Synthetic dumps for the check and identify tests: q drawn from a fixed-seed generator, and RoPE applied
/// here by the complex form z_j·a·e^{i·m·θ_j} with std::polar (independent of rope's kernels), pair j being
/// (2j, 2j+1) or (j, j + r/2).
#pragma once

#include <cmath>
#include <complex>
#include <random>

#include "rope/analysis/dumps/dump.hpp"

namespace rope::test {

inline DumpVectors random_dump(long seq, long heads, int d, unsigned seed = 15) {
  DumpVectors v;
  v.seq = seq, v.heads = heads, v.d = d, v.dtype = DType::F64;
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> normal;
  v.values.resize(static_cast<std::size_t>(seq * heads * d));
  for (double& x : v.values) x = normal(gen);
  return v;
}

/// RoPE of `x` with θ_j = base^(−2j/r) (or `theta` when given), attention factor a, at positions 0 … seq−1
/// (+ offset); heads in `other_layout_heads` use the other layout.
inline DumpVectors rotate_dump(const DumpVectors& x, bool half, int r, double base, double a = 1.0, double offset = 0.0,
                               const std::vector<long>& other_layout_heads = {},
                               const std::vector<double>& theta = {}) {
  DumpVectors y = x;
  for (long s = 0; s < x.seq; ++s) {
    for (long g = 0; g < x.groups(); ++g) {
      bool h = half;
      for (long o : other_layout_heads) h = o == g ? !half : h;
      for (int j = 0; j < r / 2; ++j) {
        const int ca = h ? j : 2 * j, cb = h ? j + r / 2 : 2 * j + 1;
        const double t = theta.empty() ? std::pow(base, -2.0 * j / r) : theta[static_cast<std::size_t>(j)];
        const std::complex<double> z(x.value(s, g, ca), x.value(s, g, cb));
        const std::complex<double> w = z * std::polar(a, (static_cast<double>(s) + offset) * t);
        y.values[static_cast<std::size_t>((s * x.groups() + g) * x.d + ca)] = w.real();
        y.values[static_cast<std::size_t>((s * x.groups() + g) * x.d + cb)] = w.imag();
      }
    }
  }
  return y;
}

/// RoPE of `x` with θ_j = sign·base^(−2j/r) at the given position of each sequence index.
inline DumpVectors rotate_dump_at(const DumpVectors& x, bool half, int r, double base,
                                  const std::vector<double>& positions, double sign = 1.0) {
  DumpVectors y = x;
  for (long s = 0; s < x.seq; ++s) {
    for (long g = 0; g < x.groups(); ++g) {
      for (int j = 0; j < r / 2; ++j) {
        const int ca = half ? j : 2 * j, cb = half ? j + r / 2 : 2 * j + 1;
        const std::complex<double> z(x.value(s, g, ca), x.value(s, g, cb));
        const double angle = positions[static_cast<std::size_t>(s)] * sign * std::pow(base, -2.0 * j / r);
        const std::complex<double> w = z * std::polar(1.0, angle);
        y.values[static_cast<std::size_t>((s * x.groups() + g) * x.d + ca)] = w.real();
        y.values[static_cast<std::size_t>((s * x.groups() + g) * x.d + cb)] = w.imag();
      }
    }
  }
  return y;
}

inline std::vector<double> range_positions(long n) {
  std::vector<double> p(static_cast<std::size_t>(n));
  for (long i = 0; i < n; ++i) p[static_cast<std::size_t>(i)] = static_cast<double>(i);
  return p;
}

}  // namespace rope::test
