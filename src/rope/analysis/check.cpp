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

/// The pairs llama.cpp's IMROPE feeds from its fourth position slot (e) for sections (s_t, s_h, s_w): pair j is h when
/// j mod 3 = 1 and j < 3·s_h, w when j mod 3 = 2 and j < 3·s_w, t when j mod 3 = 0 and j < 3·s_t, else e
/// (ggml/src/ggml-cpu/ops.cpp, rope_yarn_cache_init's IMROPE branch, ggml-org/llama.cpp de3ff815ea7d). Hugging Face's
/// interleaved map (A3) gives those pairs to t, so a llama.cpp text token (p, p, p, 0) leaves them unrotated.
std::vector<int> imrope_e_pairs(const std::vector<int>& sections, int pairs) {
  std::vector<int> out;
  const auto sec = [&](std::size_t k) { return k < sections.size() ? sections[k] : 0; };
  for (int j = 0; j < pairs; ++j) {
    const bool h = j % 3 == 1 && j < 3 * sec(1), w = j % 3 == 2 && j < 3 * sec(2), t = j % 3 == 0 && j < 3 * sec(0);
    if (!h && !w && !t) out.push_back(j);
  }
  return out;
}

}  // namespace

std::vector<int> llama_cpp_unrotated_pairs(const RopeExpectation& e) {
  if (!e.axes || e.axes->source.order != SectionOrder::Interleaved) return {};
  return imrope_e_pairs(e.axes->source.sections, e.rotary_dim() / 2);
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
  if (e.yarn_factor > 1) {
    // YaRN run without ext_factor (llama.cpp's yarn_ext_factor 0): ggml's rope_yarn then interpolates every pair
    // linearly, θ_i/f, and leaves out its magnitude 1 + 0.1·ln f (ggml/src/ggml-cpu/ops.cpp rope_yarn).
    s = e;
    s.theta = default_theta(e.base, r) / e.yarn_factor;
    s.attention_factor = 1.0;
    add(VariantKind::YarnWithoutExtFactor, s);
  }
  if (e.longrope_other) {
    s = e;
    s.theta = e.longrope_other->theta;
    add(VariantKind::LongRopeOtherList, s);
  }
  if (const std::vector<int> unrotated = llama_cpp_unrotated_pairs(e); !unrotated.empty()) {
    s = e;
    for (const int j : unrotated) s.theta[j] = 0;
    add(VariantKind::EslotUnrotated, s);
  }
  {
    // Nothing turned: the dump "before" was read after an in-place RoPE had rotated it, or RoPE never ran.
    s = e;
    s.theta = Eigen::VectorXd::Zero(e.theta.size());
    s.attention_factor = 1.0;
    add(VariantKind::BeforeEqualsAfter, s);
  }
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
  if (r == e.head_dim && r % 4 == 0 && e.rotary_offset == 0) {
    // A model that rotates the whole head, run with n_dims = d/2 (llama.cpp's rope.dimension_count halved).
    s = e;
    s.theta = default_theta(e.base, r / 2);
    add(VariantKind::RotaryDimHalved, s);
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

}  // namespace rope
