#include "rope/analysis/dump_diff.hpp"

#include <algorithm>
#include <cmath>

#include "rope/core/constants.hpp"
#include "rope/core/dtype.hpp"
#include "rope/core/error.hpp"

namespace rope {
namespace {

void require_same(const DumpVectors& x, const DumpVectors& y) {
  if (x.seq != y.seq || x.groups() != y.groups() || x.d != y.d) {
    throw InvalidArgument(error_msg("an output has {0} × {1} × {2} vectors, the input {3} × {4} × {5}: they must be equal",
                                    y.seq, y.groups(), y.d, x.seq, x.groups(), x.d));
  }
}

}  // namespace

OutputAgreement compare_outputs(const DumpVectors& before, const DumpVectors& a, const DumpVectors& b,
                                const std::vector<AxisPosition>& positions, const RopeExpectation& e) {
  require_same(before, a);
  require_same(before, b);
  if (static_cast<long>(positions.size()) != before.seq) {
    throw InvalidArgument(error_msg("{0} positions for a dump of {1} sequence positions", positions.size(), before.seq));
  }
  const int d = before.d, r = e.rotary_dim(), off = e.rotary_offset;
  if (r + off > d || r < 2) throw InvalidArgument(error_msg("the rotary dimension {0} does not fit in the dump's d = {1}", r, d));
  const double eps_t = std::max(epsilon(a.dtype), epsilon(b.dtype));
  // (C2) of the looser type: each output's angles as its own type computes them, the larger error bounds both.
  const AngleModel model = e.angles.value_or(epsilon(a.dtype) >= epsilon(b.dtype) ? default_angle_model(a.dtype)
                                                                                  : default_angle_model(b.dtype));
  const double eps_a = angle_epsilon(model);
  const Eigen::VectorXd c_i = angle_error_factors(model, e.theta, e.base, r);
  std::vector<int> pair_of(static_cast<std::size_t>(d), -1);  // channel -> pair
  std::vector<int> partner(static_cast<std::size_t>(d), -1);
  for (int i = 0; i < r / 2; ++i) {
    const auto [pa, pb] = pair_channels(r, i, e.layout);
    pair_of[static_cast<std::size_t>(pa + off)] = pair_of[static_cast<std::size_t>(pb + off)] = i;
    partner[static_cast<std::size_t>(pa + off)] = pb + off, partner[static_cast<std::size_t>(pb + off)] = pa + off;
  }
  OutputAgreement out;
  out.position_ratio = Eigen::VectorXd::Zero(before.seq);
  std::vector<double> term(static_cast<std::size_t>(r / 2));
  for (long s = 0; s < before.seq; ++s) {
    const double m = positions[static_cast<std::size_t>(s)].max_abs();
    for (int i = 0; i < r / 2; ++i) term[static_cast<std::size_t>(i)] = 2 * eps_t + eps_a * (1 + c_i[i] * m * e.theta[i]);
    double worst = 0;
    for (long g = 0; g < before.groups(); ++g) {
      const double* x = before.vector(s, g);
      const double* ya = a.vector(s, g);
      const double* yb = b.vector(s, g);
      for (int c = 0; c < d; ++c) {
        const int i = pair_of[static_cast<std::size_t>(c)];
        const double bound = i < 0 ? 2 * kToleranceSafety * eps_t * std::abs(x[c])
                                   : 2 * kToleranceSafety * e.attention_factor * std::hypot(x[c], x[partner[static_cast<std::size_t>(c)]]) *
                                         term[static_cast<std::size_t>(i)];  // (D1)
        const double delta = std::abs(ya[c] - yb[c]);
        double ratio = bound > 0 ? delta / bound : (delta > 0 ? HUGE_VAL : 0.0);
        if (!std::isfinite(ya[c]) || !std::isfinite(yb[c]) || !std::isfinite(bound)) ratio = HUGE_VAL;  // as (C1)
        if (ratio > 1) ++out.differing;
        worst = std::max(worst, ratio);
      }
    }
    out.total += before.groups() * d;
    out.position_ratio[s] = worst;
    out.max_ratio = std::max(out.max_ratio, worst);
  }
  return out;
}

DumpDiff diff_dumps(const DumpVectors& before, const DumpVectors& a, const DumpVectors& b,
                    const std::vector<AxisPosition>& positions, const RopeExpectation& e) {
  DumpDiff diff;
  diff.between = compare_outputs(before, a, b, positions, e);
  const MemorySource source_a(before, a), source_b(before, b);
  diff.a = check_source(source_a, 0, positions, e);
  diff.b = check_source(source_b, 0, positions, e);
  const Eigen::VectorXd& ra = diff.a.comparison.position_ratio;
  const Eigen::VectorXd& rb = diff.b.comparison.position_ratio;
  const Eigen::VectorXd& rab = diff.between.position_ratio;
  for (long s = 0; s < before.seq; ++s) {
    const bool a_right = ra[s] <= 1, b_right = rb[s] <= 1, agree = rab[s] <= 1;
    if (diff.ranges.empty() || diff.ranges.back().a_right != a_right || diff.ranges.back().b_right != b_right ||
        diff.ranges.back().agree != agree) {
      DiffRange run;
      run.start = s, run.a_right = a_right, run.b_right = b_right, run.agree = agree;
      diff.ranges.push_back(run);
    }
    DiffRange& run = diff.ranges.back();
    ++run.length;
    run.a_ratio = std::max(run.a_ratio, ra[s]);
    run.b_ratio = std::max(run.b_ratio, rb[s]);
    run.between_ratio = std::max(run.between_ratio, rab[s]);
  }
  // A failing run alone: its own diagnosis (what that implementation does there).
  std::size_t diagnosed = 0;
  for (DiffRange& run : diff.ranges) {
    if (run.a_right && run.b_right) continue;
    if (diagnosed++ >= kDiffDiagnosedRanges) break;
    const std::vector<AxisPosition> at(positions.begin() + run.start, positions.begin() + run.start + run.length);
    if (!run.a_right) run.a_diagnosis = check_source(source_a, run.start, at, e).diagnosis.message;
    if (!run.b_right) run.b_diagnosis = check_source(source_b, run.start, at, e).diagnosis.message;
  }
  return diff;
}

}  // namespace rope
