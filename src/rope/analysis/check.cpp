#include "rope/analysis/check.hpp"

#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "rope/analysis/precision.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"

namespace rope {
namespace {

Eigen::VectorXd default_theta(double base, int rotary_dim) {
  Eigen::VectorXd t(rotary_dim / 2);
  for (int i = 0; i < rotary_dim / 2; ++i) t[i] = std::pow(base, -2.0 * i / rotary_dim);
  return t;
}

/// "63" or "(5, 5, 6)"; one number as before positions had axes ({:g}).
std::string position_text(const AxisPosition& p) { return p.multi() ? p.text() : fmt::format("{:g}", p.value[0]); }

std::string list_groups(const std::vector<long>& groups) {
  std::string s;
  for (std::size_t i = 0; i < groups.size() && i < 12; ++i) s += (i ? ", " : "") + std::to_string(groups[i]);
  return groups.size() > 12 ? s + ", …" : s;
}

}  // namespace

const char* to_string(VariantKind kind) {
  switch (kind) {
    case VariantKind::Expected: return "expected";
    case VariantKind::LayoutSwapped: return "layout-swapped";
    case VariantKind::Base10000: return "base-10000";
    case VariantKind::ScalingIgnored: return "scaling-ignored";
    case VariantKind::FactorMissing: return "attention-factor-missing";
    case VariantKind::PositionsPlusOne: return "positions-plus-one";
    case VariantKind::PositionsMinusOne: return "positions-minus-one";
    case VariantKind::PartialWholeHead: return "partial-rotary-whole-head";
    case VariantKind::PartialTwice: return "partial-rotary-twice";
    case VariantKind::AnglesBf16: return "angles-bf16";
    case VariantKind::AnglesF16: return "angles-f16";
    case VariantKind::SectionsChunked: return "mrope-chunked";
    case VariantKind::SectionsInterleaved: return "mrope-interleaved";
    case VariantKind::MropeIgnored: return "mrope-ignored";
  }
  return "?";
}

std::vector<Variant> check_variants(const RopeExpectation& e) {
  std::vector<Variant> v;
  const int r = e.rotary_dim();
  auto add = [&](VariantKind kind, RopeExpectation spec, double offset = 0, std::optional<DType> angles = std::nullopt) {
    v.push_back({kind, std::move(spec), offset, angles});
  };
  RopeExpectation s = e;
  RopeExpectation at_zero = e;  // the partial-rotary variants rotate from channel 0
  at_zero.rotary_offset = 0;
  s.layout = e.layout == Layout::Half ? Layout::Interleaved : Layout::Half;
  add(VariantKind::LayoutSwapped, s);
  if (e.base != kDefaultBase) {
    s = e;
    s.theta = default_theta(kDefaultBase, r);
    add(VariantKind::Base10000, s);
  }
  if (e.scaled || e.attention_factor != 1.0) {
    s = e;
    s.theta = default_theta(e.base, r);
    s.attention_factor = 1.0;
    add(VariantKind::ScalingIgnored, s);
  }
  if (e.attention_factor != 1.0) {
    s = e;
    s.attention_factor = 1.0;
    add(VariantKind::FactorMissing, s);
  }
  add(VariantKind::PositionsPlusOne, e, 1.0);
  add(VariantKind::PositionsMinusOne, e, -1.0);
  if (e.axes) {
    // M-RoPE's own ways to go wrong: HF's other section order (the same sections, where they fit it), and
    // the multimodal branch never reached, image tokens rotated by their 1-D index in the sequence.
    const SectionOrder order = e.axes->source.order;
    if (order == SectionOrder::Chunked || order == SectionOrder::Interleaved) {
      const SectionOrder other = order == SectionOrder::Chunked ? SectionOrder::Interleaved : SectionOrder::Chunked;
      try {
        s = e;
        s.axes = make_axis_map({e.axes->source.sections, other}, r / 2);
        add(other == SectionOrder::Chunked ? VariantKind::SectionsChunked : VariantKind::SectionsInterleaved, s);
      } catch (const InvalidArgument&) {
        // the sections do not fit the other order: no such variant
      }
    }
    if (!e.axes->vision()) {
      s = e;
      s.axes.reset();
      v.push_back({VariantKind::MropeIgnored, s, 0, std::nullopt, true});
    }
    add(VariantKind::AnglesBf16, e, 0.0, DType::BF16);
    add(VariantKind::AnglesF16, e, 0.0, DType::F16);
    return v;  // M-RoPE models and vision towers rotate the whole head: no partial-rotary variants
  }
  if (r < e.head_dim) {
    s = at_zero;
    s.theta = default_theta(e.base, e.head_dim);
    add(VariantKind::PartialWholeHead, s);
    const int twice = 2 * static_cast<int>(static_cast<double>(r) * r / e.head_dim / 2.0);
    if (twice >= 2 && twice < r) {
      s = at_zero;
      s.theta = default_theta(e.base, twice);
      add(VariantKind::PartialTwice, s);
    }
  }
  add(VariantKind::AnglesBf16, e, 0.0, DType::BF16);
  add(VariantKind::AnglesF16, e, 0.0, DType::F16);
  return v;
}

DumpComparison compare_dump(const DumpVectors& before, const DumpVectors& after, const std::vector<AxisPosition>& positions,
                            const Variant& variant) {
  if (before.seq != after.seq || before.groups() != after.groups() || before.d != after.d) {
    throw InvalidArgument(error_msg("the dumps before and after differ in shape: {0} × {1} × {2} against {3} × {4} × {5}",
                                      before.seq, before.groups(), before.d, after.seq, after.groups(), after.d));
  }
  if (static_cast<long>(positions.size()) != before.seq) {
    throw InvalidArgument(error_msg("{0} positions for a dump of {1} sequence positions", positions.size(), before.seq));
  }
  const RopeExpectation& spec = variant.spec;
  const int d = before.d, r = spec.rotary_dim(), half = r / 2, off = spec.rotary_offset;
  if (r + off > d || r < 2 || off < 0) {
    throw InvalidArgument(error_msg("the rotary dimension {0} does not fit in the dump's d = {1}", r, d));
  }
  const double eps_t = epsilon(after.dtype);
  const AngleModel model = spec.angles.value_or(default_angle_model(after.dtype));
  const double eps_a = angle_epsilon(model);
  const Eigen::VectorXd c_i = angle_error_factors(model, spec.theta, spec.base, spec.rotary_dim());  // (C2)
  const double a = spec.attention_factor;
  DumpComparison c;
  c.position_ratio = Eigen::VectorXd::Zero(before.seq);
  c.channel_ratio = Eigen::VectorXd::Zero(d);
  c.group_failing.assign(static_cast<std::size_t>(before.groups()), 0);
  std::vector<int> ca(static_cast<std::size_t>(half)), cb(static_cast<std::size_t>(half));
  std::vector<char> rotated(static_cast<std::size_t>(d), 0);
  for (int i = 0; i < half; ++i) {
    const auto [pa, pb] = pair_channels(r, i, spec.layout);
    ca[i] = pa + off, cb[i] = pb + off;
    rotated[ca[i]] = rotated[cb[i]] = 1;
  }
  Eigen::VectorXd cs(half), sn(half), angle_term(half);
  const auto record = [&](long s, long g, int ch, double expected, double got, double tol) {
    ++c.total;
    const double diff = std::abs(got - expected);
    const bool ok = std::isfinite(diff) && std::isfinite(tol) && diff <= tol;  // an infinite tolerance checks nothing
    const double ratio = !std::isfinite(diff) || !std::isfinite(tol) ? INFINITY : diff == 0 ? 0.0 : tol == 0 ? INFINITY : diff / tol;
    c.max_ratio = std::max(c.max_ratio, ratio);
    c.position_ratio[s] = std::max(c.position_ratio[s], ratio);
    c.channel_ratio[ch] = std::max(c.channel_ratio[ch], ratio);
    if (ok) return;
    ++c.failing;
    ++c.group_failing[static_cast<std::size_t>(g)];
    if (c.first_seq < 0) {
      c.first_seq = s, c.first_group = g, c.first_channel = ch;
      c.first_expected = expected, c.first_got = got, c.first_tolerance = tol;
    }
  };
  const AxisMap* map = spec.axes ? &*spec.axes : nullptr;
  if (map && map->pair_axis.size() != static_cast<std::size_t>(half)) {
    throw InvalidArgument(fmt::format("the axis map has {} pairs but the rotary dimension {} has {}", map->pair_axis.size(), r, half));
  }
  Eigen::VectorXd m_of(half);  // the position each pair turns by: p_a(i) (A1), or the one number m
  for (long s = 0; s < before.seq; ++s) {
    // MropeIgnored: 1-D positions, the index in the whole sequence: the first row's (its t) plus s.
    AxisPosition p = variant.sequence_index && !positions.empty()
                         ? AxisPosition::single(positions.front()[0] + static_cast<double>(s))
                         : positions[static_cast<std::size_t>(s)];
    for (int k = 0; k < p.count; ++k) p.value[static_cast<std::size_t>(k)] += variant.position_offset;
    (void)axis_angles(spec.theta, map, p);  // throws: a position of several components without axes, or of the wrong count
    // (A1), (V1): pair i turns by θ_i·(p_a(i) + o), o a vision tower's offset (0 for M-RoPE).
    const double o = map ? map->position_offset : 0.0;
    for (int i = 0; i < half; ++i) m_of[i] = (map ? axis_component(*map, p, map->pair_axis[static_cast<std::size_t>(i)]) : p[0]) + o;
    Eigen::VectorXd phi(half);
    if (variant.angle_type) {
      // m and θ cast to the type, m·θ in it: per distinct position, each pair taking its own axis's.
      const CurveSpec curve{*variant.angle_type, Strategy::CastInputs};
      std::vector<char> done(static_cast<std::size_t>(half), 0);
      for (int j = 0; j < half; ++j) {
        if (done[static_cast<std::size_t>(j)]) continue;
        const Eigen::VectorXd at = computed_angles(curve, spec.theta, m_of[j]);
        for (int i = j; i < half; ++i) {
          if (m_of[i] == m_of[j]) phi[i] = at[i], done[static_cast<std::size_t>(i)] = 1;
        }
      }
    } else {
      phi = m_of.cwiseProduct(spec.theta);
    }
    for (int i = 0; i < half; ++i) {
      cs[i] = std::cos(phi[i]);
      sn[i] = std::sin(phi[i]);
      angle_term[i] = 2 * eps_t + eps_a * (1 + c_i[i] * std::abs(m_of[i]) * spec.theta[i]);
    }
    for (long g = 0; g < before.groups(); ++g) {
      const double* x = before.vector(s, g);
      const double* y = after.vector(s, g);
      for (int i = 0; i < half; ++i) {
        const double xa = x[ca[i]], xb = x[cb[i]];
        const double tol = kToleranceSafety * a * std::hypot(xa, xb) * angle_term[i];  // (C1)
        record(s, g, ca[i], a * (xa * cs[i] - xb * sn[i]), y[ca[i]], tol);
        record(s, g, cb[i], a * (xa * sn[i] + xb * cs[i]), y[cb[i]], tol);
      }
      for (int ch = 0; ch < d; ++ch) {
        if (!rotated[ch]) record(s, g, ch, x[ch], y[ch], kToleranceSafety * eps_t * std::abs(x[ch]));
      }
    }
  }
  return c;
}

CheckReport check_dump(const DumpVectors& before, const DumpVectors& after, const std::vector<double>& positions,
                       const RopeExpectation& expected) {
  std::vector<AxisPosition> single;
  single.reserve(positions.size());
  for (const double p : positions) single.push_back(AxisPosition::single(p));
  return check_dump(before, after, single, expected);
}

CheckReport check_dump(const DumpVectors& before, const DumpVectors& after, const std::vector<AxisPosition>& positions,
                       const RopeExpectation& expected) {
  CheckReport report;
  report.expected = expected;
  report.only_position_zero = true;
  for (const AxisPosition& p : positions) report.only_position_zero = report.only_position_zero && p.max_abs() == 0;
  report.comparison = compare_dump(before, after, positions, Variant{VariantKind::Expected, expected, 0, std::nullopt});
  const DumpComparison& e = report.comparison;
  if (e.passed()) return report;
  CheckDiagnosis& dg = report.diagnosis;
  if (e.first_seq > 0) {
    bool moved = false;
    for (long s = 0; s < e.first_seq; ++s) moved = moved || positions[static_cast<std::size_t>(s)].max_abs() != 0;
    if (moved) dg.correct_until = e.first_seq;
  }
  const std::vector<Variant> variants = check_variants(expected);
  report.variants.reserve(variants.size());  // `closest` is an index: no pointer into a growing vector
  std::size_t closest = 0;
  for (const Variant& v : variants) {
    report.variants.emplace_back(v.kind, compare_dump(before, after, positions, v));
    const DumpComparison& c = report.variants.back().second;
    if (c.passed() && !dg.matches) dg.matches = v.kind;
    if (c.failing < report.variants[closest].second.failing) closest = report.variants.size() - 1;
    if (v.kind == VariantKind::LayoutSwapped && !c.passed()) {
      // Some groups right, the others right in the other layout: a q/k permutation wrong on some heads.
      std::vector<long> swapped;
      bool rest_expected = true;
      for (long g = 0; g < before.groups(); ++g) {
        const auto gi = static_cast<std::size_t>(g);
        if (e.group_failing[gi] == 0) continue;
        if (c.group_failing[gi] == 0) swapped.push_back(g);
        else rest_expected = false;
      }
      if (rest_expected && !swapped.empty() && static_cast<long>(swapped.size()) < before.groups()) dg.swapped_groups = swapped;
    }
  }
  const VariantKind closest_kind = report.variants[closest].first;
  const DumpComparison& nearest = report.variants[closest].second;
  const std::string layout = std::string(to_string(expected.layout));
  const std::string other = expected.layout == Layout::Half ? "interleaved" : "half";
  const std::string base = fmt::format("{:g}", expected.base);
  const std::string factor = fmt::format("{:.6g}", expected.attention_factor);
  if (!dg.swapped_groups.empty()) {
    const std::string heads = list_groups(dg.swapped_groups);
    dg.message = {msg("heads {0} match the {1} layout while the others match {2}: the q/k permutation is wrong on "
                              "some heads (GQA: permuted with the wrong number of heads?)", heads, other, layout)};
    return report;
  }
  if (!dg.matches) {
    if (dg.correct_until) {
      const std::string p = position_text(positions[static_cast<std::size_t>(*dg.correct_until - 1)]);
      dg.message = {msg("correct until position {0}, then drifts; no known variant explains it (closest: {1})", p,
                                to_string(closest_kind))};
    } else {
      dg.message = {msg("no known variant explains the dump (closest: {0}, {1} of {2} elements off)", to_string(closest_kind), nearest.failing, nearest.total)};
    }
    return report;
  }
  const int r = expected.rotary_dim();
  switch (*dg.matches) {
    case VariantKind::LayoutSwapped:
      dg.message = {msg("matches the {0} layout; the spec implies {1}", other, layout)};
      break;
    case VariantKind::Base10000:
      dg.message = {msg("matches base 10000, not {0}: is rope_theta read?", base)};
      break;
    case VariantKind::ScalingIgnored:
      dg.message = {msg("matches plain RoPE with base {0} and no attention factor: the scaling is not applied", base)};
      break;
    case VariantKind::FactorMissing:
      dg.message = {msg("the attention factor {0} is missing (the dump matches a factor of 1)", factor)};
      break;
    case VariantKind::PositionsPlusOne:
    case VariantKind::PositionsMinusOne: {
      const char* sign = *dg.matches == VariantKind::PositionsPlusOne ? "+1" : "-1";
      dg.message = {msg("matches positions shifted by {0}: positions off by one", sign)};
      break;
    }
    case VariantKind::PartialWholeHead:
      dg.message = {msg("matches RoPE over the whole head (d = {0}): the partial rotary dimension {1} is ignored", expected.head_dim, r)};
      break;
    case VariantKind::PartialTwice:
      dg.message = {msg("matches a rotary dimension of {0} instead of {1}: the partial rotary factor is applied twice", 2 * static_cast<int>(static_cast<double>(r) * r / expected.head_dim / 2.0), r)};
      break;
    case VariantKind::AnglesBf16:
    case VariantKind::AnglesF16: {
      const char* type = *dg.matches == VariantKind::AnglesBf16 ? "bf16" : "f16";
      if (dg.correct_until) {
        const std::string p = position_text(positions[static_cast<std::size_t>(*dg.correct_until - 1)]);
        dg.message = {msg("correct until position {0}, then drifts: angles computed in {1}? (the dump matches "
                                  "positions and frequencies cast to {2} before m·θ)", p, type, type)};
      } else {
        dg.message = {msg("matches angles computed in {0}: positions and frequencies cast to {1} before m·θ", type, type)};
      }
      break;
    }
    case VariantKind::SectionsChunked:
    case VariantKind::SectionsInterleaved: {
      const bool chunked = *dg.matches == VariantKind::SectionsChunked;
      const std::string sections = fmt::format("{}", fmt::join(expected.axes->source.sections, ", "));
      dg.message = chunked ? msg("matches mrope_section [{0}] in chunks, the model's code interleaves them: the axis map is "
                                 "the other implementation's (docs/multi-axis.md (A2), (A3))",
                                 sections)
                           : msg("matches mrope_section [{0}] interleaved, the model's code chunks them: the axis map is "
                                 "the other implementation's (docs/multi-axis.md (A2), (A3))",
                                 sections);
      break;
    }
    case VariantKind::MropeIgnored:
      dg.message = {msg("matches plain RoPE at each token's index in the sequence: the M-RoPE branch is never reached "
                    "(1-D positions; a config whose rope_type is default beside mrope_section?)")};
      break;
    case VariantKind::Expected: break;
  }
  return report;
}

}  // namespace rope
