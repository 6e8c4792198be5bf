/// @file
/// Test helpers: compare matrices and vectors entry by entry against a stated tolerance, and say
/// where and by how much they differ when they do not.
#pragma once

#include <Eigen/Core>
#include <fmt/format.h>
#include <gtest/gtest.h>

namespace rope::test {

/// Passes if max |a − b| <= tol; on failure prints max |Δ|, its index, both values and the tolerance.
/// Both sides are evaluated once first: a lazy product would be recomputed for every coefficient.
template <typename A, typename B>
::testing::AssertionResult MatrixNear(const Eigen::MatrixBase<A>& a_expr, const Eigen::MatrixBase<B>& b_expr,
                                      double tol) {
  const Eigen::MatrixXd a = a_expr.template cast<double>();
  const Eigen::MatrixXd b = b_expr.template cast<double>();
  if (a.rows() != b.rows() || a.cols() != b.cols()) {
    return ::testing::AssertionFailure() << fmt::format("shapes differ: {}×{} vs {}×{}", a.rows(), a.cols(), b.rows(),
                                                        b.cols());
  }
  double worst = 0.0;
  Eigen::Index wi = 0, wj = 0;
  for (Eigen::Index i = 0; i < a.rows(); ++i) {
    for (Eigen::Index j = 0; j < a.cols(); ++j) {
      const double diff = std::abs(a(i, j) - b(i, j));
      if (!(diff <= worst)) {  // also catches NaN
        worst = diff;
        wi = i;
        wj = j;
      }
    }
  }
  if (worst <= tol) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << fmt::format("max |Δ| = {:.3g} at ({}, {}): {} vs {}; tolerance {:.3g}", worst,
                                                      wi, wj, a(wi, wj), b(wi, wj), tol);
}

}  // namespace rope::test
