#include "rope/analysis/verify/xpos.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <fmt/format.h>

#include "rope/analysis/calculators/decay.hpp"
#include "rope/core/apply.hpp"
#include "rope/core/error.hpp"
#include "rope/core/random.hpp"
#include "rope/core/tolerance.hpp"

namespace rope {

Eigen::VectorXd xpos_zeta(int d) {
  if (d < 2 || d % 2 != 0) throw InvalidArgument(error_msg("xPos needs an even dimension d >= 2 (got {0})", d));
  Eigen::VectorXd zeta(d / 2);
  // (X1), written as flash-attn writes it: (2j + γ·d)/((1 + γ)·d).
  for (int j = 0; j < d / 2; ++j) zeta[j] = (2.0 * j + kXposGamma * d) / ((1.0 + kXposGamma) * d);
  return zeta;
}

Eigen::VectorXd xpos_scale(int d, double n, double scale_base, XposRole role) {
  if (!(scale_base > 0) || !std::isfinite(scale_base)) {
    throw InvalidArgument(
        error_msg("the xPos scale base s must be a finite number > 0 (got {0})", fmt::format("{:g}", scale_base)));
  }
  if (!(std::abs(n) / scale_base <= kMaxXposPower)) {
    throw InvalidArgument(error_msg(
        "xPos: |position|/s = {0} is over {1} (ζ_0^(n/s) would leave the range of float64 numbers kept to full precision)",
        fmt::format("{:g}", std::abs(n) / scale_base), fmt::format("{:g}", kMaxXposPower)));
  }
  const double power = (role == XposRole::Query ? n : -n) / scale_base;  // (X2)
  Eigen::VectorXd zeta = xpos_zeta(d);
  for (Eigen::Index j = 0; j < zeta.size(); ++j) zeta[j] = std::pow(zeta[j], power);
  return zeta;
}

Eigen::VectorXd apply_xpos(const Eigen::VectorXd& x, const Eigen::VectorXd& theta, double n, double scale_base,
                           XposRole role, Layout layout) {
  const int d = static_cast<int>(x.size());
  Eigen::VectorXd y = apply_rotary<double>(x, theta, n, layout);  // checks x.size() == 2·theta.size()
  const Eigen::VectorXd scale = xpos_scale(d, n, scale_base, role);
  for (int j = 0; j < d / 2; ++j) {
    const auto [a, b] = pair_channels(d, j, layout);
    y[a] *= scale[j];
    y[b] *= scale[j];
  }
  return y;
}

Eigen::VectorXd xpos_bound(const Eigen::VectorXd& theta, double scale_base, const Eigen::VectorXd& distances) {
  const int d = static_cast<int>(2 * theta.size());
  Eigen::VectorXd f(distances.size());
  for (Eigen::Index k = 0; k < distances.size(); ++k) {
    const double t = distances[k];
    const Eigen::VectorXd scale = xpos_scale(d, t, scale_base, XposRole::Query);  // ζ_i^(t/s)
    std::complex<double> prefix = 0.0;
    double sum = 0.0;
    for (Eigen::Index i = 0; i < theta.size(); ++i) {
      prefix += scale[i] * std::polar(1.0, t * theta[i]);
      sum += std::abs(prefix);
    }
    f[k] = sum / static_cast<double>(theta.size());  // (X5)
  }
  return f;
}

XposDecay xpos_decay(const Eigen::VectorXd& theta, double scale_base, const Eigen::VectorXd& distances) {
  const int d = static_cast<int>(2 * theta.size());
  const double f0 = (theta.size() + 1) / 2.0;  // f(0) = f_ζ(0) = (d/2 + 1)/2
  XposDecay out;
  out.bound = decay_bound(theta, distances) / f0;
  out.xpos_bound = xpos_bound(theta, scale_base, distances) / f0;
  out.zeta_first.resize(distances.size());
  out.zeta_mean.resize(distances.size());
  out.zeta_last.resize(distances.size());
  for (Eigen::Index k = 0; k < distances.size(); ++k) {
    const Eigen::VectorXd scale = xpos_scale(d, distances[k], scale_base, XposRole::Query);
    out.zeta_first[k] = scale[0];
    out.zeta_mean[k] = scale.mean();
    out.zeta_last[k] = scale[scale.size() - 1];
  }
  return out;
}

XposIdentities verify_xpos(const Eigen::VectorXd& theta, Layout layout, double scale_base, long trials,
                           double max_position, std::uint64_t seed, const VerifyVectors* vectors) {
  if (trials < 1) throw InvalidArgument(error_msg("{0} must be >= {1} (got {2})", "trials", 1, trials));
  if (!(max_position >= 1 && max_position <= kMaxVerifyPosition)) {
    throw InvalidArgument(error_msg("max position must be between 1 and {0}", fmt::format("{:g}", kMaxVerifyPosition)));
  }
  (void)xpos_scale(2, 0.0, scale_base, XposRole::Query);  // throws for a bad s
  if (!(2 * max_position / scale_base <= kMaxXposPower)) {
    throw InvalidArgument(
        error_msg("{0}: 2·max-position/s = {1} is over {2}: ζ^(n/s) would leave the range of float64 numbers "
                  "kept to full precision; raise {3} or lower {4}",
                  option_name("xpos"), fmt::format("{:g}", 2 * max_position / scale_base),
                  fmt::format("{:g}", kMaxXposPower), option_name("xpos_scale_base"), option_name("max_position")));
  }
  const int d = static_cast<int>(2 * theta.size());
  // (M13) with the position budget 6·max_position, widened by 3/s: ζ^(n/s) carries the rounding of ζ and
  // of n/s multiplied by |n/s·ln ζ_0| < 1.3·n/s, so a relative error of about ε·(1 + 2.3·n/s) per factor.
  const double tolerance = relative_tolerance(machine_epsilon<double>(), d, 6 * max_position * (1 + 3 / scale_base));
  XposIdentities out;
  const auto make = [&](Message name, Message formula, const char* eq) {
    IdentityResult r;
    r.name = name.en;
    r.formula = formula.en;
    r.name_text = std::move(name);
    r.formula_text = std::move(formula);
    r.equation = eq;
    r.check.tolerance = tolerance;
    return r;
  };
  out.rows.push_back(make(msg("xpos: relative"), Message::same("⟨X_q(m) q, X_k(n) k⟩ = ⟨X_q(m−n) q, k⟩"), "(X4)"));
  out.rows.push_back(make(msg("xpos: shift"), msg("shift m, n by c: score unchanged"), "(X4)"));
  out.rows.push_back(make(msg("xpos: scale"), msg("score = Σ_j ζ_j^((m−n)/s) ⟨R_m q, R_n k⟩_j"), "(X3)"));
  out.contrast = make(msg("no xpos scale"), Message::same("⟨X_q(m) q, X_k(n) k⟩ = ⟨q, R_{n−m} k⟩"), "(M8)");
  out.contrast.expected_to_fail = true;
  std::vector<Tally> tally(out.rows.size() + 1);
  const Eigen::VectorXd zeta = xpos_zeta(d);
  Random rng(seed);
  const auto position = [&] { return static_cast<double>(rng.below(static_cast<std::uint64_t>(max_position))); };
  const long draws = std::min<long>(trials, 100'000);
  Eigen::VectorXd q(d), k(d);
  for (long i = 0; i < draws; ++i) {
    for (int j = 0; j < d; ++j) q[j] = rng.normal();
    for (int j = 0; j < d; ++j) k[j] = rng.normal();
    double m = position(), n = position(), c = position();
    if (vectors) {  // the user's pair i mod pairs, at the drawn positions or the given ones
      q = vectors->q.col(static_cast<Eigen::Index>(i % vectors->pairs()));
      k = vectors->k.col(static_cast<Eigen::Index>(i % vectors->pairs()));
      if (vectors->at) m = (*vectors->at)[0], n = (*vectors->at)[1], c = (*vectors->at)[2];
    }
    const auto xq = [&](double at) { return apply_xpos(q, theta, at, scale_base, XposRole::Query, layout); };
    const auto xk = [&](double at) { return apply_xpos(k, theta, at, scale_base, XposRole::Key, layout); };
    // S: ‖q‖‖k‖ times the largest factor of (X3), the size the score can reach.
    const double factor =
        std::max(std::pow(zeta[0], (m - n) / scale_base), std::pow(zeta[d / 2 - 1], (m - n) / scale_base));
    const double scale = q.norm() * k.norm() * factor;
    const double score = xq(m).dot(xk(n));
    tally[0].add(std::abs(score - xq(m - n).dot(xk(0))), scale);
    tally[1].add(std::abs(xq(m + c).dot(xk(n + c)) - score), scale);
    const Eigen::VectorXd rq = apply_rotary<double>(q, theta, m, layout),
                          rk = apply_rotary<double>(k, theta, n, layout);
    double expected = 0.0;
    for (int j = 0; j < d / 2; ++j) {
      const auto [a, b] = pair_channels(d, j, layout);
      expected += std::pow(zeta[j], (m - n) / scale_base) * (rq[a] * rk[a] + rq[b] * rk[b]);
    }
    tally[2].add(std::abs(score - expected), scale);
    tally[3].add(std::abs(score - q.dot(apply_rotary<double>(k, theta, n - m, layout))), scale);
  }
  for (std::size_t r = 0; r < out.rows.size(); ++r) tally[r].apply(out.rows[r]);
  tally.back().apply(out.contrast);
  return out;
}

}  // namespace rope
