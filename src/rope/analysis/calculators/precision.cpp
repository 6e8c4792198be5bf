#include "rope/analysis/calculators/precision.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>

#include "rope/core/apply.hpp"
#include "rope/core/constants.hpp"
#include "rope/io/csv.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"

namespace rope {

std::string_view to_string(Strategy strategy) {
  switch (strategy) {
    case Strategy::CastInputs:
      return "cast-inputs";
    case Strategy::AngleF32:
      return "angle-f32";
    case Strategy::CastResult:
      return "cast-result";
  }
  return "?";
}

Strategy parse_strategy(std::string_view text) {
  for (Strategy s : kAllStrategies) {
    if (text == to_string(s)) return s;
  }
  throw InvalidArgument(error_msg("strategy must be cast-inputs, angle-f32 or cast-result (got '{0}')", text));
}

std::string CurveSpec::name() const {
  if (type == DType::F64) return "f64";
  return fmt::format("{} {}", to_string(type), to_string(strategy));
}

std::string CurveSpec::column() const {
  std::string c = name();
  std::replace(c.begin(), c.end(), ' ', '_');
  return c;
}

std::vector<CurveSpec> precision_curves(const std::vector<DType>& types, const std::vector<Strategy>& strategies) {
  std::vector<CurveSpec> curves;
  const auto asked = [&](Strategy s) { return std::find(strategies.begin(), strategies.end(), s) != strategies.end(); };
  const auto has = [&](const CurveSpec& c) {
    return std::any_of(curves.begin(), curves.end(), [&](const CurveSpec& o) { return o.name() == c.name(); });
  };
  for (DType t : types) {
    if (t == DType::F64) {
      if (!strategies.empty() && !has({t, Strategy::CastInputs})) curves.push_back({t, Strategy::CastInputs});
      continue;
    }
    for (Strategy s : strategies) {
      if (t == DType::F32 && s == Strategy::AngleF32 && asked(Strategy::CastInputs)) continue;
      if (!has({t, s})) curves.push_back({t, s});
    }
  }
  return curves;
}

void check_precision_settings(const PrecisionSettings& s) {
  check_dimension(s.dim, kMaxPrecisionDim);
  check_base(s.base);
  if (s.samples < 1 || s.samples > kMaxPrecisionSamples) {
    throw InvalidArgument(
        error_msg("samples must be between {0} and {1} (got {2})", 1, kMaxPrecisionSamples, s.samples));
  }
  if (!std::isfinite(s.distance) || s.distance < 0 || s.distance > 1e6 || s.distance != std::floor(s.distance)) {
    throw InvalidArgument(
        error_msg("distance n − m must be an integer between {0} and {1} (got {2})", 0, 1000000, s.distance));
  }
}

namespace {

/// θ_i = base^(−2i/d) in long double: the reference frequencies (P7).
Vector<long double> reference_theta(int d, double base) {
  Vector<long double> theta(d / 2);
  for (int i = 0; i < d / 2; ++i) {
    theta[i] = std::pow(static_cast<long double>(base), -static_cast<long double>(2 * i) / static_cast<long double>(d));
  }
  return theta;
}

/// |φ − m·θ| wrapped to [0, π]: cos and sin see the angle modulo 2π (P7). Non-finite: +inf.
double angle_error(double computed, long double exact) {
  if (!std::isfinite(computed)) return std::numeric_limits<double>::infinity();
  long double e = static_cast<long double>(computed) - exact;
  if (std::fabs(e) > pi_v<long double>) e = std::remainder(e, 2 * pi_v<long double>);
  return static_cast<double>(std::fabs(e));
}

double finite_or_inf(double x) { return std::isfinite(x) ? x : std::numeric_limits<double>::infinity(); }

/// The rotation at one position as a curve computes it: cos and sin per pair, in T (cast-inputs,
/// angle-f32) or in float64 (cast-result).
template <typename T>
struct Rotation {
  Strategy strategy;
  Layout layout;
  Vector<T> c, s;
  Eigen::VectorXd c64, s64;

  Vector<T> apply(const Vector<T>& x) const {
    if (strategy == Strategy::CastResult) {  // (P5)
      return apply_rotary_cos_sin<double>(x.template cast<double>(), c64, s64, layout).template cast<T>();
    }
    return apply_rotary_cos_sin<T>(x, c, s, layout);  // (P3), (P4)
  }
};

template <typename T>
Rotation<T> rotation_at(Strategy strategy, Layout layout, const Eigen::VectorXd& theta, double m) {
  using std::cos;
  using std::sin;
  Rotation<T> r{strategy, layout, {}, {}, {}, {}};
  const Eigen::Index h = theta.size();
  if (strategy == Strategy::CastResult) {
    r.c64.resize(h);
    r.s64.resize(h);
    for (Eigen::Index i = 0; i < h; ++i) {
      const double angle = m * theta[i];
      r.c64[i] = std::cos(angle);
      r.s64[i] = std::sin(angle);
    }
    return r;
  }
  r.c.resize(h);
  r.s.resize(h);
  for (Eigen::Index i = 0; i < h; ++i) {
    if (strategy == Strategy::CastInputs) {  // (P3): m and θ in T, the product and cos/sin in T
      const T angle = static_cast<T>(m) * static_cast<T>(theta[i]);
      r.c[i] = cos(angle);
      r.s[i] = sin(angle);
    } else {  // (P4): in float32, then cast
      const float angle = static_cast<float>(m) * static_cast<float>(theta[i]);
      r.c[i] = static_cast<T>(std::cos(angle));
      r.s[i] = static_cast<T>(std::sin(angle));
    }
  }
  return r;
}

/// R_m x in long double from the reference frequencies.
Vector<long double> reference_rotation(const Vector<long double>& x, const Vector<long double>& theta, double m,
                                       Layout layout) {
  Vector<long double> c(theta.size()), s(theta.size());
  for (Eigen::Index i = 0; i < theta.size(); ++i) {
    const long double angle = static_cast<long double>(m) * theta[i];
    c[i] = std::cos(angle);
    s[i] = std::sin(angle);
  }
  return apply_rotary_cos_sin<long double>(x, c, s, layout);
}

struct Draws {
  Eigen::MatrixXd q, k;  ///< one column per sample
};

Draws draw(const PrecisionSettings& s) {
  Random rng(s.seed);
  Draws d{Eigen::MatrixXd(s.dim, s.samples), Eigen::MatrixXd(s.dim, s.samples)};
  for (long j = 0; j < s.samples; ++j) {
    for (int i = 0; i < s.dim; ++i) d.q(i, j) = rng.normal();
    for (int i = 0; i < s.dim; ++i) d.k(i, j) = rng.normal();
  }
  return d;
}

template <typename T>
CurveErrors curve_errors(const PrecisionSettings& s, const CurveSpec& spec, const Draws& draws,
                         const Eigen::VectorXd& theta, const Vector<long double>& theta_ref,
                         const Eigen::VectorXd& positions) {
  const Eigen::Index n = positions.size();
  CurveErrors e{spec, Eigen::VectorXd(n), Eigen::VectorXd(n), Eigen::VectorXd(n)};
  std::vector<Vector<T>> q, k;
  std::vector<Vector<long double>> q_ref;
  for (long j = 0; j < s.samples; ++j) {
    q.push_back(draws.q.col(j).template cast<T>());
    k.push_back(draws.k.col(j).template cast<T>());
    q_ref.push_back(q.back().template cast<long double>());  // exact: T ⊂ long double
  }
  // Right side of (P8): qᵀ R_{n−m} k, the same at every m.
  const Rotation<T> at_distance = rotation_at<T>(spec.strategy, s.layout, theta, s.distance);
  std::vector<double> right;
  for (long j = 0; j < s.samples; ++j) right.push_back(dot_in<T>(q[j], at_distance.apply(k[j])));

  for (Eigen::Index p = 0; p < n; ++p) {
    const double m = positions[p];
    const Eigen::VectorXd angles = computed_angles(spec, theta, m);
    double worst = 0;
    for (Eigen::Index i = 0; i < theta.size(); ++i) {
      worst = std::max(worst, angle_error(angles[i], static_cast<long double>(m) * theta_ref[i]));  // (P7)
    }
    e.angle[p] = worst;
    const Rotation<T> at_m = rotation_at<T>(spec.strategy, s.layout, theta, m);
    const Rotation<T> at_n = rotation_at<T>(spec.strategy, s.layout, theta, m + s.distance);
    double vector_sq = 0, identity_sq = 0;
    for (long j = 0; j < s.samples; ++j) {
      const Vector<T> rq = at_m.apply(q[j]);
      const Vector<long double> exact = reference_rotation(q_ref[j], theta_ref, m, s.layout);
      const double v = static_cast<double>((rq.template cast<long double>() - exact).norm() / q_ref[j].norm());
      const double left = dot_in<T>(rq, at_n.apply(k[j]));
      const double id = std::abs(left - right[static_cast<std::size_t>(j)]);  // (P8)
      vector_sq += v * v;
      identity_sq += id * id;
    }
    e.vector[p] = finite_or_inf(std::sqrt(vector_sq / static_cast<double>(s.samples)));
    e.identity[p] = finite_or_inf(std::sqrt(identity_sq / static_cast<double>(s.samples)));
  }
  return e;
}

void check_positions(const Eigen::VectorXd& positions) {
  for (double m : positions) {
    if (!(m >= 0 && m <= kMaxPrecisionPosition)) {
      throw InvalidArgument(error_msg("{0} must be between {1} and {2} (got {3})", "positions", 0,
                                      format_number(kMaxPrecisionPosition), m));
    }
  }
}

/// The type whose rounding the angle of a curve suffers: T for cast-inputs, float32 for angle-f32,
/// float64 for cast-result.
DType angle_type(const CurveSpec& c) {
  if (c.type == DType::F64) return DType::F64;
  switch (c.strategy) {
    case Strategy::CastInputs:
      return c.type;
    case Strategy::AngleF32:
      return DType::F32;
    case Strategy::CastResult:
      return DType::F64;
  }
  return DType::F64;
}

}  // namespace

Eigen::VectorXd computed_angles(const CurveSpec& curve, const Eigen::VectorXd& theta, double m) {
  const DType u = angle_type(curve);
  Eigen::VectorXd angles(theta.size());
  if (u == DType::F64) {
    for (Eigen::Index i = 0; i < theta.size(); ++i) angles[i] = m * theta[i];
    return angles;
  }
  // fl_U(fl_U(m)·fl_U(θ)) (P3), (P4): the product of two values of U (at most 48 significant bits) is
  // exact in double, so rounding it once to U gives U's correctly rounded product.
  const double mu = round_to(u, m);
  for (Eigen::Index i = 0; i < theta.size(); ++i) angles[i] = round_to(u, mu * round_to(u, theta[i]));
  return angles;
}

std::vector<CurveErrors> precision_errors(const PrecisionSettings& s, const std::vector<CurveSpec>& curves,
                                          const Eigen::VectorXd& positions) {
  check_precision_settings(s);
  check_positions(positions);
  const Eigen::VectorXd theta = frequencies(s.dim, s.base);
  const Vector<long double> theta_ref = reference_theta(s.dim, s.base);
  const Draws draws = draw(s);
  std::vector<CurveErrors> out;
  for (const CurveSpec& c : curves) {
    switch (c.type) {
      case DType::F64:
        out.push_back(curve_errors<double>(s, c, draws, theta, theta_ref, positions));
        break;
      case DType::F32:
        out.push_back(curve_errors<float>(s, c, draws, theta, theta_ref, positions));
        break;
      case DType::F16:
        out.push_back(curve_errors<Eigen::half>(s, c, draws, theta, theta_ref, positions));
        break;
      case DType::BF16:
        out.push_back(curve_errors<Eigen::bfloat16>(s, c, draws, theta, theta_ref, positions));
        break;
    }
  }
  return out;
}

std::optional<double> angle_crossing(const PrecisionSettings& s, const CurveSpec& curve, double threshold,
                                     double max_position) {
  check_precision_settings(s);
  if (!(threshold > 0) || !std::isfinite(threshold)) {
    throw InvalidArgument(error_msg("{0} must be a positive number of radians (got {1})", "threshold", threshold));
  }
  check_positions(Eigen::VectorXd::Constant(1, max_position));
  const Eigen::VectorXd theta = frequencies(s.dim, s.base);
  const Vector<long double> theta_ref = reference_theta(s.dim, s.base);
  // (P9) a-priori bound: |fl(fl(m)·fl(θ)) − m·θ| <= m·θ_max·((1 + u)^3·(1 + 2^-51) − 1) + 4η(m + 1),
  // u = ε/2 of the angle's type, η = half its smallest subnormal (float16's θ below 6.1e-5 is
  // subnormal), 2^-51 for θ's own rounding to double. Positions below the first m where it can exceed
  // the threshold are skipped.
  const DType u_type = angle_type(curve);
  const double u = epsilon(u_type) / 2;
  const double eta = u_type == DType::F16    ? std::ldexp(1.0, -25)
                     : u_type == DType::BF16 ? std::ldexp(1.0, -134)
                     : u_type == DType::F32  ? std::ldexp(1.0, -150)
                                             : std::ldexp(1.0, -1075);
  const double theta_max = static_cast<double>(theta_ref.maxCoeff());
  const double slope = theta_max * (std::pow(1 + u, 3) * (1 + std::ldexp(1.0, -51)) - 1) + 4 * eta;
  const double below = std::floor((threshold - 4 * eta) / slope);  // B(m) <= threshold for m <= below
  const double last = std::floor(max_position);
  if (below >= last) return std::nullopt;
  for (double m = std::max(0.0, below); m <= last; m += 1) {
    const Eigen::VectorXd angles = computed_angles(curve, theta, m);
    for (Eigen::Index i = 0; i < theta.size(); ++i) {
      if (angle_error(angles[i], static_cast<long double>(m) * theta_ref[i]) > threshold) return m;
    }
  }
  return std::nullopt;
}

Eigen::VectorXd integer_log_positions(double max_position, long points) {
  if (!(max_position >= 1) || points < 2) {
    throw InvalidArgument(
        error_msg("log positions need max position >= 1 and points >= 2 (got {0} and {1})", max_position, points));
  }
  std::vector<double> out;
  const double top = std::log(max_position);
  for (long i = 0; i < points; ++i) {
    const double m = i == points - 1
                         ? std::floor(max_position)
                         : std::round(std::exp(top * static_cast<double>(i) / static_cast<double>(points - 1)));
    if (out.empty() || m > out.back()) out.push_back(std::min(m, std::floor(max_position)));
  }
  return Eigen::Map<const Eigen::VectorXd>(out.data(), static_cast<Eigen::Index>(out.size()));
}

}  // namespace rope
