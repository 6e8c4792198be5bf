#include "rope/core/rotation.hpp"

#include <cmath>

#include <fmt/format.h>

#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"

namespace rope {

template <typename Scalar>
Eigen::Matrix<Scalar, 2, 2> rotation_2d(Scalar phi) {
  using std::cos;
  using std::sin;
  const Scalar c = cos(phi);
  const Scalar s = sin(phi);
  Eigen::Matrix<Scalar, 2, 2> r;
  r << c, -s, s, c;  // (M3)
  return r;
}

template <typename Scalar>
Matrix<Scalar> rotation_matrix(const Vector<Scalar>& theta, Scalar m, Layout layout) {
  if (theta.size() > kMaxDenseDim / 2) {
    throw InvalidArgument(
        error_msg("a dense rotation matrix is limited to d <= {0} (got d = {1})", kMaxDenseDim, 2 * theta.size()));
  }
  const int d = static_cast<int>(2 * theta.size());
  Matrix<Scalar> r = Matrix<Scalar>::Zero(d, d);
  for (int i = 0; i < d / 2; ++i) {
    const Eigen::Matrix<Scalar, 2, 2> block = rotation_2d<Scalar>(m * theta[i]);
    const auto [a, b] = pair_channels(d, i, layout);
    r(a, a) = block(0, 0);
    r(a, b) = block(0, 1);
    r(b, a) = block(1, 0);
    r(b, b) = block(1, 1);
  }
  return r;
}

Eigen::MatrixXd rotation_matrix(int d, double m, double base, Layout layout) {
  check_position(m);
  return rotation_matrix<double>(frequencies(d, base), m, layout);
}

Eigen::PermutationMatrix<Eigen::Dynamic> layout_permutation(int d) {
  check_dimension(d);
  // Eigen's convention: (P x)[indices[k]] = x[k]. Channel 2i goes to i, channel 2i+1 to i + d/2.
  Eigen::VectorXi indices(d);
  for (int i = 0; i < d / 2; ++i) {
    indices[2 * i] = i;
    indices[2 * i + 1] = i + d / 2;
  }
  return Eigen::PermutationMatrix<Eigen::Dynamic>(indices);
}

template Eigen::Matrix<float, 2, 2> rotation_2d<float>(float);
template Eigen::Matrix<double, 2, 2> rotation_2d<double>(double);
template Matrix<float> rotation_matrix<float>(const Vector<float>&, float, Layout);
template Matrix<double> rotation_matrix<double>(const Vector<double>&, double, Layout);
template Eigen::Matrix<Eigen::half, 2, 2> rotation_2d<Eigen::half>(Eigen::half);
template Eigen::Matrix<Eigen::bfloat16, 2, 2> rotation_2d<Eigen::bfloat16>(Eigen::bfloat16);
template Matrix<Eigen::half> rotation_matrix<Eigen::half>(const Vector<Eigen::half>&, Eigen::half, Layout);
template Matrix<Eigen::bfloat16> rotation_matrix<Eigen::bfloat16>(const Vector<Eigen::bfloat16>&, Eigen::bfloat16,
                                                                  Layout);

double pair_dot(const Eigen::VectorXd& u, const Eigen::VectorXd& v, Layout layout) {
  if (u.size() != v.size() || u.size() % 2 != 0) {
    throw InvalidArgument(
        error_msg("pair_dot needs two vectors of the same even length (got {0} and {1})", u.size(), v.size()));
  }
  const int d = static_cast<int>(u.size());
  double sum = 0.0;
  for (int i = 0; i < d / 2; ++i) {
    const auto [a, b] = pair_channels(d, i, layout);
    sum += u[a] * v[a] + u[b] * v[b];
  }
  return sum;
}

}  // namespace rope
