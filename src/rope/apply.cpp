#include "rope/apply.hpp"

#include <cmath>
#include <complex>
#include <fmt/format.h>

#include "rope/error.hpp"

namespace rope {

namespace {

template <typename Scalar>
void check_sizes(const Vector<Scalar>& x, const Vector<Scalar>& theta) {
  if (x.size() != 2 * theta.size()) {
    throw InvalidArgument(fmt::format(
        "vector length must equal d = 2 × (number of frequencies) = {} (got {})",
        2 * theta.size(), x.size()));
  }
}

}  // namespace

template <typename Scalar>
Vector<Scalar> rotate_pairs(const Vector<Scalar>& x, Layout layout) {
  const int d = static_cast<int>(x.size());
  Vector<Scalar> r(d);
  for (int i = 0; i < d / 2; ++i) {
    const auto [a, b] = pair_channels(d, i, layout);
    r[a] = -x[b];
    r[b] = x[a];
  }
  return r;
}

template <typename Scalar>
Vector<Scalar> apply_rotary(const Vector<Scalar>& x, const Vector<Scalar>& theta, Scalar m,
                            Layout layout) {
  using std::cos;
  using std::sin;
  check_sizes(x, theta);
  const int d = static_cast<int>(x.size());
  Vector<Scalar> cos_m(d);
  Vector<Scalar> sin_m(d);
  for (int i = 0; i < d / 2; ++i) {
    const Scalar angle = m * theta[i];
    const auto [a, b] = pair_channels(d, i, layout);
    cos_m[a] = cos_m[b] = cos(angle);
    sin_m[a] = sin_m[b] = sin(angle);
  }
  return x.cwiseProduct(cos_m) + rotate_pairs(x, layout).cwiseProduct(sin_m);  // (M9)
}

template <typename Scalar>
Vector<Scalar> apply_rotary_complex(const Vector<Scalar>& x, const Vector<Scalar>& theta, Scalar m,
                                    Layout layout) {
  check_sizes(x, theta);
  const int d = static_cast<int>(x.size());
  Vector<Scalar> out(d);
  for (int i = 0; i < d / 2; ++i) {
    const auto [a, b] = pair_channels(d, i, layout);
    const std::complex<Scalar> z = std::complex<Scalar>(x[a], x[b]) * std::polar(Scalar(1), m * theta[i]);
    out[a] = z.real();
    out[b] = z.imag();
  }
  return out;
}

template Vector<float> rotate_pairs<float>(const Vector<float>&, Layout);
template Vector<double> rotate_pairs<double>(const Vector<double>&, Layout);
template Vector<float> apply_rotary<float>(const Vector<float>&, const Vector<float>&, float, Layout);
template Vector<double> apply_rotary<double>(const Vector<double>&, const Vector<double>&, double,
                                             Layout);
template Vector<float> apply_rotary_complex<float>(const Vector<float>&, const Vector<float>&, float,
                                                   Layout);
template Vector<double> apply_rotary_complex<double>(const Vector<double>&, const Vector<double>&,
                                                     double, Layout);

}  // namespace rope
