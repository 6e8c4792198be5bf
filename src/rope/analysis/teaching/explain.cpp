#include "rope/analysis/teaching/explain.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <string_view>

#include "rope/core/apply.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/core/invalid_quantity.hpp"
#include "rope/core/rotation.hpp"
#include "rope/core/tolerance.hpp"

namespace rope::explain {

namespace {

using Complex = std::complex<double>;

void check_vector(const Eigen::Vector2d& v, const std::string& what) {
  for (int i = 0; i < 2; ++i) {
    if (!std::isfinite(v[i]) || std::abs(v[i]) > kMaxComponent) {
      throw InvalidQuantity(
          what, fmt::format("must have finite components of size at most {} (got {}, {})", kMaxComponent, v[0], v[1]));
    }
  }
  if (v[0] == 0.0 && v[1] == 0.0) {
    throw InvalidQuantity(what, "must not be the zero vector: it has no direction to rotate");
  }
}

void check_bounded(double x, const std::string& what) {
  if (!std::isfinite(x) || std::abs(x) > kMaxPosition) {
    throw InvalidQuantity(
        what, fmt::format("must be a finite number between {} and {} (got {})", -kMaxPosition, kMaxPosition, x));
  }
}

/// The tolerance of (M13) for a comparison whose two sides computed angles summing to `angles` rad.
Check make_check(double difference, double scale, int d, double angles) {
  Check c;
  c.difference = difference;
  c.scale = scale;
  c.tolerance = relative_tolerance(machine_epsilon<double>(), d, angles);
  return c;
}

double max_abs(const Complex& a, const Complex& b) {
  return std::max(std::abs(a.real() - b.real()), std::abs(a.imag() - b.imag()));
}

Complex as_complex(const Eigen::Vector2d& v) { return {v[0], v[1]}; }

ComplexView complex_view(const Eigen::Vector2d& v) {
  ComplexView c;
  c.v = v;
  c.z = as_complex(v);
  c.modulus = std::abs(c.z);
  c.argument = std::arg(c.z);
  c.polar = std::polar(c.modulus, c.argument);
  c.check = make_check(max_abs(c.polar, c.z), c.modulus, 2, std::abs(c.argument));
  return c;
}

Euler euler(double angle) {
  Euler e;
  e.angle = angle;
  e.exponential = std::exp(Complex(0.0, angle));
  e.cos_sin = Complex(std::cos(angle), std::sin(angle));
  e.check = make_check(max_abs(e.exponential, e.cos_sin), 1.0, 2, 2 * std::abs(angle));
  return e;
}

/// v (interleaved pairs) with pair i turned by angles[i], element-wise (M9): apply_rotary_cos_sin.
Eigen::VectorXd turned(const Eigen::VectorXd& v, const Eigen::VectorXd& angles) {
  return apply_rotary_cos_sin<double>(v, angles.array().cos().matrix(), angles.array().sin().matrix(),
                                      Layout::Interleaved);
}

/// Step 8's patch in column `column` of frame kPatchFrame, row kPatchRow.
AxisPosition patch(double column) {
  AxisPosition p;
  p.count = 3;
  p.value = {kPatchFrame, kPatchRow, column, 0.0};
  return p;
}

Rotation rotation(const Eigen::Vector2d& v, double angle) {
  Rotation r;
  r.angle = angle;
  r.z = as_complex(v);
  r.factor = std::polar(1.0, angle);
  r.product = r.z * r.factor;
  r.matrix = rotation_2d<double>(angle);
  r.rotated = r.matrix * v;
  r.check = make_check(max_abs(r.product, as_complex(r.rotated)), v.norm(), 2, 2 * std::abs(angle));
  return r;
}

}  // namespace

void check_setup(const Setup& s) {
  check_vector(s.q, "query q");
  check_vector(s.k, "key k");
  check_bounded(s.m, "position M");
  check_bounded(s.n, "position N");
  check_bounded(s.shift, "shift c");
  check_bounded(s.m + s.shift, "M + shift");
  check_bounded(s.n + s.shift, "N + shift");
  if (!std::isfinite(s.theta) || !(s.theta > 0.0) || s.theta > kMaxTheta) {
    throw InvalidQuantity("θ",
                          fmt::format("must be > 0 and at most 2π = {} rad per position (got {})", kMaxTheta, s.theta));
  }
  check_dimension(s.d, kMaxDim);
  check_base(s.base);
}

Walkthrough explain(const Setup& s) {
  check_setup(s);
  Walkthrough w;
  w.setup = s;
  const double m_angle = s.m * s.theta;
  const double n_angle = s.n * s.theta;
  const double relative_angle = (s.n - s.m) * s.theta;
  const double q_norm = s.q.norm();
  const double k_norm = s.k.norm();

  w.step1 = {complex_view(s.q), complex_view(s.k)};
  w.step2 = {euler(m_angle), euler(n_angle)};
  w.step3 = {rotation(s.q, m_angle), rotation(s.k, n_angle)};

  Step4& s4 = w.step4;
  s4.minus_m = rotation_2d<double>(-m_angle);
  s4.n = rotation_2d<double>(n_angle);
  s4.product = s4.minus_m * s4.n;
  s4.relative = rotation_2d<double>(relative_angle);
  const double relative_angles = std::abs(m_angle) + std::abs(n_angle) + std::abs(relative_angle);
  s4.check = make_check((s4.product - s4.relative).cwiseAbs().maxCoeff(), 1.0, 2, relative_angles);

  Step5& s5 = w.step5;
  s5.q_rotated = w.step3.query.rotated;
  s5.k_rotated = w.step3.key.rotated;
  s5.score = s5.q_rotated.dot(s5.k_rotated);
  s5.q_conj_k = as_complex(s.q) * std::conj(as_complex(s.k));
  s5.phase = std::polar(1.0, (s.m - s.n) * s.theta);
  s5.complex_form = (s5.q_conj_k * s5.phase).real();
  s5.relative = s4.relative;
  s5.relative_k = s5.relative * s.k;
  s5.relative_form = s.q.dot(s5.relative_k);
  s5.wrong_sign = s.q.dot(rotation_2d<double>((s.m - s.n) * s.theta) * s.k);
  s5.angle_between = std::arg(as_complex(s5.k_rotated) * std::conj(as_complex(s5.q_rotated)));
  const double score_scale = q_norm * k_norm;
  s5.complex_check = make_check(std::abs(s5.score - s5.complex_form), score_scale, 2, relative_angles);
  s5.relative_check = make_check(std::abs(s5.score - s5.relative_form), score_scale, 2, relative_angles);
  s5.wrong_sign_check = make_check(std::abs(s5.score - s5.wrong_sign), score_scale, 2, relative_angles);
  // R_mᵀ applied instead of R_m: each vector turned the other way; the score is the one
  // of the distance M − N, the sign slip above, here computed from the turned vectors and compared with it.
  s5.q_reversed = rotation_2d<double>(-s.m * s.theta) * s.q;
  s5.k_reversed = rotation_2d<double>(-s.n * s.theta) * s.k;
  s5.reversed_score = s5.q_reversed.dot(s5.k_reversed);
  s5.reversed_check = make_check(std::abs(s5.reversed_score - s5.wrong_sign), score_scale, 2, relative_angles);

  Step6& s6 = w.step6;
  s6.shift = s.shift;
  const double m_shifted = (s.m + s.shift) * s.theta;
  const double n_shifted = (s.n + s.shift) * s.theta;
  s6.q_rotated = rotation_2d<double>(m_shifted) * s.q;
  s6.k_rotated = rotation_2d<double>(n_shifted) * s.k;
  s6.shifted_score = s6.q_rotated.dot(s6.k_rotated);
  s6.score = s5.score;
  s6.angle_between = std::arg(as_complex(s6.k_rotated) * std::conj(as_complex(s6.q_rotated)));
  s6.check = make_check(std::abs(s6.shifted_score - s6.score), score_scale, 2,
                        std::abs(m_shifted) + std::abs(n_shifted) + std::abs(m_angle) + std::abs(n_angle));

  Step7& s7 = w.step7;
  s7.d = s.d;
  s7.base = s.base;
  s7.theta = frequencies(s.d, s.base);
  s7.angles = s.m * s7.theta;
  for (Eigen::Index i = 0; i < s7.theta.size(); ++i) {
    if (s7.theta[i] == s.theta) {
      s7.pair_of_theta = static_cast<int>(i);
      break;
    }
  }
  s7.q = s.q.replicate(s.d / 2, 1);
  s7.matrix = rotation_matrix<double>(s7.theta, s.m, Layout::Interleaved);
  s7.by_matrix = s7.matrix * s7.q;
  s7.cos.resize(s.d);
  s7.sin.resize(s.d);
  for (int i = 0; i < s.d / 2; ++i) {
    s7.cos[2 * i] = s7.cos[2 * i + 1] = std::cos(s7.angles[i]);
    s7.sin[2 * i] = s7.sin[2 * i + 1] = std::sin(s7.angles[i]);
  }
  s7.rot = rotate_pairs(s7.q, Layout::Interleaved);
  s7.elementwise = apply_rotary(s7.q, s7.theta, s.m, Layout::Interleaved);
  s7.check = make_check((s7.elementwise - s7.by_matrix).cwiseAbs().maxCoeff(), s7.q.norm(), s.d, std::abs(s.m));

  Step8& s8 = w.step8;
  const int pairs = s.d / 2;
  s8.sections = {pairs - 2 * (pairs / 3), pairs / 3, pairs / 3};
  s8.map = make_axis_map({s8.sections, SectionOrder::Interleaved}, pairs);
  s8.text_angles = axis_angles(s7.theta, &s8.map, AxisPosition::single(s.m));
  s8.text_rotated = turned(s7.q, s8.text_angles);
  s8.text_check = make_check((s8.text_rotated - s7.by_matrix).cwiseAbs().maxCoeff(), s7.q.norm(), s.d, std::abs(s.m));
  s8.query_patch = patch(s.m);
  s8.key_patch = patch(s.n);
  s8.query_angles = axis_angles(s7.theta, &s8.map, s8.query_patch);
  s8.key_angles = axis_angles(s7.theta, &s8.map, s8.key_patch);
  s8.only_w = s.m != s.n;
  for (int i = 0; i < pairs; ++i) {
    const bool differs = s8.query_angles[i] != s8.key_angles[i];
    if (differs) s8.differing.push_back(i);
    if (differs != (s8.map.pair_axis[static_cast<std::size_t>(i)] == 2)) s8.only_w = false;
  }
  s8.k = s.k.replicate(pairs, 1);
  s8.query_rotated = turned(s7.q, s8.query_angles);
  s8.key_rotated = turned(s8.k, s8.key_angles);
  s8.score = s8.query_rotated.dot(s8.key_rotated);
  s8.relative = relative_rotation(s7.theta, &s8.map, s8.query_patch, s8.key_patch, Layout::Interleaved).rotation;
  s8.relative_form = s7.q.dot(s8.relative * s8.k);
  for (int i = 0; i < pairs; ++i) {
    if (s8.map.pair_axis[static_cast<std::size_t>(i)] == 2) continue;
    const Eigen::Matrix2d block = s8.relative.block<2, 2>(2 * i, 2 * i);
    s8.identity_off = std::max(s8.identity_off, (block - Eigen::Matrix2d::Identity()).cwiseAbs().maxCoeff());
  }
  const double patch_angles = s8.query_angles.cwiseAbs().sum() + s8.key_angles.cwiseAbs().sum() +
                              (s8.key_angles - s8.query_angles).cwiseAbs().sum();
  s8.check = make_check(std::abs(s8.score - s8.relative_form), s7.q.norm() * s8.k.norm(), s.d, patch_angles);
  return w;
}

std::vector<Check> checks(const Walkthrough& w, int step) {
  switch (step) {
    case 1:
      return {w.step1.q.check, w.step1.k.check};
    case 2:
      return {w.step2.query.check, w.step2.key.check};
    case 3:
      return {w.step3.query.check, w.step3.key.check};
    case 4:
      return {w.step4.check};
    case 5:
      return {w.step5.complex_check, w.step5.relative_check, w.step5.reversed_check};
    case 6:
      return {w.step6.check};
    case 7:
      return {w.step7.check};
    case 8:
      return {w.step8.text_check, w.step8.check};
    case 0: {
      std::vector<Check> all;
      for (int k = 1; k <= kSteps; ++k) {
        const std::vector<Check> some = checks(w, k);
        all.insert(all.end(), some.begin(), some.end());
      }
      return all;
    }
    default:
      throw InvalidArgument(error_msg("{0} must be between {1} and {2} (got {3})", "step", 1, kSteps, step));
  }
}

}  // namespace rope::explain
