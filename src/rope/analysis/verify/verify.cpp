#include "rope/analysis/verify/verify.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <tuple>
#include <type_traits>

#include "rope/core/apply.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/core/invalid_quantity.hpp"
#include "rope/core/rotation.hpp"
#include "rope/analysis/verify/sinusoidal.hpp"
#include "rope/analysis/verify/verify_fast.hpp"
#include "rope/core/tolerance.hpp"

namespace rope {

namespace {

/// The user's q and k against the run: d numbers each, the same count, finite; at least one trial per pair; given
/// positions integers in [0, max_position).
void check_vectors(const VerifyVectors& v, const VerifySettings& s) {
  if (v.q.rows() != s.dim || v.k.rows() != s.dim) {
    throw InvalidArgument(
        error_msg("verify: q and k must hold {0} numbers per vector, the dimension verified (got {1} "
                  "and {2})",
                  s.dim, v.q.rows(), v.k.rows()));
  }
  if (v.pairs() < 1 || v.k.cols() != v.q.cols()) {
    throw InvalidArgument(
        error_msg("verify: q and k must hold as many vectors, at least one (got {0} and {1})", v.q.cols(), v.k.cols()));
  }
  if (v.q.size() > kMaxVerifyVectorValues || v.k.size() > kMaxVerifyVectorValues) {
    throw InvalidArgument(error_msg("verify: q and k must hold at most {0} numbers each (got {1} and {2})",
                                    kMaxVerifyVectorValues, v.q.size(), v.k.size()));
  }
  if (!v.q.allFinite() || !v.k.allFinite()) {
    throw InvalidArgument(error_msg("verify: q and k must hold finite numbers (got NaN or infinity)"));
  }
  if (s.trials < v.pairs()) {
    throw InvalidQuantity("trials", fmt::format("must be at least the number of vector pairs, {}, so that each is "
                                                "checked (got {})",
                                                v.pairs(), s.trials));
  }
  if (v.at) {
    for (const double p : *v.at) {
      if (!(p >= 0 && p < s.max_position && p == std::floor(p))) {
        throw InvalidQuantity("positions",
                              fmt::format("must be integers between 0 and {:g} (got {:g})", s.max_position - 1, p));
      }
    }
  }
}

void check_settings(const VerifySettings& s) {
  check_dimension(s.dim, kMaxVerifyDim);
  check_base(s.base);
  if (s.trials < 1 || s.trials > kMaxTrials) {
    throw InvalidQuantity("trials", fmt::format("must be between 1 and {} (got {})", kMaxTrials, s.trials));
  }
  const double cost = verify_trial_cost(s.dense ? DType::F64 : s.dtype);
  if (static_cast<double>(s.trials) * s.dim * cost > kMaxVerifyWork) {  // hours of work otherwise
    throw InvalidQuantity(
        "trials", fmt::format("must be at most {} for d = {} in {} (trials × d × {} is at most {:g}; got {})",
                              static_cast<long>(kMaxVerifyWork / (s.dim * cost)), s.dim, to_string(s.dtype), cost,
                              kMaxVerifyWork, s.trials));
  }
  if (!(s.safety > 0) || !std::isfinite(s.safety)) {
    throw InvalidArgument(error_msg("verify: the safety factor must be positive (got {0})", s.safety));
  }
  if (s.dense && s.dtype != DType::F64 && s.strategy != Strategy::CastInputs) {
    throw InvalidArgument(error_msg("verify: the dense form computes {0} with the cast-inputs strategy only (got {1})",
                                    to_string(s.dtype), to_string(s.strategy)));
  }
  if (!std::isfinite(s.max_position) || s.max_position < 1 || s.max_position > kMaxVerifyPosition ||
      s.max_position != std::floor(s.max_position)) {
    throw InvalidQuantity("max-position", fmt::format("must be an integer between 1 and {:g} (got {})",
                                                      kMaxVerifyPosition, s.max_position));
  }
  if (s.vectors) check_vectors(*s.vectors, s);
}

double max_abs(const Eigen::MatrixXd& a) { return a.cwiseAbs().maxCoeff(); }

}  // namespace

long dense_samples(int d, long trials) {
  const double flops_per_sample = 3.0 * d * static_cast<double>(d) * d;
  const double budget = 8589934592.0;  // 2^33
  return std::clamp(static_cast<long>(budget / flops_per_sample), 1L, trials);
}

bool VerifyReport::all_passed() const {
  return std::all_of(identities.begin(), identities.end(), [](const IdentityResult& r) { return r.check.passed(); });
}

namespace {

template <typename T>
double norm_in(const Vector<T>& a) {
  if constexpr (std::is_same_v<T, double>) {
    return a.norm();
  } else {
    using A = typename Accumulator<T>::type;
    return to_double(static_cast<T>(a.template cast<A>().norm()));
  }
}

/// A product of two matrices (or a matrix and a vector), accumulated in Accumulator<T>, rounded to T.
template <typename T, typename X, typename Y>
auto product_in(const X& x, const Y& y) {
  if constexpr (std::is_same_v<T, double>) {
    return (x * y).eval();
  } else {
    using A = typename Accumulator<T>::type;
    return (x.template cast<A>() * y.template cast<A>()).eval().template cast<T>().eval();
  }
}

template <typename X>
Eigen::MatrixXd to_double_matrix(const X& x) {
  if constexpr (std::is_same_v<typename X::Scalar, double>) {
    return x;
  } else {
    return x.template cast<float>().template cast<double>();
  }
}

template <typename T>
VerifyReport verify_in(const VerifySettings& s, const std::vector<VerifyDraw>* draws) {
  check_settings(s);
  const int d = s.dim;
  const Layout layout = s.layout;
  if (s.inv_freq && 2 * s.inv_freq->size() != d) {
    throw InvalidArgument(error_msg("verify: {0} frequencies given for dimension {1}", s.inv_freq->size(), d));
  }
  const Eigen::VectorXd theta64 = s.inv_freq ? *s.inv_freq : frequencies(d, s.base);
  const Vector<T> theta = theta64.template cast<T>();
  const double pmax = s.max_position;                                        // every drawn position is < pmax
  const auto at = [](double position) { return static_cast<T>(position); };  // positions cast to T (P3)

  std::vector<IdentityResult> rows = suite_rows(s);
  Tally relative, orthogonal, compose, norm, shift, forms, layouts, contrast;
  const long dense = draws ? static_cast<long>(draws->size()) : dense_samples(d, s.trials);
  const Eigen::PermutationMatrix<Eigen::Dynamic> P = layout_permutation(d);
  const Matrix<T> identity = Matrix<T>::Identity(d, d);
  Random rng(s.seed);
  const auto draw_position = [&] { return static_cast<double>(rng.below(static_cast<std::uint64_t>(pmax))); };

  Eigen::VectorXd q64(d), k64(d);
  const long trials = draws ? static_cast<long>(draws->size()) : s.trials;
  for (long t = 0; t < trials; ++t) {
    if (draws) {
      q64 = (*draws)[t].q;
      k64 = (*draws)[t].k;
    } else {
      for (int j = 0; j < d; ++j) q64[j] = rng.normal();
      for (int j = 0; j < d; ++j) k64[j] = rng.normal();
    }
    double m = draws ? (*draws)[t].m : draw_position();
    double n = draws ? (*draws)[t].n : draw_position();
    double c = draws ? (*draws)[t].c : draw_position();
    if (s.vectors && !draws) {  // the user's pair t mod pairs, at the drawn positions or the given ones
      const Eigen::Index pair = static_cast<Eigen::Index>(t % s.vectors->pairs());
      q64 = s.vectors->q.col(pair);
      k64 = s.vectors->k.col(pair);
      if (s.vectors->at) std::tie(m, n, c) = std::tuple((*s.vectors->at)[0], (*s.vectors->at)[1], (*s.vectors->at)[2]);
    }
    const Vector<T> q = q64.template cast<T>();
    const Vector<T> k = k64.template cast<T>();
    const double q_norm = norm_in(q);
    const double qk = q_norm * norm_in(k);

    // (M8) the headline identity.
    const Vector<T> Rm_q = apply_rotary<T>(q, theta, at(m), layout);
    const Vector<T> Rn_k = apply_rotary<T>(k, theta, at(n), layout);
    const double score = dot_in(Rm_q, Rn_k);
    relative.add(std::abs(score - dot_in(q, apply_rotary<T>(k, theta, at(n - m), layout))), qk);

    // (M7) the norm is preserved.
    norm.add(std::abs(norm_in(Rm_q) - q_norm), q_norm);

    // (M8) shifting both positions leaves the score unchanged.
    const double shifted =
        dot_in(apply_rotary<T>(q, theta, at(m + c), layout), apply_rotary<T>(k, theta, at(n + c), layout));
    shift.add(std::abs(shifted - score), qk);

    // (M9), (M10) three ways to rotate one vector.
    const Matrix<T> Rm = rotation_matrix<T>(theta, at(m), layout);
    const Vector<T> by_matrix = product_in<T>(Rm, q);
    const Vector<T> by_complex = apply_rotary_complex<T>(q, theta, at(m), layout);
    forms.add(std::max(to_double_matrix(by_matrix - Rm_q).cwiseAbs().maxCoeff(),
                       to_double_matrix(by_complex - Rm_q).cwiseAbs().maxCoeff()),
              q_norm);

    // (M12) the contrast: additive sinusoidal encodings leak absolute position.
    const auto pe = [&](double position) -> Vector<T> {
      return sinusoidal_encoding(d, position, s.base).template cast<T>();
    };
    const double additive = dot_in<T>(q + pe(m), k + pe(n));
    const double additive_shifted = dot_in<T>(q + pe(m + c), k + pe(n + c));
    contrast.add(std::abs(additive_shifted - additive), qk);

    if (t < dense) {
      // (M7) orthogonality and determinant.
      const Matrix<T> RtR = product_in<T>(Rm.transpose(), Rm);
      double det = 0;
      if constexpr (std::is_same_v<T, double>) {
        det = Rm.determinant();
      } else {
        using A = typename Accumulator<T>::type;
        det = to_double(static_cast<T>(Rm.template cast<A>().determinant()));
      }
      orthogonal.add(std::max(max_abs(to_double_matrix(RtR - identity)), std::abs(det - 1.0)), 1.0);
      // (M7) composition R_m R_n = R_{m+n}.
      const Matrix<T> Rn = rotation_matrix<T>(theta, at(n), layout);
      compose.add(max_abs(to_double_matrix(product_in<T>(Rm, Rn) - rotation_matrix<T>(theta, at(m + n), layout))), 1.0);
      // (M6) the two layouts are conjugate by P, exactly.
      const Matrix<T> R_int = rotation_matrix<T>(theta, at(m), Layout::Interleaved);
      const Matrix<T> R_half = rotation_matrix<T>(theta, at(m), Layout::Half);
      const Matrix<T> conjugated = P * R_int * P.transpose();
      layouts.add(max_abs(to_double_matrix(R_half - conjugated)), 1.0);
    }
  }

  VerifyReport report;
  report.settings = s;
  report.completed = trials;
  const Tally* tallies[] = {&relative, &orthogonal, &compose, &norm, &shift, &forms, &layouts, &contrast};
  for (std::size_t r = 0; r < rows.size(); ++r) tallies[r]->apply(rows[r]);
  report.identities.assign(rows.begin(), rows.end() - 1);
  report.contrast = rows.back();
  report.contrast.expected_to_fail = true;
  return report;
}

VerifyReport verify_dense(const VerifySettings& s, const std::vector<VerifyDraw>* draws) {
  switch (s.dtype) {
    case DType::F64:
      return verify_in<double>(s, draws);
    case DType::F32:
      return verify_in<float>(s, draws);
    case DType::F16:
      return verify_in<Eigen::half>(s, draws);
    case DType::BF16:
      return verify_in<Eigen::bfloat16>(s, draws);
  }
  throw InvalidArgument(error_msg("verify: unknown dtype"));
}

}  // namespace

double dtype_tolerance(DType dtype, int d, double position_budget, double safety) {
  const double eps = epsilon(dtype);
  const double eps_acc = dtype == DType::F16 || dtype == DType::BF16 ? epsilon(DType::F32) : eps;
  if (eps_acc == eps) return safety * eps * (d + position_budget);  // (M13)
  return safety * (eps_acc * d + eps * position_budget);            // (P10)
}

double strategy_tolerance(DType dtype, Strategy strategy, int d, double position_budget, double safety) {
  const DType angle_type = dtype == DType::F64 || strategy == Strategy::CastInputs ? dtype
                           : strategy == Strategy::AngleF32                        ? DType::F32
                                                                                   : DType::F64;
  const double eps = epsilon(dtype), eps_phi = std::min(epsilon(angle_type), eps);
  if (eps_phi == eps) return dtype_tolerance(dtype, d, position_budget, safety);
  const double eps_acc = dtype == DType::F16 || dtype == DType::BF16 ? epsilon(DType::F32) : eps;
  return safety * (eps_acc * d + eps_phi * position_budget + eps);  // (P12)
}

double score_tolerance_cap(int d) { return 1.0 / std::sqrt(static_cast<double>(d)); }  // (P11)

void Tally::add(double abs_error, double scale) {
  ++samples;
  if (!(abs_error <= std::numeric_limits<double>::max()))
    abs_error = std::numeric_limits<double>::infinity();  // NaN, overflow
  abs = std::max(abs, abs_error);
  // Normalised: each sample has its own S (tolerance.hpp). Sides that agree exactly agree whatever S (a zero q of the
  // user's: 0/0); an error against an S that overflowed (inf/inf) is no number, so it fails as infinite.
  const double relative = abs_error == 0 ? 0.0 : abs_error / scale;
  rel = std::max(rel, std::isnan(relative) ? std::numeric_limits<double>::infinity() : relative);
}

void Tally::merge(const Tally& o) {
  samples += o.samples;
  abs = std::max(abs, o.abs);
  rel = std::max(rel, o.rel);
}

void Tally::apply(IdentityResult& row) const {
  row.samples = samples;
  row.max_abs_error = abs;
  row.check.difference = rel;
}

std::vector<IdentityResult> suite_rows(const VerifySettings& s) {
  const int d = s.dim;
  // The angle budget: positions below max_position times the largest θ_j, at least 1 (a diffusers grid's frequencies
  // exceed 1: LTX-Video's (π/2)·10000^(k/(n−1)), models/grid_rope.hpp).
  double omega = 1;
  if (s.inv_freq) {
    for (Eigen::Index j = 0; j < s.inv_freq->size(); ++j) omega = std::max(omega, std::abs((*s.inv_freq)[j]));
  }
  const double pmax = s.max_position * omega;
  const Strategy strategy = s.dense ? Strategy::CastInputs : s.strategy;
  const auto tol = [&](double position_budget) {
    return strategy_tolerance(s.dtype, strategy, d, position_budget, s.safety);
  };
  const double score_cap = score_tolerance_cap(d);  // (P11); 1 for vectors and matrices
  const auto row = [](Message name, Message formula, std::string equation, double tolerance, double cap) {
    IdentityResult r;
    r.name = name.en;
    r.formula = formula.en;
    r.name_text = std::move(name);
    r.formula_text = std::move(formula);
    r.equation = std::move(equation);
    r.check.tolerance = std::min(tolerance, cap);  // (P11)
    r.capped = tolerance > cap;
    return r;
  };
  return {
      row({msg("relative position")}, Message::same("⟨R_m q, R_n k⟩ = qᵀ R_{n−m} k"), "(M8)", tol(2 * pmax), score_cap),
      row({msg("orthogonality")}, Message::same("R_mᵀ R_m = I, det R_m = 1"), "(M7)", tol(pmax), 1.0),
      row({msg("composition")}, Message::same("R_a R_b = R_{a+b}"), "(M7)", tol(2 * pmax), 1.0),
      row({msg("norm")}, Message::same("|R_m q| = |q|"), "(M7)", tol(pmax), 1.0),
      row({msg("shift invariance")}, Message::same("⟨R_{m+c} q, R_{n+c} k⟩ = ⟨R_m q, R_n k⟩"), "(M8)", tol(6 * pmax),
          score_cap),
      row({msg("three forms")}, {msg("elementwise = matrix = complex")}, "(M9) (M10)", tol(pmax), 1.0),
      row({msg("layouts")}, Message::same("R_half = P R_interleaved Pᵀ"), "(M6)", 0.0, INFINITY),
      row({msg("sinusoidal (contrast)")}, Message::same("⟨q+p_{m+c}, k+p_{n+c}⟩ = ⟨q+p_m, k+p_n⟩"), "(M12)",
          tol(6 * pmax), score_cap),
  };
}

VerifyReport verify(const VerifySettings& s, const VerifyProgress& progress) {
  check_settings(s);
  if (s.inv_freq && 2 * s.inv_freq->size() != s.dim) {
    throw InvalidArgument(error_msg("verify: {0} frequencies given for dimension {1}", s.inv_freq->size(), s.dim));
  }
  if (!s.dense) return verify_fast(s, s.inv_freq ? *s.inv_freq : frequencies(s.dim, s.base), progress);
  return verify_dense(s, nullptr);
}

VerifyReport verify_draws(const VerifySettings& settings, const std::vector<VerifyDraw>& draws) {
  VerifySettings s = settings;
  s.trials = std::max<long>(1, static_cast<long>(draws.size()));
  check_settings(s);
  for (const VerifyDraw& draw : draws) {
    if (draw.q.size() != s.dim || draw.k.size() != s.dim)
      throw InvalidArgument(error_msg("verify: a draw has another size than d"));
  }
  if (s.dense) return verify_dense(s, &draws);
  return verify_fast_draws(s, s.inv_freq ? *s.inv_freq : frequencies(s.dim, s.base), draws);
}

StrategyContrast cast_inputs_contrast(const VerifySettings& settings) {
  VerifySettings s = settings;
  s.strategy = Strategy::CastInputs;
  s.dense = false;
  StrategyContrast out{verify(s).identities[0], std::nullopt};
  VerifySettings probe = s;
  probe.trials = std::min(s.trials, std::max(256L, s.vectors ? s.vectors->pairs() : 0L));  // each given pair once
  const auto fails = [&](double max_position) {
    probe.max_position = max_position;
    return !verify(probe).identities[0].check.passed();
  };
  double passes = 1, fail = 2;  // max-position 1: m = n = 0, R_0 = I in any type
  while (fail < s.max_position && !fails(fail)) {
    passes = fail;
    fail *= 2;
  }
  if (fail >= s.max_position) {
    fail = s.max_position;
    if (fail <= passes || !fails(fail)) return out;
  }
  while (fail - passes > 1) {
    const double mid = std::floor((passes + fail) / 2);
    (fails(mid) ? fail : passes) = mid;
  }
  out.fails_from = fail;
  return out;
}

}  // namespace rope
