#include "rope/analysis/check.hpp"

#include <cmath>
#include <tuple>
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

}  // namespace

std::pair<int, int> pair_channels(const RopeExpectation& e, int i, bool output) {
  const int r = e.rotary_dim();
  const bool deinterleaved = output && e.deinterleaved_output && e.layout == Layout::Interleaved;
  const auto [a, b] = pair_channels(r, i, deinterleaved ? Layout::Half : e.layout);
  return {a + e.rotary_offset, b + e.rotary_offset};
}

std::vector<Variant> check_variants(const RopeExpectation& e) {
  std::vector<Variant> v;
  const int r = e.rotary_dim();
  auto add = [&](VariantKind kind, RopeExpectation spec, double offset = 0, std::optional<DType> angles = std::nullopt) {
    Variant x;
    x.kind = kind, x.spec = std::move(spec), x.position_offset = offset, x.angle_type = angles;
    v.push_back(std::move(x));
  };
  RopeExpectation s = e;
  RopeExpectation at_zero = e;  // the partial-rotary variants rotate from channel 0
  at_zero.rotary_offset = 0;
  s.layout = e.layout == Layout::Half ? Layout::Interleaved : Layout::Half;
  s.deinterleaved_output = false;  // the other layout, read and written in place
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
      Variant x;
      x.kind = VariantKind::MropeIgnored, x.spec = s, x.sequence_index = true;
      v.push_back(std::move(x));
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
  const DType type = variant.dump_type ? *variant.dump_type : after.dtype;
  const double eps_t = epsilon(type);
  const AngleModel model = spec.angles.value_or(default_angle_model(type));
  const double eps_a = angle_epsilon(model);
  const Eigen::VectorXd c_i = angle_error_factors(model, spec.theta, spec.base, spec.rotary_dim());  // (C2)
  const double a = spec.attention_factor;
  DumpComparison c;
  c.position_ratio = Eigen::VectorXd::Zero(before.seq);
  c.channel_ratio = Eigen::VectorXd::Zero(d);
  c.group_failing.assign(static_cast<std::size_t>(before.groups()), 0);
  // Pair i is read at channels (ca, cb) and written at (oa, ob): the same, but for de-interleaved output.
  std::vector<int> ca(static_cast<std::size_t>(half)), cb(ca), oa(ca), ob(ca);
  std::vector<char> rotated(static_cast<std::size_t>(d), 0);
  for (int i = 0; i < half; ++i) {
    std::tie(ca[i], cb[i]) = pair_channels(spec, i, false);
    std::tie(oa[i], ob[i]) = pair_channels(spec, i, true);
    rotated[oa[i]] = rotated[ob[i]] = 1;
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
    for (auto r = variant.restarts.rbegin(); r != variant.restarts.rend(); ++r) {  // the last restart at or before s
      if (*r > s) continue;
      const AxisPosition& at = positions[static_cast<std::size_t>(*r)];
      for (int k = 0; k < p.count; ++k) p.value[static_cast<std::size_t>(k)] += positions.front()[k] - at[k];
      break;
    }
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
        const double tol = kToleranceSafety * a * std::hypot(xa, xb) * angle_term[i];  // (C1): the error model's tolerance
        record(s, g, oa[i], a * (xa * cs[i] - xb * sn[i]), y[oa[i]], tol);
        record(s, g, ob[i], a * (xa * sn[i] + xb * cs[i]), y[ob[i]], tol);
      }
      for (int ch = 0; ch < d; ++ch) {
        if (!rotated[ch]) record(s, g, ch, x[ch], y[ch], kToleranceSafety * eps_t * std::abs(x[ch]));
      }
    }
  }
  return c;
}

}  // namespace rope
