#include "rope/analysis/check/dump_diff.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include "rope/analysis/check/fast/check_kernel.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/dtype.hpp"
#include "rope/core/error.hpp"

namespace rope {
namespace {

/// Elements of one dump in one block of (D1): three dumps of 512 KiB each as doubles.
constexpr long kDiffBlockElements = 1L << 16;

void require_same(const DumpVectors& x, const DumpVectors& y) {
  if (x.seq != y.seq || x.groups() != y.groups() || x.d != y.d) {
    throw InvalidArgument(
        error_msg("an output has {0} × {1} × {2} vectors, the input {3} × {4} × {5}: they must be equal", y.seq,
                  y.groups(), y.d, x.seq, x.groups(), x.d));
  }
}

/// The sequence indices [s0, s1) of a dump in memory.
DumpVectors slice(const DumpVectors& v, long s0, long s1) {
  DumpVectors out = v;
  out.seq = s1 - s0;
  const auto per = static_cast<long>(v.groups() * v.d);
  out.values.assign(v.values.begin() + s0 * per, v.values.begin() + s1 * per);
  return out;
}

/// The reader of three dumps in memory.
DiffReader memory_reader(const DumpVectors& before, const DumpVectors& a, const DumpVectors& b) {
  return [&before, &a, &b](long s0, long s1) {
    return std::array<DumpVectors, 3>{slice(before, s0, s1), slice(a, s0, s1), slice(b, s0, s1)};
  };
}

/// (D2): FoPE's term of every pair at position m, per matrix of coefficients ([matrix][pair]), as the check's kernel
/// bounds one output (check_kernel.cpp, compare_position_fope) with the attention factor 1 of FoPE's default RoPE.
void fope_terms(const RopeExpectation& e, double m, double eps_t, double eps_a, const Eigen::VectorXd& c_i,
                std::vector<double>& out) {
  const FopeCoefficients& c = *e.fope;
  const int half = e.rotary_dim() / 2, K = c.kept;
  out.assign(static_cast<std::size_t>(c.heads * half), 0.0);
  std::vector<double> cs(static_cast<std::size_t>(K)), sn(cs.size()), angle(cs.size());
  for (int D = 0; D < K; ++D) {
    const auto k = static_cast<std::size_t>(D);
    cs[k] = std::cos(m * e.theta()[D]), sn[k] = std::sin(m * e.theta()[D]);
    angle[k] = eps_a * (1 + c_i[D] * std::abs(m) * e.theta()[D]) + K * eps_a;
  }
  for (long h = 0; h < c.heads; ++h) {
    double* t = out.data() + h * half;
    for (int j = 0; j < half; ++j) {
      if (j >= K) {  // (F3): padded, cos 1 and sin fope_pad_sin
        t[j] = 2 * eps_t * (1 + std::abs(e.fope_pad_sin));
        continue;
      }
      double a = 0, b = 0, err = 0;
      for (int D = 0; D < K; ++D) {
        const double wc = c.cos_at(h, D, j), ws = c.sin_at(h, D, j);
        const auto k = static_cast<std::size_t>(D);
        a += cs[k] * wc, b += sn[k] * ws;
        err += (std::abs(wc) + std::abs(ws)) * angle[k];
      }
      t[j] = 2 * eps_t * (std::abs(a) + std::abs(b)) + err;
    }
  }
}

/// Each failing run's diagnosis: a run that is a whole segment takes the segment's, the first kDiffDiagnosedRanges
/// others `alone`'s (the output's source, the run's start and positions), the rest none.
void diagnose_failing_runs(
    DumpDiff& diff, const std::vector<AxisPosition>& positions, const DumpSource& a, const DumpSource& b,
    const std::function<Message(const DumpSource&, long, const std::vector<AxisPosition>&)>& alone) {
  std::size_t diagnosed = 0;
  for (DiffRange& run : diff.ranges) {
    run.a_diagnosis = run.b_diagnosis = Message();
    if (run.a_right && run.b_right) continue;
    // The segment that starts where the run does (segments in order of their starts: a binary search, not a pass
    // over every segment for every run, which made 10^5 packed sequences take 102 s).
    auto whole = std::lower_bound(diff.segments.begin(), diff.segments.end(), run.start,
                                  [](const DiffSegment& g, long start) { return g.segment().start < start; });
    if (whole != diff.segments.end() && whole->segment().length != run.length) whole = diff.segments.end();
    if (whole != diff.segments.end() && (run.a_right || whole->a.diagnosed()) &&
        (run.b_right || whole->b.diagnosed())) {
      if (!run.a_right) run.a_diagnosis = whole->a.report->diagnosis.message;
      if (!run.b_right) run.b_diagnosis = whole->b.report->diagnosis.message;
      continue;
    }
    if (diagnosed++ >= kDiffDiagnosedRanges) continue;
    const std::vector<AxisPosition> at(positions.begin() + run.start, positions.begin() + run.start + run.length);
    if (!run.a_right) run.a_diagnosis = alone(a, run.start, at);
    if (!run.b_right) run.b_diagnosis = alone(b, run.start, at);
  }
}

}  // namespace

OutputAgreement compare_outputs(const DumpVectors& before, const DumpVectors& a, const DumpVectors& b,
                                const std::vector<AxisPosition>& positions, const RopeExpectation& e) {
  require_same(before, a);
  require_same(before, b);
  return compare_outputs(memory_reader(before, a, b),
                         {before.seq, before.groups(), before.heads, before.d, a.dtype, b.dtype}, positions, e);
}

OutputAgreement compare_outputs(const DiffReader& read, const DiffGeometry& shape,
                                const std::vector<AxisPosition>& positions, const RopeExpectation& e) {
  if (static_cast<long>(positions.size()) != shape.seq) {
    throw InvalidArgument(error_msg("{0} positions for a dump of {1} sequence positions", positions.size(), shape.seq));
  }
  const int d = shape.d, r = e.rotary_dim(), off = e.rope.rotary_offset;
  if (r + off > d || r < 2)
    throw InvalidArgument(error_msg("the rotary dimension {0} does not fit in the dump's d = {1}", r, d));
  const double eps_t = std::max(epsilon(shape.a_type), epsilon(shape.b_type));
  // (C2) of the looser type: each output's angles as its own type computes them, the larger error bounds both.
  const AngleModel model =
      e.angles.value_or(epsilon(shape.a_type) >= epsilon(shape.b_type) ? default_angle_model(shape.a_type)
                                                                       : default_angle_model(shape.b_type));
  const double eps_a = angle_epsilon(model);
  const Eigen::VectorXd c_i = angle_error_factors(model, e.theta(), e.base(), r);
  std::vector<int> pair_of(static_cast<std::size_t>(d), -1);  // channel -> pair
  std::vector<int> partner(static_cast<std::size_t>(d), -1);
  for (int i = 0; i < r / 2; ++i) {
    auto [pa, pb] = pair_channels(e, i, false);  // the layout's pairs (inside each axis's block for (V6))
    pa -= off, pb -= off;
    pair_of[static_cast<std::size_t>(pa + off)] = pair_of[static_cast<std::size_t>(pb + off)] = i;
    partner[static_cast<std::size_t>(pa + off)] = pb + off, partner[static_cast<std::size_t>(pb + off)] = pa + off;
  }
  OutputAgreement out;
  out.position_ratio = Eigen::VectorXd::Zero(shape.seq);
  std::vector<double> term(static_cast<std::size_t>(r / 2));
  // FoPE (D2): group g on matrix (g mod heads) / (heads / matrices), as the check's kernel (query heads grouped on
  // their key-value heads).
  std::vector<double> fope;
  const long fope_heads = shape.heads > 0 ? shape.heads : shape.groups;
  const long per_matrix = e.fope ? std::max(1L, fope_heads / e.fope->heads) : 1;
  const long block = block_positions_for(shape.groups, d, kDiffBlockElements);
  for (long s0 = 0; s0 < shape.seq; s0 += block) {
    const long s1 = std::min(shape.seq, s0 + block);
    const std::array<DumpVectors, 3> v = read(s0, s1);
    for (const DumpVectors& w : v) {
      if (w.seq != s1 - s0 || w.groups() != shape.groups || w.d != d) {
        throw InvalidArgument(
            error_msg("an output has {0} × {1} × {2} vectors, the input {3} × {4} × {5}: they must be equal", w.seq,
                      w.groups(), w.d, s1 - s0, shape.groups, d));
      }
    }
    for (long s = s0; s < s1; ++s) {
      const double m = positions[static_cast<std::size_t>(s)].max_abs();
      for (int i = 0; i < r / 2; ++i)
        term[static_cast<std::size_t>(i)] = 2 * eps_t + eps_a * (1 + c_i[i] * m * e.theta()[i]);
      if (e.fope) fope_terms(e, positions[static_cast<std::size_t>(s)][0], eps_t, eps_a, c_i, fope);
      double worst = 0;
      for (long g = 0; g < shape.groups; ++g) {
        if (e.fope) {
          const long matrix = std::min(e.fope->heads - 1, (g % fope_heads) / per_matrix);
          std::copy_n(fope.begin() + matrix * (r / 2), r / 2, term.begin());
        }
        const double* x = v[0].vector(s - s0, g);
        const double* ya = v[1].vector(s - s0, g);
        const double* yb = v[2].vector(s - s0, g);
        for (int c = 0; c < d; ++c) {
          const int i = pair_of[static_cast<std::size_t>(c)];
          const double bound = i < 0 ? 2 * kToleranceSafety * eps_t * std::abs(x[c])
                                     : 2 * kToleranceSafety * e.attention_factor() *
                                           std::hypot(x[c], x[partner[static_cast<std::size_t>(c)]]) *
                                           term[static_cast<std::size_t>(i)];  // (D1)
          const double delta = std::abs(ya[c] - yb[c]);
          double ratio = bound > 0 ? delta / bound : (delta > 0 ? HUGE_VAL : 0.0);
          if (!std::isfinite(ya[c]) || !std::isfinite(yb[c]) || !std::isfinite(bound)) ratio = HUGE_VAL;  // as (C1)
          if (ratio > 1) ++out.differing;
          worst = std::max(worst, ratio);
        }
      }
      out.total += shape.groups * d;
      out.position_ratio[s] = worst;
      out.max_ratio = std::max(out.max_ratio, worst);
    }
  }
  return out;
}

DumpDiff diff_dumps(const DumpVectors& before, const DumpVectors& a, const DumpVectors& b,
                    const std::vector<AxisPosition>& positions, const RopeExpectation& e) {
  require_same(before, a);
  require_same(before, b);
  const MemorySource source_a(before, a), source_b(before, b);
  return diff_sources(source_a, source_b, memory_reader(before, a, b), positions, e);
}

DumpDiff diff_sources(const DumpSource& source_a, const DumpSource& source_b, const DiffReader& read,
                      const std::vector<AxisPosition>& positions, const RopeExpectation& e,
                      const std::vector<DumpSegment>& segments, bool rows) {
  if (source_a.seq() != source_b.seq() || source_a.groups() != source_b.groups() || source_a.d() != source_b.d()) {
    throw InvalidArgument(
        error_msg("an output has {0} × {1} × {2} vectors, the input {3} × {4} × {5}: they must be equal",
                  source_b.seq(), source_b.groups(), source_b.d(), source_a.seq(), source_a.groups(), source_a.d()));
  }
  DumpDiff diff;
  // Each side against the reference first: a dump the expectation does not fit (FoPE's heads, …) is refused as the
  // check refuses it.
  diff.a = check_source(source_a, 0, positions, e);
  diff.b = check_source(source_b, 0, positions, e);
  diff.between = compare_outputs(
      read, {source_a.seq(), source_a.groups(), source_a.heads(), source_a.d(), source_a.dtype(), source_b.dtype()},
      positions, e);
  const Eigen::VectorXd& ra = diff.a.comparison.position_ratio;
  const Eigen::VectorXd& rb = diff.b.comparison.position_ratio;
  const Eigen::VectorXd& rab = diff.between.position_ratio;
  if (segments.size() > 1) {
    SegmentChecks sa = check_segments(source_a, positions, e, segments, diff.a.comparison);
    SegmentChecks sb = check_segments(source_b, positions, e, segments, diff.b.comparison);
    if (rows) diagnose_rows(diff.a, segments, sa, positions), diagnose_rows(diff.b, segments, sb, positions);
    diff.segment_count = static_cast<long>(segments.size());
    for (std::size_t k = 0; k < segments.size(); ++k) {
      const auto index = static_cast<long>(k);
      const SegmentCheck* a = sa.find(index);
      const SegmentCheck* b = sb.find(index);
      // Kept: the first kListedSegments and those either side diagnosed; every one counted.
      if (a == nullptr && b == nullptr) {
        const bool fails = !segment_verdict(segments[k], index, diff.a.comparison).passed() ||
                           !segment_verdict(segments[k], index, diff.b.comparison).passed();
        diff.failing_segment_count += fails ? 1 : 0;
        continue;
      }
      DiffSegment g{a ? *a : segment_verdict(segments[k], index, diff.a.comparison),
                    b ? *b : segment_verdict(segments[k], index, diff.b.comparison)};
      for (long s = segments[k].start; s < segments[k].start + segments[k].length; ++s) {
        g.between_ratio = std::max(g.between_ratio, rab[s]);
        if (!(rab[s] <= 1)) ++g.differing_positions;
      }
      diff.failing_segment_count += g.a.passed() && g.b.passed() ? 0 : 1;
      diff.segments.push_back(std::move(g));
    }
  }
  std::vector<bool> segment_start(static_cast<std::size_t>(source_a.seq()), false);
  if (segments.size() > 1) {
    for (const DumpSegment& g : segments) segment_start[static_cast<std::size_t>(g.start)] = true;
  }
  // The runs: every one counted, the first kListedDiffRuns kept (`run` is the current one, kept or not).
  DiffRange run;
  for (long s = 0; s < source_a.seq(); ++s) {
    const bool a_right = ra[s] <= 1, b_right = rb[s] <= 1, agree = rab[s] <= 1;
    if (diff.range_count == 0 || segment_start[static_cast<std::size_t>(s)] || run.a_right != a_right ||
        run.b_right != b_right || run.agree != agree) {
      if (diff.range_count > 0 && diff.ranges.size() < kListedDiffRuns) diff.ranges.push_back(run);
      ++diff.range_count;
      run = DiffRange();
      run.start = s, run.a_right = a_right, run.b_right = b_right, run.agree = agree;
    }
    ++run.length;
    run.a_ratio = std::max(run.a_ratio, ra[s]);
    run.b_ratio = std::max(run.b_ratio, rb[s]);
    run.between_ratio = std::max(run.between_ratio, rab[s]);
  }
  if (diff.range_count > 0 && diff.ranges.size() < kListedDiffRuns) diff.ranges.push_back(run);
  // A failing run alone: its own diagnosis (what that implementation does there); a run that is a whole segment, the
  // segment's.
  diagnose_failing_runs(diff, positions, source_a, source_b,
                        [&](const DumpSource& source, long start, const std::vector<AxisPosition>& at) {
                          return check_source(source, start, at, e).diagnosis.message;
                        });
  return diff;
}

void diagnose_no_rope_diff(DumpDiff& diff, const DumpSource& a, const DumpSource& b,
                           const std::vector<AxisPosition>& positions, const RopeExpectation& unchanged,
                           const std::optional<RopeExpectation>& rope, const std::string& model,
                           const std::string& layer_type, const std::string& layers) {
  diagnose_no_rope(diff.a, a, positions, rope, model, layer_type, layers);
  diagnose_no_rope(diff.b, b, positions, rope, model, layer_type, layers);
  for (DiffSegment& g : diff.segments) {
    const DumpSegment& seg = g.segment();
    const std::vector<AxisPosition> at(positions.begin() + seg.start, positions.begin() + seg.start + seg.length);
    if (g.a.diagnosed()) diagnose_no_rope(*g.a.report, a, at, rope, model, layer_type, layers, seg.start);
    if (g.b.diagnosed()) diagnose_no_rope(*g.b.report, b, at, rope, model, layer_type, layers, seg.start);
  }
  // Each failing run on its own: the run checked alone against `unchanged`, then what rotated it.
  diagnose_failing_runs(diff, positions, a, b,
                        [&](const DumpSource& source, long start, const std::vector<AxisPosition>& at) {
                          CheckReport alone = check_source(source, start, at, unchanged);
                          diagnose_no_rope(alone, source, at, rope, model, layer_type, layers, start);
                          return alone.diagnosis.message;
                        });
}

}  // namespace rope
