// The fast path of rope check (check_kernel.hpp): the exact path's pieces (compare_exact.hpp) over blocks of sequence
// indices on every core, with per-thread tallies merged in an order that does not depend on the threads; vectors
// whose pairs lie in a regular form screened (check_screen.hpp), read as the files store them, so that only the
// elements whose exact ratio can be a maximum or a failure are computed exactly.
#include "rope/analysis/check/fast/check_kernel.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <mutex>
#include <optional>
#include <stdexcept>

#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "rope/core/workers.hpp"

namespace rope {
namespace {

using exact_path::angle_bound;
using exact_path::compare_norms_exact;
using exact_path::compare_position_fope;
using exact_path::compare_position_mixed;
using exact_path::compare_vector_exact;
using exact_path::finish;
using exact_path::make_setup;
using exact_path::merge;
using exact_path::norm_factors;
using exact_path::pair_term;
using exact_path::position_table;
using exact_path::Setup;
using exact_path::variant_position;

/// One thread's tally for one variant.
struct Tally : exact_path::Tally {
  /// The thread's last vector failed, after its first failure: the next goes to the counting path without the screen
  /// (a failing dump's vectors mostly fail; either path gives the same numbers).
  bool counting = false;
};

CompareWitness& witness_slot() {
  static CompareWitness witness;
  return witness;
}

/// compare_vector_exact, by the fast path when the pairs lie in a regular form and every element passes, or fails
/// after the thread's first failure (which alone is recorded element by element; a thread visits its vectors in
/// increasing order): its largest ratio is then in `pm` (per pair, over the vectors of this position), its failing
/// elements counted, and the result 0.
double compare_vector(const Setup& u, const double* cs, const double* sn, const double* term, double scale,
                      const double* x, const double* y, long s, long g, Tally& t, double* pm) {
  if ((!u.half_form && !u.interleaved_form) || !u.unrotated.empty() || u.split) {
    return compare_vector_exact(u, cs, sn, term, scale, x, y, s, g, t);
  }
  const double k = kToleranceSafety * u.a;
  double* ch = t.channel.data() + u.off;
  const int fails = fold_pair_failures(!u.half_form, u.half, k, u.a, cs, sn, term, x + u.off, y + u.off, ch, pm);
  if (fails < 0 || (fails > 0 && t.first_seq < 0)) return compare_vector_exact(u, cs, sn, term, scale, x, y, s, g, t);
  t.failing += fails;
  t.group_failing[static_cast<std::size_t>(g)] += fails;
  t.total += u.d;
  return 0.0;
}

/// A position's tables of every pair: cos, sin, the angle term of (C1), and (κ·a·term)² for the screen.
struct Tables {
  const double* cs;
  const double* sn;
  const double* term;
  double* kt2;
  double scale;  ///< a query's scaling at this position (S21), folded into cs, sn and term; 1 otherwise
};

/// A thread's scratch for one position.
struct PositionScratch {
  std::vector<double> pair_max, q, cq, x, y;
  std::vector<double> near;  ///< per channel, the q from which an element is recomputed exactly (compare_position)
  std::vector<int> rising;   ///< the channels whose maximum an element of the position may raise
  std::vector<unsigned char> reaching;  ///< a vector's channels whose q reaches their threshold
  std::vector<char> screened;
  /// (N1)'s screen: a·‖(cos, sin)‖ and its square w2 of each pair; the sums of FusedNorms.
  std::vector<double> norm_q, norm_w2, norm_sums;
  std::vector<double> partner_q, partner_cq;  ///< a VerdictPartner's q and channel maxima (not kept)
};

/// (κ·a·T_i)² of every pair into tb.kt2; whether the screen applies at this position: the pairs in a regular form,
/// every channel rotated, no heads crossed, and every kt2 normal, so that the screen's bound holds.
bool screen_tables(const Setup& u, const Tables& tb) {
  const double k = kToleranceSafety * u.a;
  bool screen = (u.half_form || u.interleaved_form) && u.unrotated.empty() && u.variant->group_offset == 0 && !u.split;
  for (int i = 0; i < u.half && screen; ++i) {
    const double kt = k * tb.term[i];
    tb.kt2[i] = kt * kt;
    screen = tb.kt2[i] >= 1e-280 && tb.kt2[i] <= 1e280;
  }
  return screen;
}

/// A verdict partner's cos and sin at index s turned from its row at the index before by the step of positions
/// between them, where a verdict from them is provably the exact table's. The row held is within `err_` of the true
/// cos(m·θ_i), sin(m·θ_i) in the 2-norm of the pair's error (the exact row: libm's values of the rounded angle, each
/// within 2^−52·(1 + |m·θ_i|); each turn multiplies it by at most 1 + the rotation's own error and adds that error and
/// three roundings; the step δ = m − m′ is taken where m′ + δ rounds to m, and its own rounding, below 2^−53·|m|,
/// arises only where |δ| is of the order of |m| and lies inside a turn's 2^−50·|δ|·max θ); the exact table is within
/// 2^−52·(1 + |m·θ_i|) of the same in each of cos and sin. An error η in
/// cos or sin moves an element's Δ by at most a·√2·‖x‖·η, and the verdict's "passes" (Δ² < (1 − 2^−10)·‖x‖²·(κ·a·T_i)²)
/// leaves 2^−11 of the tolerance κ·a·‖x‖·T_i: with η ≤ 2^−13·κ·T_i the element passes with the exact table too (a
/// float64 dump's T_i is too small: its rows are exact). Rows are turned only where the position has one component, no
/// axis map or query scaling applies, and cos and sin are those of m·θ_i in float64 (no given table, angle type,
/// rounded table, fast-math, or zero variant).
class RotatedRows {
 public:
  static bool applies(const Setup& u) {
    const Variant& v = *u.variant;
    return !v.spec.table && !u.map && !u.split && !v.angle_type && !v.table_type && !v.fast_math && !v.zero;
  }

  /// The row of position p into cs, sn, term (scale 1): true when turned from the row held, false when the caller is
  /// to make the exact row (and hold() it).
  bool turn(const Setup& u, const AxisPosition& p, double* cs, double* sn, double* term, double* scale) {
    const RopeExpectation& spec = u.variant->spec;
    if (!have_ || p.multi() || spec.query_scale(p[0]) != 1 || turns_ >= kMaxTurns) return false;
    const double m = p[0], delta = m - m_;
    if (!(delta != 0 && m_ + delta == m && std::abs(m) < 0x1p52)) return false;
    const auto h = static_cast<std::size_t>(u.half);
    if (delta != step_) {  // the rotation by the new step
      step_ = delta;
      rc_.resize(h), rs_.resize(h);
      for (std::size_t i = 0; i < h; ++i) {
        const double phi = delta * spec.theta()[static_cast<Eigen::Index>(i)];
        rc_[i] = std::cos(phi), rs_[i] = std::sin(phi);
      }
      // ‖R̃ − R‖ of the rotation (cos and sin within 1 ulp of its rounded angle's, which is within 2^−53 of δ·θ_i),
      // with the three roundings of a turn, as a bound on the 2-norm of the error of (cos, sin)
      step_err_ = 0x1p-50 * (1 + std::abs(delta) * theta_max_) + 0x1p-48;
    }
    const double err = err_ * (1 + step_err_) + step_err_;  // ‖R̃‖ <= 1 + ‖R̃ − R‖
    const double flip = flipped(u) ? -1.0 : 1.0;
    for (std::size_t i = 0; i < h; ++i) {
      const auto j = static_cast<int>(i);
      term[i] = pair_term(u, angle_bound(u, j, m), 0, 1.0);
      const double eta = err + 0x1p-52 * (1 + std::abs(m * spec.theta()[j]));
      if (!(eta <= 0x1p-13 * kToleranceSafety * term[i])) return false;
    }
    for (std::size_t i = 0; i < h; ++i) {
      const double c = c_[i] * rc_[i] - s_[i] * rs_[i], sv = s_[i] * rc_[i] + c_[i] * rs_[i];
      c_[i] = c, s_[i] = sv;
      cs[i] = c, sn[i] = sv * flip;
    }
    m_ = m, err_ = err, *scale = 1.0;
    ++turns_;
    return true;
  }

  /// Holds the exact row just made for position p (scale 1 only; any other is not held).
  void hold(const Setup& u, const AxisPosition& p, const double* cs, const double* sn, double scale) {
    have_ = !p.multi() && scale == 1;
    if (!have_) return;
    const auto h = static_cast<std::size_t>(u.half);
    c_.assign(cs, cs + h);
    s_.assign(sn, sn + h);
    if (flipped(u)) {
      for (double& v : s_) v = -v;
    }
    theta_max_ = u.variant->spec.theta().cwiseAbs().maxCoeff();
    m_ = p[0], err_ = 0x1p-51 * (1 + std::abs(m_) * theta_max_), turns_ = 0;
  }

  void forget() { have_ = false; }

 private:
  static constexpr int kMaxTurns = 256;  ///< turns between exact rows (the error grows by one step's each)
  static bool flipped(const Setup& u) { return u.variant->reversed != (u.variant->spec.mode == CheckMode::Grad); }
  bool have_ = false;
  double m_ = 0, err_ = 0, step_ = 0, step_err_ = 0, theta_max_ = 0;
  int turns_ = 0;
  std::vector<double> c_, s_, rc_, rs_;
};

/// The exact row of variant u at position p (position_table), held by `rows` for the next turn where given.
void exact_row(const Setup& u, const AxisPosition& p, double* cs, double* sn, double* term, double* scale,
               RotatedRows* rows) {
  position_table(u, p, cs, sn, term, scale);
  if (rows) rows->hold(u, p, cs, sn, *scale);
}

/// A variant compared for its counts alone (ComparePass::counts_from) in the loop of an earlier one that turns the
/// same pairs (compare_position): each vector's elements loaded once for both where the earlier one counts its
/// failures with (N1) (count_screen_norms_verdict), and otherwise compared as compare_position compares it alone,
/// vector after vector, so that its tally and its position maximum `pmax` are the ones it would have alone.
///
/// Its cos and sin may be turned from the row before (RotatedRows, `exact` false): within a bound that keeps every
/// verdict of "passes" the exact table's, so that they serve the verdict alone; use_exact_rows() writes the exact row
/// (position_table) over them before anything else reads them (its angle terms, and so kt2, are the same).
struct VerdictPartner {
  const Setup& u;
  const Tables& tb;  ///< its tables at this position; screen_tables true
  Tally& t;
  AxisPosition p;                  ///< its position at this index
  double *cs, *sn, *term, *scale;  ///< where tb's rows are written
  RotatedRows* rows;               ///< its turned rows, to hold the exact row; none where its rows are not turned
  bool exact;
  double pmax = 0;

  void use_exact_rows() {
    if (!exact) exact_row(u, p, cs, sn, term, scale, rows), exact = true;
  }
};

/// The screen of Variant::norms (N1) at one position: `q` = a·‖(cos, sin)‖ of each pair (a query's scaling
/// included), and, where it applies, the bounds of ‖y‖² in squares with w2 = q². The pairs' norms are compared within
/// (N1)'s relative bound less δ = max(2^−10 of it, 2^−40), far above the roundings of the squares and of the exact
/// loop's square roots (a few 2^−53), so that a pair it passes passes the exact loop ((N1)'s floor only widens the
/// bound). Not for bounds too tight for δ (float64), nor where every pair's ratio is asked for (`exact`).
struct NormScreen {
  bool on = false;
  NormBounds bounds;
};

NormScreen norm_screen(const Setup& u, const Tables& tb, bool exact, std::vector<double>& q, std::vector<double>& w2) {
  const auto h = static_cast<std::size_t>(u.half);
  q.resize(h);
  norm_factors(u, tb.cs, tb.sn, q.data());
  const double delta = std::max(u.norm_rel * 0x1p-10, 0x1p-40);
  NormScreen ns;
  ns.on = !exact && !u.split && (u.half_form || u.interleaved_form) && u.norm_rel > 2 * delta && u.norm_rel < 0.5;
  if (ns.on) {
    w2.resize(h);
    for (std::size_t i = 0; i < h; ++i) w2[i] = q[i] * q[i];
  }
  ns.bounds = NormBounds{w2.data(), (1 - u.norm_rel + delta) * (1 - u.norm_rel + delta),
                         (1 + u.norm_rel - delta) * (1 + u.norm_rel - delta)};
  return ns;
}

/// The (N1) screen of a Variant::norms that turns as the variant before it (ComparePass::norms_as_previous), done in
/// that variant's compare_position, which then loads each vector once for both screens: every vector's squares
/// summed per pair into the scratch's norm_sums (‖y‖² | w2·‖x‖²), as compare_position_norms sums the vectors it
/// screens.
struct FusedNorms {
  NormBounds bounds;
  bool done = false;   ///< compare_position screened the position's vectors for (N1)
  bool passed = true;  ///< every vector passed (N1)'s screen: the sums are compare_position_norms's, bit for bit
};

/// Every vector of sequence index s (block from s0) under (C1); returns the position's largest ratio. Vectors
/// whose pairs lie in a regular form are screened (check_screen.hpp): the exact ratio is computed only where
/// it can be a maximum of the position or of its channel, so that every maximum is the exact one; any other
/// vector, and one the screen flags, is checked by compare_vector.
double compare_position(const Setup& u, const BlockShape& shape, const Tables& tb, const BlockView& view, long s,
                        long s0, Tally& t, PositionScratch& w, FusedNorms* norms = nullptr, bool counts_only = false,
                        VerdictPartner* partner = nullptr) {
  const std::size_t h = static_cast<std::size_t>(u.half);
  const long groups = shape.groups, d = shape.d;
  const double k = kToleranceSafety * u.a;
  const bool screen = screen_tables(u, tb);
  double pmax = 0;
  // compare_vector on the vector widened to double, for variant uu with its tables, tally and position maximum
  auto exact_vector_of = [&](const Setup& uu, const Tables& tbb, Tally& tt, double& pm, long g) {
    const long v = ((s - s0) * groups + g) * d;
    // HeadsCrossed: the input of group g read from another group of the same index.
    const long vx = ((s - s0) * groups + (g + uu.variant->group_offset) % groups) * d;
    const double* x = static_cast<const double*>(view.before) + vx;
    const double* y = static_cast<const double*>(view.after) + v;
    if (view.type != BlockElement::F64) {
      w.x.resize(static_cast<std::size_t>(d)), w.y.resize(static_cast<std::size_t>(d));
      widen_elements(view.type, element_at(view.before, view.type, vx), d, w.x.data());
      widen_elements(view.type, element_at(view.after, view.type, v), d, w.y.data());
      x = w.x.data(), y = w.y.data();
    }
    w.pair_max.assign(static_cast<std::size_t>(uu.half), 0.0);
    pm = std::max(pm, compare_vector(uu, tbb.cs, tbb.sn, tbb.term, tbb.scale, x, y, s, g, tt, w.pair_max.data()));
    for (const double m : w.pair_max) pm = std::max(pm, m);
  };
  const auto exact_vector = [&](long g) { exact_vector_of(u, tb, t, pmax, g); };
  if (!screen) {
    for (long g = 0; g < groups; ++g) exact_vector(g);
    if (partner) {  // compared alone after this variant, as without a partner: from its exact rows
      partner->use_exact_rows();
      partner->pmax = compare_position(partner->u, shape, partner->tb, view, s, s0, partner->t, w, nullptr, true);
    }
    return pmax;
  }
  const ScreenPairs sp{view.type, !u.half_form, u.half, u.a};
  const auto dd = static_cast<std::size_t>(2 * u.half);
  w.q.resize(static_cast<std::size_t>(groups) * dd);
  w.cq.assign(dd, 0.0);
  w.screened.assign(static_cast<std::size_t>(groups), 0);
  bool dirty = false;  // a flagged vector folded into cq
  double* sums = nullptr;
  if (norms) {
    w.norm_sums.assign(2 * h, 0.0);
    sums = w.norm_sums.data();
    norms->done = true, norms->passed = true;
  }
  // A vector whose failures are counted from its q, which then stands for its ratios as a screened vector's does (the
  // maxima below).
  const auto counted = [&](long g, int fails) {
    w.screened[static_cast<std::size_t>(g)] = 1;
    t.failing += fails;
    t.group_failing[static_cast<std::size_t>(g)] += fails;
    t.total += u.d;
    t.counting = fails > 0;
  };
  // A vector the screen leaves to the exact loop; the thread counts from then on if it failed.
  const auto checked_exactly = [&](long g) {
    dirty = true;
    const long failing = t.failing;
    exact_vector(g);
    t.counting = t.first_seq >= 0 && t.failing > failing;
  };
  // The partner's step on vector g, as compare_position with counts_only compares it: its verdict (given where the
  // fused loop computed it), the counting path after its first failure, the exact loop for what the screen leaves.
  const ScreenPairs sp2{view.type, !u.half_form, u.half, partner ? partner->u.a : 1.0};
  if (partner) w.partner_q.resize(dd), w.partner_cq.assign(dd, 0.0);
  const auto partner_step = [&](long g, const void* x, const void* y, const bool* verdict) {
    VerdictPartner& p = *partner;
    const auto exactly = [&] {
      p.use_exact_rows();
      const long failing = p.t.failing;
      exact_vector_of(p.u, p.tb, p.t, p.pmax, g);
      p.t.counting = p.t.first_seq >= 0 && p.t.failing > failing;
    };
    if (!p.t.counting) {
      if (verdict ? *verdict : screen_passes(sp2, p.tb.cs, p.tb.sn, p.tb.kt2, x, y)) {
        p.t.total += p.u.d;
      } else {
        exactly();
      }
      return;
    }
    int fails = 0;
    p.use_exact_rows();
    if (count_screen_vector(sp2, p.tb.cs, p.tb.sn, p.tb.kt2, x, y, w.partner_q.data(), w.partner_cq.data(), &fails)) {
      p.t.failing += fails;
      p.t.group_failing[static_cast<std::size_t>(g)] += fails;
      p.t.total += p.u.d;
      p.t.counting = fails > 0;
    } else {
      exactly();
    }
  };
  for (long g = 0; g < groups; ++g) {
    const long v = ((s - s0) * groups + g) * d + u.off;
    const void* x = element_at(view.before, view.type, v);
    const void* y = element_at(view.after, view.type, v);
    double* q = &w.q[static_cast<std::size_t>(g) * dd];
    bool screened = false;
    if (norms && norms->passed && t.counting) {
      // A failing dump's vectors after the thread's first failure: (C1) counted from the screen's q where every
      // element's verdict is certain from it, and (N1) summed, in one loop over the vector as stored
      // (count_screen_norms, with a partner's verdict in it while the partner passes); its q then stands for its
      // ratios as a screened vector's does (the maxima below). The exact path for a vector with an element near its
      // tolerance.
      int fails = 0, both = 0;
      if (partner && !partner->t.counting) {
        bool passes2 = false;
        both = count_screen_norms_verdict(sp, tb.cs, tb.sn, tb.kt2, norms->bounds, partner->u.a, partner->tb.cs,
                                          partner->tb.sn, partner->tb.kt2, x, y, q, w.cq.data(), sums, sums + h, &fails,
                                          &passes2);
        partner_step(g, x, y, &passes2);
      } else {
        if (partner) partner_step(g, x, y, nullptr);
        both =
            count_screen_norms(sp, tb.cs, tb.sn, tb.kt2, norms->bounds, x, y, q, w.cq.data(), sums, sums + h, &fails);
      }
      norms->passed = (both & 2) != 0;
      if ((both & 1) != 0) {
        counted(g, fails);
      } else {
        checked_exactly(g);
      }
      continue;
    }
    if (partner) partner_step(g, x, y, nullptr);
    if (norms && norms->passed) {  // both screens in one loop; (N1) alone where (C1) counts failures
      const int both = t.counting ? 0
                                  : screen_vector_norms(sp, tb.cs, tb.sn, tb.kt2, norms->bounds, x, y, q, w.cq.data(),
                                                        sums, sums + h);
      screened = (both & 1) != 0;
      norms->passed = t.counting ? add_screened_norms(sp, norms->bounds, x, y, sums, sums + h) : (both & 2) != 0;
    } else if (counts_only && !t.counting) {  // the verdict alone: a passing vector leaves no q to fold
      if (screen_passes(sp, tb.cs, tb.sn, tb.kt2, x, y)) {
        t.total += u.d;
      } else {
        checked_exactly(g);
      }
      continue;
    } else if (t.counting) {  // the counting path without (N1): (C1) counted from the screen's q where certain
      int fails = 0;
      if (count_screen_vector(sp, tb.cs, tb.sn, tb.kt2, x, y, q, w.cq.data(), &fails)) {
        counted(g, fails);
        continue;
      }
    } else {
      screened = screen_vector(sp, tb.cs, tb.sn, tb.kt2, x, y, q, w.cq.data());
    }
    if (screened) {
      w.screened[static_cast<std::size_t>(g)] = 1;
      t.total += u.d;
    } else {
      checked_exactly(g);
    }
  }
  if (counts_only) return pmax;  // no maxima kept
  if (dirty) {
    w.cq.assign(dd, 0.0);
    for (long g = 0; g < groups; ++g) {
      if (!w.screened[static_cast<std::size_t>(g)]) continue;
      for (std::size_t c = 0; c < dd; ++c) w.cq[c] = std::max(w.cq[c], w.q[static_cast<std::size_t>(g) * dd + c]);
    }
  }
  const double top = screen_largest(w.cq.data(), static_cast<long>(dd));  // the screen's largest q at this position
  // Each channel's threshold: an element can raise the position's maximum or its channel's only if its q reaches the
  // floor, and only the channel's largest q at this position, and those within the margin of it, can hold its largest
  // ratio (a failing dump's channel maxima rise at most positions: every element above the last maximum is not
  // needed). A screened vector's q is finite, so that an infinite threshold skips the channel.
  w.near.resize(dd);
  w.rising.clear();
  for (std::size_t c = 0; c < dd; ++c) {
    const double best = t.channel[static_cast<std::size_t>(u.off) + c];
    const double floor = std::min(top, best * best) * (1 - kScreenMargin);
    const bool rises = w.cq[c] > 0 && w.cq[c] >= floor;
    w.near[c] = rises ? std::max(floor, w.cq[c] * (1 - kScreenMargin)) : INFINITY;
    if (rises) w.rising.push_back(static_cast<int>(c));
  }
  const auto recompute = [&](long g, std::size_t c) {
    const long v = ((s - s0) * groups + g) * d + u.off;
    const double r = screen_exact_ratio(sp, k, tb.cs, tb.sn, tb.term, element_at(view.before, view.type, v),
                                        element_at(view.after, view.type, v), static_cast<int>(c));
    double& best = t.channel[static_cast<std::size_t>(u.off) + c];
    best = std::max(best, r);
    pmax = std::max(pmax, r);
  };
  if (w.rising.size() * 8 <= dd) {  // a few channels (a passing dump's): each one's q across the vectors
    for (const int ci : w.rising) {
      const auto c = static_cast<std::size_t>(ci);
      for (long g = 0; g < groups; ++g) {
        const double q = w.q[static_cast<std::size_t>(g) * dd + c];
        if (w.screened[static_cast<std::size_t>(g)] && q > 0 && q >= w.near[c]) recompute(g, c);
      }
    }
  } else {  // many (a failing dump's): vector by vector, each vector's q against the thresholds at once
    w.reaching.assign((dd + 7) / 8 * 8, 0);  // whole words of 8 flags, the tail's 0
    for (long g = 0; g < groups; ++g) {
      if (!w.screened[static_cast<std::size_t>(g)] ||
          !screen_reaching(&w.q[static_cast<std::size_t>(g) * dd], w.near.data(), static_cast<long>(dd),
                           w.reaching.data())) {
        continue;
      }
      for (std::size_t c0 = 0; c0 < dd; c0 += 8) {  // 8 flags at once: most are 0
        std::uint64_t word;
        std::memcpy(&word, &w.reaching[c0], 8);
        for (; word != 0; word &= word - 1) recompute(g, c0 + static_cast<std::size_t>(__builtin_ctzll(word)) / 8);
      }
    }
  }
  return pmax;
}

/// Variant::norms: every rotated pair of every vector of index s by its norm (N1), ‖y‖ against a·‖x‖ (a query's
/// scaling folded into cs and sn); the sums Σ‖y‖², Σ(a·‖x‖)² of the position added to sy, sx. Returns the
/// position's largest ratio.
double compare_position_norms(const Setup& u, const BlockShape& shape, const Tables& tb, const BlockView& view, long s,
                              long s0, Tally& t, PositionScratch& w, double& sy, double& sx, bool exact) {
  const long groups = shape.groups, d = shape.d;
  const auto h = static_cast<std::size_t>(u.half);
  double pmax = 0;
  w.x.resize(static_cast<std::size_t>(d)), w.y.resize(static_cast<std::size_t>(d));
  // The screen (check_screen.hpp screen_norms) of pairs in place in a regular form: the ratios of the pairs it passes
  // are not computed.
  const NormScreen ns = norm_screen(u, tb, exact, w.norm_q, w.norm_w2);
  const bool screen = ns.on;
  if (screen) {
    w.cq.resize(2 * h);             // this vector's ‖y‖² | its w2·‖x‖²
    w.pair_max.assign(2 * h, 0.0);  // the sums of the screened vectors' ‖y‖², w2·‖x‖² per pair
  }
  const ScreenPairs sp{view.type, !u.half_form, u.half, u.a};
  for (long g = 0; g < groups; ++g) {
    const long v = ((s - s0) * groups + g) * d;
    if (screen && screen_norms(sp, ns.bounds, element_at(view.before, view.type, v + u.off),
                               element_at(view.after, view.type, v + u.off), w.cq.data(), w.cq.data() + h)) {
      for (std::size_t i = 0; i < h; ++i) w.pair_max[i] += w.cq[i], w.pair_max[h + i] += w.cq[h + i];
      t.total += 2 * u.half;
      continue;
    }
    const double* x = static_cast<const double*>(view.before) + v;
    const double* y = static_cast<const double*>(view.after) + v;
    if (view.type != BlockElement::F64) {
      widen_elements(view.type, element_at(view.before, view.type, v), d, w.x.data());
      widen_elements(view.type, element_at(view.after, view.type, v), d, w.y.data());
      x = w.x.data(), y = w.y.data();
    }
    pmax = std::max(pmax, compare_norms_exact(u, tb.cs, tb.sn, w.norm_q.data(), x, y, s, g, t, sy, sx));
  }
  if (screen) {
    for (std::size_t i = 0; i < h; ++i) sy += w.pair_max[i], sx += w.pair_max[h + i];
  }
  return pmax;
}

/// Variant::norms at index s after compare_position screened it (FusedNorms): where every vector passed the screen,
/// the position's sums added as compare_position_norms adds them, in pair order; otherwise compare_position_norms
/// from the start, so that tallies, sums and ratios are those of the separate pass, bit for bit.
void compare_fused_norms(const Setup& u, const BlockShape& shape, const Tables& tb, const BlockView& view, long s,
                         long s0, Tally& t, PositionScratch& w, const FusedNorms& norms, double& sy, double& sx,
                         double& pos) {
  double pmax = 0;
  if (norms.done && norms.passed) {
    const std::size_t h = static_cast<std::size_t>(u.half);
    double y2 = sy, x2 = sx;
    for (std::size_t i = 0; i < h; ++i) y2 += w.norm_sums[i], x2 += w.norm_sums[h + i];
    sy = y2, sx = x2;
    t.total += 2 * u.half * shape.groups;
  } else {
    pmax = compare_position_norms(u, shape, tb, view, s, s0, t, w, sy, sx, false);
  }
  pos = pmax;
  t.max_ratio = std::max(t.max_ratio, pmax);
}

/// HeadsSeqMixed: [seq, heads] viewed as [heads, seq] around RoPE (a reshape where a transpose belongs): the vector
}  // namespace

void set_compare_witness(CompareWitness witness) { witness_slot() = std::move(witness); }

const CompareWitness& compare_witness() { return witness_slot(); }

long block_positions_for(long groups, int d, long elements) {
  const long per = std::max<long>(1, groups * d);
  return std::max<long>(1, elements / per);
}

std::vector<DumpComparison> compare_blocks(const BlockShape& shape, const std::vector<AxisPosition>& positions,
                                           const std::vector<Variant>& variants, const BlockFetch& fetch,
                                           long block_positions, const ProgressFn* progress, const ComparePass& pass) {
  if (static_cast<long>(positions.size()) != shape.seq) {
    throw InvalidArgument(error_msg("{0} positions for a dump of {1} sequence positions", positions.size(), shape.seq));
  }
  std::vector<Setup> setups;
  for (const Variant& v : variants) setups.push_back(make_setup(v, shape));
  const std::size_t nv = variants.size();
  std::vector<DumpComparison> out(nv);
  for (DumpComparison& c : out) {
    c.position_ratio = Eigen::VectorXd::Zero(shape.seq);
    c.channel_ratio = Eigen::VectorXd::Zero(shape.d);
    c.group_failing.assign(static_cast<std::size_t>(shape.groups), 0);
  }
  std::vector<exact_path::Tally> firsts(nv);  // the first failure over the threads
  // (N1): Σ‖y‖² and Σ(a·‖x‖)² per sequence index (each written by the one thread of its block), for Variant::norms.
  std::vector<std::vector<double>> norm_y2(nv), norm_x2(nv);
  for (std::size_t k = 0; k < nv; ++k) {
    if (variants[k].norms)
      norm_y2[k].assign(static_cast<std::size_t>(shape.seq), 0.0), norm_x2[k].assign(norm_y2[k].size(), 0.0);
  }
  // A Variant::norms screened in the loop of the variant before it (FusedNorms): it turns as that one, in the same
  // pairs, and every pair's ratio is not asked for.
  std::vector<char> fused(nv, 0);
  for (std::size_t k = 1; k < nv; ++k) {
    const Setup &p = setups[k - 1], &u = setups[k];
    fused[k] = pass.norms_as_previous && !pass.exact_norms && variants[k].norms && !variants[k - 1].norms &&
               !variants[k - 1].heads_mixed && p.half == u.half && p.off == u.off && p.half_form == u.half_form &&
               p.interleaved_form == u.interleaved_form && !p.split && !u.split;  // a split map: its own norms
  }
  // A variant compared for its counts alone in the loop of an earlier one (VerdictPartner): the first such variant
  // that turns the same pairs as a plain variant compared in full with its (N1) fused; partner_of[j] names it.
  const auto plain = [&](std::size_t k) {
    const Setup& u = setups[k];
    return !variants[k].norms && !u.fope && !variants[k].heads_mixed && !u.split && !fused[k] &&
           (u.half_form || u.interleaved_form);
  };
  std::vector<std::size_t> partner_of(nv, nv);
  std::vector<char> partnered(nv, 0), turnable(nv, 0);
  for (std::size_t j = 0; j + 1 < nv && j < pass.counts_from; ++j) {
    if (!plain(j) || !fused[j + 1]) continue;
    for (std::size_t k = std::max(j + 1, pass.counts_from); k < nv; ++k) {
      const Setup &p = setups[j], &u = setups[k];
      if (plain(k) && !partnered[k] && !(k + 1 < nv && fused[k + 1]) && p.half == u.half && p.off == u.off &&
          p.half_form == u.half_form && p.interleaved_form == u.interleaved_form) {
        partner_of[j] = k, partnered[k] = 1, turnable[k] = RotatedRows::applies(u) ? 1 : 0;
        break;
      }
    }
  }
  const long B =
      std::max<long>(1, std::min(block_positions, shape.seq));  // a short dump: tables for its positions only
  // The blocks [s0, s1) visited: the range's, or those of the ranges of pass.only, each cut at B indices.
  std::vector<std::pair<long, long>> spans;
  long last_end = 0;
  for (const auto& [a, b] : pass.only) {
    if (a < last_end || b < a || b > shape.seq) {
      throw std::logic_error("compare_blocks: the ranges of a pass must increase within the range");  // a caller's bug
    }
    for (long s0 = a; s0 < b; s0 += B) spans.emplace_back(s0, std::min(b, s0 + B));
    last_end = b;
  }
  if (pass.only.empty()) {
    for (long s0 = 0; s0 < shape.seq; s0 += B) spans.emplace_back(s0, std::min(shape.seq, s0 + B));
  }
  const long blocks = static_cast<long>(spans.size());
  std::atomic<long> next{0}, done{0};
  std::atomic<bool> stop{false};
  std::exception_ptr error;
  std::mutex lock;
  // One worker a thread (core/workers.hpp), each taking the next block.
  const auto worker = [&](int thread) {
    try {
      BlockBuffers buffers;
      PositionScratch scratch;
      std::vector<RotatedRows> rows(nv);  // each verdict partner's own: a row turns only from its variant's
      std::vector<Tally> tally(nv);
      std::vector<std::vector<double>> cs(nv), sn(nv), term(nv), kt2(nv), scale(nv);
      for (std::size_t k = 0; k < nv; ++k) {
        tally[k].channel.assign(static_cast<std::size_t>(shape.d), 0.0);
        tally[k].group_failing.assign(static_cast<std::size_t>(shape.groups), 0);
        const auto n = static_cast<std::size_t>(B * setups[k].stride);
        cs[k].resize(n), sn[k].resize(n), term[k].resize(n), kt2[k].resize(n),
            scale[k].resize(static_cast<std::size_t>(B));
      }
      for (long blk = next++; blk < blocks && !stop; blk = next++) {
        const auto [s0, s1] = spans[static_cast<std::size_t>(blk)];
        BlockView view;
        fetch(s0, s1, buffers, view);
        for (RotatedRows& r : rows) r.forget();  // a block's first row is exact
        for (std::size_t k = 0; k < nv; ++k) {
          if (fused[k] || partnered[k]) continue;  // compared in the loop of an earlier variant, below
          const Setup& u = setups[k];
          const std::size_t h = static_cast<std::size_t>(u.stride);  // a position's table entries
          double* pos = out[k].position_ratio.data();
          if (u.variant->norms) {  // (N1): pair norms, summed per index (added up in index order below)
            // The tables of the variant before it, where the caller says it turns as that one (computed just above).
            const bool shared = pass.norms_as_previous && k > 0 && !variants[k - 1].norms &&
                                !variants[k - 1].heads_mixed && setups[k - 1].half == u.half &&
                                setups[k - 1].stride == u.stride;
            const std::size_t t = shared ? k - 1 : k;
            for (long s = s0; s < s1; ++s) {
              const std::size_t o = static_cast<std::size_t>(s - s0) * h;
              double& sc = scale[t][static_cast<std::size_t>(s - s0)];
              if (!shared)
                position_table(u, variant_position(*u.variant, positions, s), &cs[k][o], &sn[k][o], &term[k][o], &sc);
              const Tables tables{&cs[t][o], &sn[t][o], &term[t][o], &kt2[t][o], sc};
              const double pmax = compare_position_norms(u, shape, tables, view, s, s0, tally[k], scratch,
                                                         norm_y2[k][static_cast<std::size_t>(s)],
                                                         norm_x2[k][static_cast<std::size_t>(s)], pass.exact_norms);
              pos[s] = pmax;
              tally[k].max_ratio = std::max(tally[k].max_ratio, pmax);
            }
            continue;
          }
          if (u.fope) {  // FoPE: every group its key-value head's scaled rotations
            for (long s = s0; s < s1; ++s) {
              const double pmax = compare_position_fope(u, shape, variant_position(*u.variant, positions, s), view, s,
                                                        s0, tally[k], scratch.x, scratch.y);
              pos[s] = pmax;
              tally[k].max_ratio = std::max(tally[k].max_ratio, pmax);
            }
            continue;
          }
          if (u.variant->heads_mixed) {  // HeadsSeqMixed: every vector at its own position index
            for (long s = s0; s < s1; ++s) {
              const double pmax =
                  compare_position_mixed(u, shape, positions, view, s, s0, tally[k], scratch.x, scratch.y);
              pos[s] = pmax;
              tally[k].max_ratio = std::max(tally[k].max_ratio, pmax);
            }
            continue;
          }
          const bool with_norms = k + 1 < nv && fused[k + 1];
          const std::size_t k2 = partner_of[k];
          for (long s = s0; s < s1; ++s) {
            const std::size_t o = static_cast<std::size_t>(s - s0) * h;
            double& sc = scale[k][static_cast<std::size_t>(s - s0)];
            position_table(u, variant_position(*u.variant, positions, s), &cs[k][o], &sn[k][o], &term[k][o], &sc);
            const Tables tables{&cs[k][o], &sn[k][o], &term[k][o], &kt2[k][o], sc};
            std::optional<Tables> tables2;
            std::optional<VerdictPartner> partner;
            if (k2 < nv) {  // the partner's tables at s; its own compare_position where the screen does not apply
              const Setup& u2 = setups[k2];
              double& sc2 = scale[k2][static_cast<std::size_t>(s - s0)];
              const AxisPosition p2 = variant_position(*u2.variant, positions, s);
              double *c2 = &cs[k2][o], *s2 = &sn[k2][o], *t2 = &term[k2][o];
              RotatedRows* turner = turnable[k2] ? &rows[k2] : nullptr;
              // turned from the row before while it verdicts alone (a failing partner counts from exact rows)
              const bool turned = turner && !tally[k2].counting && turner->turn(u2, p2, c2, s2, t2, &sc2);
              if (!turned) exact_row(u2, p2, c2, s2, t2, &sc2, turner);
              tables2.emplace(Tables{c2, s2, t2, &kt2[k2][o], sc2});
              if (screen_tables(u2, *tables2)) {
                partner.emplace(VerdictPartner{u2, *tables2, tally[k2], p2, c2, s2, t2, &sc2, turner, !turned});
              } else {
                if (turned) exact_row(u2, p2, c2, s2, t2, &sc2, turner);
                const double pmax2 =
                    compare_position(u2, shape, *tables2, view, s, s0, tally[k2], scratch, nullptr, true);
                out[k2].position_ratio[static_cast<Eigen::Index>(s)] = pmax2;
                tally[k2].max_ratio = std::max(tally[k2].max_ratio, pmax2);
              }
            }
            FusedNorms norms;
            bool screen_norms = false;  // without its screen, (N1) is compared by compare_fused_norms alone
            if (with_norms) {
              const NormScreen ns = norm_screen(setups[k + 1], tables, false, scratch.norm_q, scratch.norm_w2);
              norms.bounds = ns.bounds;
              screen_norms = ns.on;
            }
            const double pmax =
                compare_position(u, shape, tables, view, s, s0, tally[k], scratch, screen_norms ? &norms : nullptr,
                                 k >= pass.counts_from && !with_norms, partner ? &*partner : nullptr);
            pos[s] = pmax;  // each index belongs to one block: no other thread writes it
            tally[k].max_ratio = std::max(tally[k].max_ratio, pmax);
            if (partner) {
              out[k2].position_ratio[static_cast<Eigen::Index>(s)] = partner->pmax;
              tally[k2].max_ratio = std::max(tally[k2].max_ratio, partner->pmax);
            }
            if (with_norms)
              compare_fused_norms(setups[k + 1], shape, tables, view, s, s0, tally[k + 1], scratch, norms,
                                  norm_y2[k + 1][static_cast<std::size_t>(s)],
                                  norm_x2[k + 1][static_cast<std::size_t>(s)],
                                  out[k + 1].position_ratio[static_cast<Eigen::Index>(s)]);
          }
        }
        const long finished = ++done;
        if (progress && *progress && thread == 0)
          (*progress)(static_cast<double>(finished) / static_cast<double>(blocks));
      }
      std::lock_guard<std::mutex> hold(lock);
      for (std::size_t k = 0; k < nv; ++k) {
        merge(out[k], tally[k]);
        const Tally& t = tally[k];
        if (t.first_seq >= 0 && firsts[k].before(t.first_seq, t.first_group, t.first_rank)) firsts[k] = t;
      }
    } catch (...) {
      stop = true;
      std::lock_guard<std::mutex> hold(lock);
      if (!error) error = std::current_exception();
    }
  };
  run_workers(worker_count(blocks), worker);
  if (error) std::rethrow_exception(error);
  for (std::size_t k = 0; k < nv; ++k) finish(out[k], firsts[k], norm_y2[k], norm_x2[k]);
  if (progress && *progress) (*progress)(1.0);
  if (compare_witness()) compare_witness()(shape, positions, variants, fetch, pass, out);
  return out;
}

}  // namespace rope
