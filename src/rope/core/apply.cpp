#include "rope/core/apply.hpp"

#include <cmath>
#include <complex>
#include <fmt/format.h>
#include <type_traits>

#include "rope/core/error.hpp"

namespace rope {

namespace {

template <typename Scalar>
void check_sizes(const Vector<Scalar>& x, const Vector<Scalar>& theta) {
  if (x.size() != 2 * theta.size()) {
    throw InvalidArgument(error_msg("vector length must equal d = 2 × (number of frequencies) = {0} (got {1})",
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
Vector<Scalar> apply_rotary(const Vector<Scalar>& x, const Vector<Scalar>& theta, Scalar m, Layout layout) {
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
Vector<Scalar> apply_rotary_cos_sin(const Vector<Scalar>& x, const Vector<Scalar>& cos, const Vector<Scalar>& sin,
                                    Layout layout) {
  if (cos.size() != sin.size()) {
    throw InvalidArgument(
        error_msg("cos and sin must have one value per pair (got {0} and {1})", cos.size(), sin.size()));
  }
  check_sizes(x, cos);
  const int d = static_cast<int>(x.size());
  Vector<Scalar> out(d);
  for (int i = 0; i < d / 2; ++i) {
    const auto [a, b] = pair_channels(d, i, layout);
    out[a] = x[a] * cos[i] + (-x[b]) * sin[i];  // (M9), the same operations as apply_rotary
    out[b] = x[b] * cos[i] + x[a] * sin[i];
  }
  return out;
}

template <typename Scalar>
Vector<Scalar> apply_rotary_complex(const Vector<Scalar>& x, const Vector<Scalar>& theta, Scalar m, Layout layout) {
  check_sizes(x, theta);
  const int d = static_cast<int>(x.size());
  Vector<Scalar> out(d);
  for (int i = 0; i < d / 2; ++i) {
    const auto [a, b] = pair_channels(d, i, layout);
    if constexpr (std::is_floating_point_v<Scalar>) {
      const std::complex<Scalar> z = std::complex<Scalar>(x[a], x[b]) * std::polar(Scalar(1), m * theta[i]);
      out[a] = z.real();
      out[b] = z.imag();
    } else {  // std::complex is for the standard types only: (x_a + i x_b)(c + i s) written out
      using std::cos;
      using std::sin;
      const Scalar angle = m * theta[i];
      const Scalar c = cos(angle);
      const Scalar s = sin(angle);
      out[a] = x[a] * c - x[b] * s;
      out[b] = x[a] * s + x[b] * c;
    }
  }
  return out;
}

template Vector<float> rotate_pairs<float>(const Vector<float>&, Layout);
template Vector<double> rotate_pairs<double>(const Vector<double>&, Layout);
template Vector<float> apply_rotary<float>(const Vector<float>&, const Vector<float>&, float, Layout);
template Vector<double> apply_rotary<double>(const Vector<double>&, const Vector<double>&, double, Layout);
template Vector<float> apply_rotary_complex<float>(const Vector<float>&, const Vector<float>&, float, Layout);
template Vector<double> apply_rotary_complex<double>(const Vector<double>&, const Vector<double>&, double, Layout);

// The precision study (docs/precision.md): the same forms in long double (its reference) and in the two
// 16-bit types, and the rotation from given cos/sin in every type.
#define ROPE_INSTANTIATE_APPLY(T)                                                    \
  template Vector<T> rotate_pairs<T>(const Vector<T>&, Layout);                      \
  template Vector<T> apply_rotary<T>(const Vector<T>&, const Vector<T>&, T, Layout); \
  template Vector<T> apply_rotary_complex<T>(const Vector<T>&, const Vector<T>&, T, Layout);
ROPE_INSTANTIATE_APPLY(long double)
ROPE_INSTANTIATE_APPLY(Eigen::half)
ROPE_INSTANTIATE_APPLY(Eigen::bfloat16)
#undef ROPE_INSTANTIATE_APPLY
template Vector<float> apply_rotary_cos_sin<float>(const Vector<float>&, const Vector<float>&, const Vector<float>&,
                                                   Layout);
template Vector<double> apply_rotary_cos_sin<double>(const Vector<double>&, const Vector<double>&,
                                                     const Vector<double>&, Layout);
template Vector<long double> apply_rotary_cos_sin<long double>(const Vector<long double>&, const Vector<long double>&,
                                                               const Vector<long double>&, Layout);
template Vector<Eigen::half> apply_rotary_cos_sin<Eigen::half>(const Vector<Eigen::half>&, const Vector<Eigen::half>&,
                                                               const Vector<Eigen::half>&, Layout);
template Vector<Eigen::bfloat16> apply_rotary_cos_sin<Eigen::bfloat16>(const Vector<Eigen::bfloat16>&,
                                                                       const Vector<Eigen::bfloat16>&,
                                                                       const Vector<Eigen::bfloat16>&, Layout);

}  // namespace rope
