#include "rope/verify.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "rope/apply.hpp"
#include "rope/error.hpp"
#include "rope/frequencies.hpp"
#include "rope/rotation.hpp"
#include "rope/sinusoidal.hpp"
#include "rope/tolerance.hpp"

namespace rope {

namespace {

void check_settings(const VerifySettings& s) {
  check_dimension(s.dim, kMaxVerifyDim);
  check_base(s.base);
  if (s.trials < 1 || s.trials > kMaxTrials) {
    throw InvalidArgument(
        fmt::format("trials must be between 1 and {} (got {})", kMaxTrials, s.trials));
  }
  if (!std::isfinite(s.max_position) || s.max_position < 1 ||
      s.max_position > kMaxVerifyPosition || s.max_position != std::floor(s.max_position)) {
    throw InvalidArgument(fmt::format(
        "max-position must be an integer between 1 and {:g} (got {})", kMaxVerifyPosition,
        s.max_position));
  }
}

/// Running maxima of one identity.
class Row {
 public:
  Row(std::string name, std::string formula, std::string equation, double tolerance) {
    result_.name = std::move(name);
    result_.formula = std::move(formula);
    result_.equation = std::move(equation);
    result_.tolerance = tolerance;
  }
  /// One sample: |Δ| and the scale S it is measured against.
  void add(double abs_error, double scale) {
    ++result_.samples;
    result_.max_abs_error = std::max(result_.max_abs_error, abs_error);
    result_.max_rel_error = std::max(result_.max_rel_error, abs_error / scale);
  }
  IdentityResult result() const { return result_; }

 private:
  IdentityResult result_;
};

double max_abs(const Eigen::MatrixXd& a) { return a.cwiseAbs().maxCoeff(); }

}  // namespace

long dense_samples(int d, long trials) {
  const double flops_per_sample = 3.0 * d * static_cast<double>(d) * d;
  const double budget = 8589934592.0;  // 2^33
  return std::clamp(static_cast<long>(budget / flops_per_sample), 1L, trials);
}

bool VerifyReport::all_passed() const {
  return std::all_of(identities.begin(), identities.end(),
                     [](const IdentityResult& r) { return r.passed(); });
}

VerifyReport verify(const VerifySettings& s) {
  check_settings(s);
  const int d = s.dim;
  const Layout layout = s.layout;
  if (s.inv_freq && 2 * s.inv_freq->size() != d) {
    throw InvalidArgument(fmt::format("verify: {} frequencies given for dimension {}", s.inv_freq->size(), d));
  }
  const Eigen::VectorXd theta = s.inv_freq ? *s.inv_freq : frequencies(d, s.base);
  const double eps = machine_epsilon<double>();
  const double pmax = s.max_position;  // every drawn position is < pmax
  const auto tol = [&](double position_budget) { return relative_tolerance(eps, d, position_budget); };

  Row relative("relative position", "<R_m q, R_n k> = q^T R_{n-m} k", "(M8)", tol(2 * pmax));
  Row orthogonal("orthogonality", "R_m^T R_m = I, det R_m = 1", "(M7)", tol(pmax));
  Row compose("composition", "R_a R_b = R_{a+b}", "(M7)", tol(2 * pmax));
  Row norm("norm", "|R_m q| = |q|", "(M7)", tol(pmax));
  Row shift("shift invariance", "<R_{m+c} q, R_{n+c} k> = <R_m q, R_n k>", "(M8)", tol(6 * pmax));
  Row forms("three forms", "elementwise = matrix = complex", "(M9) (M10)", tol(pmax));
  Row layouts("layouts", "R_half = P R_interleaved P^T", "(M6)", 0.0);
  Row contrast("sinusoidal (contrast)", "<q+p_{m+c}, k+p_{n+c}> = <q+p_m, k+p_n>", "(M12)",
               tol(6 * pmax));

  const long dense = dense_samples(d, s.trials);
  const Eigen::PermutationMatrix<Eigen::Dynamic> P = layout_permutation(d);
  const Eigen::MatrixXd identity = Eigen::MatrixXd::Identity(d, d);
  Random rng(s.seed);
  const auto draw_position = [&] { return static_cast<double>(rng.below(static_cast<std::uint64_t>(pmax))); };

  Eigen::VectorXd q(d), k(d);
  for (long t = 0; t < s.trials; ++t) {
    for (int j = 0; j < d; ++j) q[j] = rng.normal();
    for (int j = 0; j < d; ++j) k[j] = rng.normal();
    const double m = draw_position();
    const double n = draw_position();
    const double c = draw_position();
    const double qk = q.norm() * k.norm();

    // (M8) the headline identity.
    const Eigen::VectorXd Rm_q = apply_rotary(q, theta, m, layout);
    const Eigen::VectorXd Rn_k = apply_rotary(k, theta, n, layout);
    const double score = Rm_q.dot(Rn_k);
    relative.add(std::abs(score - q.dot(apply_rotary(k, theta, n - m, layout))), qk);

    // (M7) the norm is preserved.
    norm.add(std::abs(Rm_q.norm() - q.norm()), q.norm());

    // (M8) shifting both positions leaves the score unchanged.
    const double shifted = apply_rotary(q, theta, m + c, layout).dot(apply_rotary(k, theta, n + c, layout));
    shift.add(std::abs(shifted - score), qk);

    // (M9), (M10) three ways to rotate one vector.
    const Eigen::MatrixXd Rm = rotation_matrix<double>(theta, m, layout);
    const Eigen::VectorXd by_matrix = Rm * q;
    const Eigen::VectorXd by_complex = apply_rotary_complex(q, theta, m, layout);
    forms.add(std::max((by_matrix - Rm_q).cwiseAbs().maxCoeff(),
                       (by_complex - Rm_q).cwiseAbs().maxCoeff()),
              q.norm());

    // (M12) the contrast: additive sinusoidal encodings leak absolute position.
    const double additive = (q + sinusoidal_encoding(d, m, s.base)).dot(k + sinusoidal_encoding(d, n, s.base));
    const double additive_shifted =
        (q + sinusoidal_encoding(d, m + c, s.base)).dot(k + sinusoidal_encoding(d, n + c, s.base));
    contrast.add(std::abs(additive_shifted - additive), qk);

    if (t < dense) {
      // (M7) orthogonality and determinant.
      orthogonal.add(std::max(max_abs(Rm.transpose() * Rm - identity), std::abs(Rm.determinant() - 1.0)), 1.0);
      // (M7) composition R_m R_n = R_{m+n}.
      const Eigen::MatrixXd Rn = rotation_matrix<double>(theta, n, layout);
      compose.add(max_abs(Rm * Rn - rotation_matrix<double>(theta, m + n, layout)), 1.0);
      // (M6) the two layouts are conjugate by P, exactly.
      const Eigen::MatrixXd R_int = rotation_matrix<double>(theta, m, Layout::Interleaved);
      const Eigen::MatrixXd R_half = rotation_matrix<double>(theta, m, Layout::Half);
      const Eigen::MatrixXd conjugated = P * R_int * P.transpose();
      layouts.add(max_abs(R_half - conjugated), 1.0);
    }
  }

  VerifyReport report;
  report.settings = s;
  for (const Row* row : {&relative, &orthogonal, &compose, &norm, &shift, &forms, &layouts}) {
    report.identities.push_back(row->result());
  }
  report.contrast = contrast.result();
  report.contrast.expected_to_fail = true;
  return report;
}

}  // namespace rope
