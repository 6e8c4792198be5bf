/// @file
/// Attention computed again for the tests, independently of src/rope/analysis/teaching/attention.cpp: the scores entry
/// by entry with complex numbers, the softmax in long double.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <complex>

#include "rope/analysis/teaching/attention.hpp"

namespace rope::test {

/// The scores written out independently of attention.cpp: RoPE as complex numbers (pair i of q is
/// q_{2i} + i·q_{2i+1}, times e^{i·p·θ_i}, θ_i = base^(−2i/d) by pow; the score is Re Σ z_q·conj(z_k),
/// docs/math.md §4), sinusoidal as sin/cos added channel by channel, ALiBi as a subtraction, entry by entry.
inline Eigen::MatrixXd independent_scores(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k, const Eigen::VectorXd& p,
                                          Encoding e, double base = 10000, double slope = 0.5) {
  const Eigen::Index n = q.rows();
  const int d = static_cast<int>(q.cols());
  Eigen::MatrixXd s(n, n);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < n; ++j) {
      double dot = 0;
      for (int a = 0; a < d / 2; ++a) {
        const double theta = std::pow(base, -2.0 * a / d);
        std::complex<double> zq(q(i, 2 * a), q(i, 2 * a + 1));
        std::complex<double> zk(k(j, 2 * a), k(j, 2 * a + 1));
        if (e == Encoding::Rope) {
          zq *= std::polar(1.0, p[i] * theta);
          zk *= std::polar(1.0, p[j] * theta);
        } else if (e == Encoding::Sinusoidal) {  // (sin pθ, cos pθ) on channels (2a, 2a + 1)
          zq += std::complex<double>(std::sin(p[i] * theta), std::cos(p[i] * theta));
          zk += std::complex<double>(std::sin(p[j] * theta), std::cos(p[j] * theta));
        }
        dot += (zq * std::conj(zk)).real();
      }
      s(i, j) = dot / std::sqrt(static_cast<double>(d));
      if (e == Encoding::Alibi) s(i, j) -= slope * std::abs(p[i] - p[j]);
    }
  }
  return s;
}

/// Softmax in long double, row by row, keys j <= i only when causal.
inline Eigen::MatrixXd independent_softmax(const Eigen::MatrixXd& s, bool causal) {
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(s.rows(), s.cols());
  for (Eigen::Index i = 0; i < s.rows(); ++i) {
    const Eigen::Index keys = causal ? i + 1 : s.cols();
    long double sum = 0;
    for (Eigen::Index j = 0; j < keys; ++j) sum += std::exp(static_cast<long double>(s(i, j)));
    for (Eigen::Index j = 0; j < keys; ++j)
      a(i, j) = static_cast<double>(std::exp(static_cast<long double>(s(i, j))) / sum);
  }
  return a;
}

}  // namespace rope::test
