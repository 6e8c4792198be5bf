#include "rope/analysis/verify/axis_identities.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "rope/core/apply.hpp"
#include "rope/core/error.hpp"
#include "rope/core/random.hpp"
#include "rope/core/tolerance.hpp"

namespace rope {

namespace {

/// R_p x on the rotating channels (S19 without the attention factor: the identities are the rotation's).
Eigen::VectorXd rotate(const RopeSpec& spec, const Eigen::VectorXd& x, const AxisPosition& p) {
  return apply_rotary<double>(x, spec_angles(spec, p), 1.0, spec.layout);
}

AxisPosition plus(AxisPosition p, const AxisPosition& c, double sign = 1.0) {
  for (int k = 0; k < p.count; ++k) p.value[static_cast<std::size_t>(k)] += sign * c.value[static_cast<std::size_t>(k)];
  return p;
}

}  // namespace

std::vector<IdentityResult> verify_axes(const RopeSpec& spec, long trials, double max_position, std::uint64_t seed,
                                        const VerifyVectors* vectors) {
  if (!spec.axes) throw InvalidArgument(error_msg("the per-axis identities need a model with multimodal sections"));
  if (trials < 1) throw InvalidArgument(error_msg("{0} must be >= {1} (got {2})", "trials", 1, trials));
  if (!(max_position >= 1 && max_position <= kMaxVerifyPosition)) {
    throw InvalidArgument(error_msg("max position must be between 1 and {0}", fmt::format("{:g}", kMaxVerifyPosition)));
  }
  const int axes = spec.axes->axes;
  const int d = spec.rotary_dim;
  // R_(p'−p) of (A5) is the rotation by the difference itself: a map's offset o (V1) is part of every
  // position p + o, so it cancels in p' − p and the difference carries none.
  RopeSpec relative = spec;
  relative.axes->position_offset = 0;
  // The angles reach 6·max_position·ω, ω the largest θ_j times the largest position scale (at least 1): a diffusers
  // grid's frequencies exceed 1 (LTX-Video's (π/2)·10000^(k/(n−1)), grid_rope.hpp) and its positions are scaled.
  double omega = 1;
  for (Eigen::Index j = 0; j < spec.params.inv_freq.size(); ++j)
    omega = std::max(omega, std::abs(spec.params.inv_freq[j]));
  double largest_scale = 1;
  for (int a = 0; a < axes; ++a)
    largest_scale = std::max(largest_scale, std::abs(spec.axes->scale[static_cast<std::size_t>(a)]));
  const double tolerance = relative_tolerance(machine_epsilon<double>(), d, 6 * max_position * omega * largest_scale);
  std::vector<IdentityResult> rows;
  const auto row = [&](Message name, Message formula, const char* eq) {
    IdentityResult r;
    r.name = name.en;
    r.formula = formula.en;
    r.name_text = std::move(name);
    r.formula_text = std::move(formula);
    r.equation = eq;
    r.check.tolerance = tolerance;
    rows.push_back(r);
  };
  row(msg("axes: relative"), Message::same("⟨R_p q, R_p' k⟩ = ⟨q, R_{p'−p} k⟩"), "(A5)");
  row(msg("axes: shift all"), msg("shift p, p' by c: score unchanged"), "(A6)");
  for (int a = 0; a < axes; ++a) {
    const std::string l(axis_letter(spec.axes->first_axis + a));
    row(msg("axes: {0} alone", l), msg("shift p_{0}, p'_{0} by c: score unchanged", l), "(A7)");
  }
  std::vector<Tally> tally(rows.size());
  Random rng(seed);
  const auto position = [&] {
    AxisPosition p;
    p.count = axes;
    for (int k = 0; k < axes; ++k)
      p.value[static_cast<std::size_t>(k)] = static_cast<double>(rng.below(static_cast<std::uint64_t>(max_position)));
    return p;
  };
  const long draws = std::min(trials, kMaxAxisDraws);
  Eigen::VectorXd q(d), k(d);
  for (long i = 0; i < draws; ++i) {
    for (int j = 0; j < d; ++j) q[j] = rng.normal();
    for (int j = 0; j < d; ++j) k[j] = rng.normal();
    AxisPosition p = position(), p2 = position(), c = position();
    if (vectors) {  // the user's pair i mod pairs, at the drawn positions or the given ones on every axis
      q = vectors->q.col(static_cast<Eigen::Index>(i % vectors->pairs()));
      k = vectors->k.col(static_cast<Eigen::Index>(i % vectors->pairs()));
      for (int a = 0; vectors->at && a < axes; ++a) {
        p.value[static_cast<std::size_t>(a)] = (*vectors->at)[0];
        p2.value[static_cast<std::size_t>(a)] = (*vectors->at)[1];
        c.value[static_cast<std::size_t>(a)] = (*vectors->at)[2];
      }
    }
    const double scale = q.norm() * k.norm();
    const double score = rotate(spec, q, p).dot(rotate(spec, k, p2));
    tally[0].add(std::abs(score - q.dot(rotate(relative, k, plus(p2, p, -1.0)))), scale);
    tally[1].add(std::abs(rotate(spec, q, plus(p, c)).dot(rotate(spec, k, plus(p2, c))) - score), scale);
    for (int a = 0; a < axes; ++a) {
      AxisPosition one;
      one.count = axes;
      one.value[static_cast<std::size_t>(a)] = c.value[static_cast<std::size_t>(a)];
      tally[static_cast<std::size_t>(2 + a)].add(
          std::abs(rotate(spec, q, plus(p, one)).dot(rotate(spec, k, plus(p2, one))) - score), scale);
    }
  }
  for (std::size_t r = 0; r < rows.size(); ++r) tally[r].apply(rows[r]);
  return rows;
}

}  // namespace rope
