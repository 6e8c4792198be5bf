// The exact path of rope check (compare_exact.hpp), in the order a reader follows it: a variant's setup from the
// expectation, the position each index turns by, the position table, every element against (C1), the pair norms
// (N1), FoPE, the tallies into the verdict; compare_exact last, which runs them over a range. Compiled without FMA
// contraction and with sqrt free of errno, as the fast path is (src/CMakeLists.txt), so that both compute the same
// bits.
#include "rope/analysis/check/compare_exact.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

#include "rope/analysis/calculators/precision.hpp"
#include "rope/analysis/check/cos_sin_table.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "rope/models/fope_mix.hpp"

namespace rope {

double fast_math_shortfall() { return static_cast<double>(static_cast<float>(1.0 / kTwoPi)) * kTwoPi - 1.0; }

namespace exact_path {
namespace {

/// The smallest positive subnormal of a type: a product that underflows rounds by at most half of it.
double smallest_subnormal(DType type) {
  switch (type) {
    case DType::F16:
      return std::ldexp(1.0, -24);
    case DType::BF16:
      return std::ldexp(1.0, -133);
    case DType::F32:
      return std::ldexp(1.0, -149);
    default:
      return std::numeric_limits<double>::denorm_min();
  }
}

/// A bound on the absolute error of CUDA's fast sine and cosine (__sinf, __cosf) of a reduced angle: the CUDA C++
/// Programming Guide's table (Mathematical Functions, Intrinsic Functions) gives 2^-21.41 for x in [−π, π], as NVIDIA's
/// developer forums quote it ("__device__ and __host__ qualifiers in same function"); 2^-20 here, above it with room.
const double kFastUnitError = std::ldexp(1.0, -20);

/// A table value v (a cos or a sin) rounded to `type`; adds to *steps one step of the type at v where v ± bound rounds
/// elsewhere (the element then differs by at most |x_a|·step + |x_b|·step ≤ ‖x‖·Σ steps).
double table_value(DType type, double v, double bound, double* steps) {
  const double r = round_to(type, v);
  if (round_to(type, v - bound) != r || round_to(type, v + bound) != r) {
    int e = 0;
    std::frexp(std::max(std::abs(v) + bound, std::numeric_limits<double>::min()), &e);
    *steps += std::ldexp(epsilon(type), e - 1);
  }
  return r;
}

/// |got − expected| against tol: the ratio (an infinite tolerance checks nothing), counted as failing.
inline double judge(Tally& t, long s, long g, int rank, int ch, double expected, double got, double tol) {
  const double diff = std::abs(got - expected);
  if (diff <= tol && tol < INFINITY) return tol > 0 ? diff / tol : 0.0;  // within: diff = 0 when tol = 0
  const double ratio = !std::isfinite(diff) || !std::isfinite(tol) ? INFINITY
                       : diff == 0                                 ? 0.0
                       : tol == 0                                  ? INFINITY
                                                                   : diff / tol;
  t.fail(s, g, rank, ch, expected, got, tol);
  return ratio;
}

}  // namespace

Setup make_setup(const Variant& variant, const BlockShape& shape) {
  const RopeExpectation& spec = variant.spec;
  Setup u;
  u.variant = &variant;
  const int d = shape.d, r = spec.rotary_dim(), off = spec.rope.rotary_offset;
  if (r + off > d || r < 2 || off < 0) {
    throw InvalidArgument(error_msg("the rotary dimension {0} does not fit in the dump's d = {1}", r, d));
  }
  u.d = d, u.half = r / 2;
  const DType type = variant.dump_type ? *variant.dump_type : shape.dtype;
  u.eps_t = epsilon(type);
  const AngleModel model = spec.angles.value_or(default_angle_model(type));
  u.eps_a = angle_epsilon(model);
  if (spec.table) u.eps_a = epsilon(spec.table->type);  // (T1): the table's rounding in place of the angle's
  u.c_i = angle_error_factors(model, spec.theta(), spec.base(), r);  // (C2)
  u.a = spec.attention_factor();
  u.norm_rel = 2 * (u.eps_t + u.eps_a);  // (N1)
  u.norm_floor = 4 * smallest_subnormal(type);
  std::vector<char> rotated(static_cast<std::size_t>(d), 0);
  if (variant.partner > 0 && off + u.half - 1 + variant.partner >= d) {
    throw InvalidArgument(error_msg("the rotary dimension {0} does not fit in the dump's d = {1}", r, d));
  }
  for (int i = 0; i < u.half; ++i) {
    auto [pa, pb] = pair_channels(spec, i, false);
    auto [qa, qb] = pair_channels(spec, i, true);
    if (variant.partner > 0) pa = qa = off + i, pb = qb = off + i + variant.partner;  // PartialPairing
    u.ca.push_back(pa), u.cb.push_back(pb), u.oa.push_back(qa), u.ob.push_back(qb);
    rotated[static_cast<std::size_t>(qa)] = rotated[static_cast<std::size_t>(qb)] = 1;
  }
  for (int ch = 0; ch < d; ++ch) {
    if (!rotated[static_cast<std::size_t>(ch)]) u.unrotated.push_back(ch);
  }
  u.off = off;
  u.half_form = u.interleaved_form = true;
  for (int i = 0; i < u.half; ++i) {
    const auto k = static_cast<std::size_t>(i);
    const bool in_place = u.ca[k] == u.oa[k] && u.cb[k] == u.ob[k];
    u.half_form = u.half_form && in_place && u.ca[k] == off + i && u.cb[k] == off + u.half + i;
    u.interleaved_form = u.interleaved_form && in_place && u.ca[k] == off + 2 * i && u.cb[k] == off + 2 * i + 1;
  }
  if (spec.fope) {
    // (F4): query head q on matrix q / (heads / n), n the coefficients' matrices (the key-value heads, or 1).
    u.fope = spec.fope.get();
    u.fope_heads = shape.heads > 0 ? shape.heads : shape.groups;
    u.fope_matrix = spec.fope_matrix;
    if (u.fope->kept > u.half || (u.fope_matrix < 0 && u.fope_heads % u.fope->heads != 0)) {
      throw InvalidArgument(
          error_msg("FoPE: the dump's {0} heads are not a multiple of the model's {1} key-value "
                    "heads (or its {2} kept pairs exceed the {3} rotated pairs)",
                    u.fope_heads, u.fope->heads, u.fope->kept, u.half));
    }
    u.fope_per_matrix = u.fope_matrix >= 0 ? 1 : u.fope_heads / u.fope->heads;
    u.half_form = u.interleaved_form = false;  // each group its own cos and sin: the element path
  }
  u.map = spec.rope.axes ? &*spec.rope.axes : nullptr;
  if (u.map && u.map->pair_axis.size() != static_cast<std::size_t>(u.half)) {
    throw InvalidArgument(error_msg("the axis map has {0} pairs but the rotary dimension {1} has {2}",
                                    u.map->pair_axis.size(), r, u.half));
  }
  u.split = u.map && u.map->split();
  u.sin_second = u.split && u.map->sin_from_second;
  u.stride = u.split ? 2 * u.half : u.half;
  return u;
}

AxisPosition variant_position(const Variant& v, const std::vector<AxisPosition>& positions, long s) {
  // MropeIgnored: 1-D positions, the index in the whole sequence: the first row's (its t) plus s.
  AxisPosition p = v.sequence_index && !positions.empty()
                       ? AxisPosition::single(positions.front()[0] + static_cast<double>(s))
                       : positions[static_cast<std::size_t>(s)];
  // TableGatheredByIndex: a given table's row read at the token's index in its batch row, not at its position id.
  if (v.table_by_index)
    p = AxisPosition::single(static_cast<double>(v.spec.row_length > 0 ? s % v.spec.row_length : s));
  // SGLang's short batch at L0 (RopeExpectation::longrope_l0_unturned): its token at L0 reads the long list's row 0.
  if (v.spec.longrope_l0_unturned > 0 && p.count == 1 && p.value[0] == v.spec.longrope_l0_unturned) p.value[0] = 0;
  for (auto r = v.restarts.rbegin(); r != v.restarts.rend(); ++r) {  // the last restart at or before s
    if (*r > s) continue;
    const AxisPosition& at = positions[static_cast<std::size_t>(*r)];
    for (int k = 0; k < p.count; ++k) p.value[static_cast<std::size_t>(k)] += positions.front()[k] - at[k];
    break;
  }
  for (int k = 0; k < p.count; ++k) p.value[static_cast<std::size_t>(k)] += v.position_offset;
  if (v.cache_length > 0) {  // a cos/sin cache of cache_length rows: clamped to its last row, or wrapped
    const auto L = static_cast<double>(v.cache_length);
    for (int k = 0; k < p.count; ++k) {
      double& x = p.value[static_cast<std::size_t>(k)];
      x = v.cache_wraps ? x - L * std::floor(x / L) : std::min(x, L - 1);
    }
  }
  if (v.batch_axes && p.count >= 3) {
    // position_ids [3, B, S] read as [B, 3, S]: row b's component a is the flat row 3b + a of [3, B, S], that is
    // component (3b + a) / B of batch row (3b + a) mod B, at the same index of the row.
    const long B = v.spec.batch_rows, S = v.spec.row_length;
    const long b = s / S, i = s % S;
    for (int k = 0; k < 3; ++k) {
      const long flat = 3 * b + k;
      p.value[static_cast<std::size_t>(k)] =
          positions[static_cast<std::size_t>((flat % B) * S + i)][static_cast<int>(flat / B)] + v.position_offset;
    }
  }
  if (v.text_rows_as_axes && !p.multi() && v.spec.batch_rows >= 3 && v.spec.row_length > 0) {
    // Text position_ids [B, S] read as M-RoPE's [3, S]: index i of every row turns at (t, h, w) = rows 0, 1, 2 at i.
    const long S = v.spec.row_length, i = s % S;
    p.count = 3;
    for (int k = 0; k < 3; ++k)
      p.value[static_cast<std::size_t>(k)] = positions[static_cast<std::size_t>(k * S + i)][0] + v.position_offset;
  }
  if (v.text_rows > 0 || v.axis_offset != std::array<double, kMaxAxes>{}) {  // a joint sequence's text, the image
    for (int k = 0; k < p.count; ++k) {
      p.value[static_cast<std::size_t>(k)] +=
          s < v.text_rows ? v.text_offset : v.axis_offset[static_cast<std::size_t>(k)];
    }
  }
  if (v.t_for_all && p.multi()) {
    for (int k = 1; k < p.count; ++k) p.value[static_cast<std::size_t>(k)] = p.value[0];
  }
  if (v.axis_shift != 0 && p.count >= 3) {  // component a read from slot (a + shift) mod 3 (t, h, w)
    const AxisPosition q = p;
    for (int k = 0; k < 3; ++k)
      p.value[static_cast<std::size_t>(k)] = q.value[static_cast<std::size_t>((k + v.axis_shift) % 3)];
  }
  if (v.swap_hw && p.multi()) std::swap(p.value[height_component(p)], p.value[height_component(p) + 1]);
  return p;
}

double angle_bound(const Setup& u, int i, double m) {
  const RopeExpectation& spec = u.variant->spec;
  double bound = u.eps_a * (1 + u.c_i[i] * std::abs(m) * spec.theta()[i]);
  if (u.variant->angle_type && u.variant->angle_chain_units > 0) {  // a chain rounded step by step (check.hpp)
    bound += u.variant->angle_chain_units * epsilon(*u.variant->angle_type) * (std::abs(m) + 1) * spec.theta()[i];
  }
  if (u.variant->fast_math) {
    // AnglesFastMath: the float32 angle (this bound) falls short by |fast_math_shortfall()| of itself, its turns
    // x = φ·fl32(1/2π) round to float32 (at most ε_f32 of φ, truncated or not), and the unit errs by
    // kFastUnitError in cos and in sin.
    const double angle = std::abs(m) * spec.theta()[i];
    bound += (std::abs(fast_math_shortfall()) + epsilon(DType::F32)) * angle + 2 * kFastUnitError;
  }
  return bound;
}

double pair_term(const Setup& u, double bound, double steps, double scale) {
  return scale * (2 * u.eps_t + bound + steps / kToleranceSafety);
}

// The seam of a given cos/sin table (compare_exact.hpp): the rows below compute cos and sin of m·θ_i and the term of
// (C1) from the angle's error; a table the user gives (RopeExpectation::table) supplies cs, sn and its own term of
// (T1) at the position's row instead (cos_sin_table.hpp), and nothing else of the path changes.
void position_table(const Setup& u, const AxisPosition& p, double* cs, double* sn, double* term, double* scale) {
  const RopeExpectation& spec = u.variant->spec;
  if (spec.table) {
    const Variant& v = *u.variant;
    *scale = v.zero ? 0.0 : spec.query_scale(p[0]);
    table_position(*spec.table, p[0], u.eps_t, *scale, v.reversed != (spec.mode == CheckMode::Grad),
                   v.table_sin_missing, v.table_swapped, cs, sn, term);
    return;
  }
  // throws: a position of several components without axes, or of the wrong count
  check_axis_position(u.map, p, spec.theta().size());
  // (A1), (V1): pair i turns by θ_i·(p_a(i) + o), o a vision tower's offset (0 for M-RoPE); (A11): a split map's
  // second channel by θ_i·p_b(i).
  const double o = u.map ? u.map->position_offset : 0.0;
  // A query's scaling (S21) multiplies the whole vector: folded into cos, sin and the tolerance of the pairs,
  // and kept for the unrotated channels.
  // A zero variant expects 0 everywhere; a gradient (G1) turns by R(m)ᵀ = R(−m): sin's sign flipped (check_mode.hpp).
  *scale = u.variant->zero ? 0.0 : spec.query_scale(p[0]);
  const bool flipped = u.variant->reversed != (spec.mode == CheckMode::Grad);
  for (int part = 0; part < (u.split ? 2 : 1); ++part) {
    Eigen::VectorXd m(u.half), phi(u.half);
    for (int i = 0; i < u.half; ++i) {
      const auto j = static_cast<std::size_t>(i);
      if (!u.map) {
        m[i] = p[0] + o;
        continue;
      }
      // a latent grid's scale s_a of its axis ((G1), models/grid_rope.hpp); 1 for every other map
      const int a = part == 0 ? u.map->pair_axis[j] : u.map->second_axis[j];
      const double s = u.map->grid() ? u.map->scale[static_cast<std::size_t>(a)] : 1.0;
      m[i] = s * axis_component(*u.map, p, a) + o;
    }
    if (u.variant->angle_type) {
      // m and θ cast to the type, m·θ in it: per distinct position, each pair taking its own axis's.
      const CurveSpec curve{*u.variant->angle_type, Strategy::CastInputs};
      std::vector<char> done(static_cast<std::size_t>(u.half), 0);
      for (int j = 0; j < u.half; ++j) {
        if (done[static_cast<std::size_t>(j)]) continue;
        const Eigen::VectorXd at = computed_angles(curve, spec.theta(), m[j]);
        for (int i = j; i < u.half; ++i) {
          if (m[i] == m[j]) phi[i] = at[i], done[static_cast<std::size_t>(i)] = 1;
        }
      }
    } else {
      phi = m.cwiseProduct(spec.theta());
    }
    const int at = part * u.half;
    for (int i = 0; i < u.half; ++i) {
      const double bound = angle_bound(u, i, m[i]);
      double c = std::cos(phi[i]), sn_i = std::sin(phi[i]), steps = 0;
      if (u.variant->table_type) {
        // A table rounded to its type (CosSinTableBf16): cos and sin rounded; where the kernel's own float32 angle
        // (within twice the bound of ours) may round to the neighbouring value, one step of the type more.
        c = table_value(*u.variant->table_type, c, 2 * bound, &steps);
        sn_i = table_value(*u.variant->table_type, sn_i, 2 * bound, &steps);
      }
      cs[at + i] = *scale * c;
      sn[at + i] = *scale * sn_i * (flipped ? -1.0 : 1.0);
      term[at + i] = pair_term(u, bound, steps, *scale);
    }
  }
}

void norm_factors(const Setup& u, const double* cs, const double* sn, double* q) {
  for (int i = 0; i < u.half; ++i) q[i] = u.a * std::sqrt(cs[i] * cs[i] + sn[i] * sn[i]);
}

double compare_vector_exact(const Setup& u, const double* cs, const double* sn, const double* term, double scale,
                            const double* x, const double* y, long s, long g, Tally& t) {
  double vmax = 0;
  const double k = kToleranceSafety * u.a;
  for (int ch = 0; ch < u.d; ++ch) {  // a value that is not a number fails its element and brings the vector here
    if (!std::isfinite(x[ch])) t.before_non_finite.add(s, g, ch, x[ch]);
    if (!std::isfinite(y[ch])) t.after_non_finite.add(s, g, ch, y[ch]);
  }
  for (int i = 0; i < u.half; ++i) {
    const int a = u.oa[static_cast<std::size_t>(i)], b = u.ob[static_cast<std::size_t>(i)];             // written at
    const double xa = x[u.ca[static_cast<std::size_t>(i)]], xb = x[u.cb[static_cast<std::size_t>(i)]];  // read at
    // (C1): the error model's tolerance; ‖x‖ as the fast path computes it where a square root of the sum is exact
    const double n2 = xa * xa + xb * xb;
    const double norm = n2 < 1e300 && (n2 > 1e-300 || n2 == 0) ? std::sqrt(n2) : std::hypot(xa, xb);
    const double tol = k * norm * term[i];
    const int i2 = u.split ? u.half + i : i;  // the second channel's angle (HF's XD-RoPE: its own stream)
    // AxisMap::sin_from_second: both channels take the cos of the first stream and the sin of the second
    const int ia = u.sin_second ? i2 : i, ib = u.sin_second ? i : i2;  // the first channel's sin, the second's cos
    const double tol_b = k * norm * (u.sin_second ? std::max(term[i], term[i2]) : term[i2]);
    const double ra = judge(t, s, g, 2 * i, a, u.a * (xa * cs[i] - xb * sn[ia]), y[a], u.sin_second ? tol_b : tol);
    const double rb = judge(t, s, g, 2 * i + 1, b, u.a * (xa * sn[i2] + xb * cs[ib]), y[b], tol_b);
    if (t.first_seq == s && t.first_group == g && t.first_pair < 0 && t.first_rank / 2 == i &&
        t.first_rank < 2 * u.half) {  // the first failure is in this pair: keep it whole
      t.first_pair = i, t.first_x[0] = xa, t.first_x[1] = xb, t.first_y[0] = y[a], t.first_y[1] = y[b];
    }
    t.channel[static_cast<std::size_t>(a)] = std::max(t.channel[static_cast<std::size_t>(a)], ra);
    t.channel[static_cast<std::size_t>(b)] = std::max(t.channel[static_cast<std::size_t>(b)], rb);
    vmax = std::max(vmax, std::max(ra, rb));
  }
  const int base_rank = 2 * u.half;
  for (std::size_t k2 = 0; k2 < u.unrotated.size(); ++k2) {
    const int ch = u.unrotated[k2];
    const double r = judge(t, s, g, base_rank + static_cast<int>(k2), ch, scale * x[ch], y[ch],
                           kToleranceSafety * u.eps_t * std::abs(scale * x[ch]));
    t.channel[static_cast<std::size_t>(ch)] = std::max(t.channel[static_cast<std::size_t>(ch)], r);
    vmax = std::max(vmax, r);
  }
  t.total += u.d;
  return vmax;
}

double compare_norms_exact(const Setup& u, const double* cs, const double* sn, const double* q, const double* x,
                           const double* y, long s, long g, Tally& t, double& sy, double& sx) {
  const auto h = static_cast<std::size_t>(u.half);
  double vmax = 0, gy = 0, gx = 0;
  bool scanned = false;  // the vector's values that are not numbers counted (at its first failing pair)
  for (int i = 0; i < u.half; ++i) {
    const auto k = static_cast<std::size_t>(i);
    const double xa = x[u.ca[k]], xb = x[u.cb[k]], ya = y[u.oa[k]], yb = y[u.ob[k]];
    // A split map (HF's XD-RoPE) is no rotation: the norm of the expected pair, a·(x_a c − x_b s, x_a s′ + x_b c′).
    const std::size_t ka = u.sin_second ? h + k : k, kb = u.sin_second ? k : h + k;  // sin_from_second
    const double nx = u.split ? u.a * std::hypot(xa * cs[k] - xb * sn[ka], xa * sn[h + k] + xb * cs[kb])
                              : q[k] * std::sqrt(xa * xa + xb * xb);
    const double ny = std::sqrt(ya * ya + yb * yb);
    const double tol = u.norm_rel * nx + u.norm_floor, diff = std::abs(ny - nx);  // (N1)
    gy += ny * ny, gx += nx * nx;
    if (diff <= tol) {  // the usual case: within (N1)
      const double r = tol > 0 ? diff / tol : 0.0;
      vmax = std::max(vmax, r);
      continue;
    }
    // A value that is not a number: counted once per vector, as the element kernel counts it, where a pair fails.
    for (int ch = 0; ch < u.d && !scanned; ++ch) {
      if (!std::isfinite(x[ch])) t.before_non_finite.add(s, g, ch, x[ch]);
      if (!std::isfinite(y[ch])) t.after_non_finite.add(s, g, ch, y[ch]);
    }
    scanned = true;
    const double r = judge(t, s, g, 2 * i, u.oa[k], nx, ny, tol);
    if (t.first_seq == s && t.first_group == g && t.first_pair < 0 && t.first_rank == 2 * i) {
      t.first_pair = i, t.first_x[0] = xa, t.first_x[1] = xb, t.first_y[0] = ya, t.first_y[1] = yb;
    }
    t.channel[static_cast<std::size_t>(u.oa[k])] = std::max(t.channel[static_cast<std::size_t>(u.oa[k])], r);
    vmax = std::max(vmax, r);
  }
  if (std::isfinite(gy) && std::isfinite(gx)) sy += gy, sx += gx;
  t.total += 2 * u.half;
  return vmax;
}

double compare_position_mixed(const Setup& u, const BlockShape& shape, const std::vector<AxisPosition>& positions,
                              const BlockView& view, long s, long s0, Tally& t, std::vector<double>& x,
                              std::vector<double>& y) {
  const long groups = shape.groups, d = shape.d;
  const auto n = static_cast<std::size_t>(u.stride);
  std::vector<double> cs(n), sn(n), term(n);
  double pmax = 0;
  for (long g = 0; g < groups; ++g) {
    const long q = (s * groups + g) % shape.seq;
    double scale = 1;
    position_table(u, variant_position(*u.variant, positions, q), cs.data(), sn.data(), term.data(), &scale);
    const long v = ((s - s0) * groups + g) * d;
    x.resize(static_cast<std::size_t>(d)), y.resize(static_cast<std::size_t>(d));
    widen_elements(view.type, element_at(view.before, view.type, v), d, x.data());
    widen_elements(view.type, element_at(view.after, view.type, v), d, y.data());
    pmax =
        std::max(pmax, compare_vector_exact(u, cs.data(), sn.data(), term.data(), scale, x.data(), y.data(), s, g, t));
  }
  return pmax;
}

/// FoPE (models/fope.hpp (F2)–(F4)): every vector of index s against its key-value head's scaled rotations. The
/// pairs' cos and sin at the position (position_table: a query's scaling and a flipped sin folded in) are combined by
/// each matrix of coefficients; the tolerance of pair j adds to (C1)'s rounding of cos′ and sin′ in the dump's type
/// the angle error of every kept frequency D weighted by |C_cos[D, j]| + |C_sin[D, j]|, and the float32 sum of K
/// products (at most K·ε_A of Σ|C|·1, a margin of 2 over γ_K).
double compare_position_fope(const Setup& u, const BlockShape& shape, const AxisPosition& p, const BlockView& view,
                             long s, long s0, Tally& t, std::vector<double>& x, std::vector<double>& y) {
  const FopeCoefficients& c = *u.fope;
  const std::size_t h = static_cast<std::size_t>(u.half);
  const int K = c.kept;
  std::vector<double> cs(h), sn(h), term(h);
  double scale = 1;
  position_table(u, p, cs.data(), sn.data(), term.data(), &scale);
  const RopeExpectation& spec = u.variant->spec;
  const double sign = (u.variant->reversed != (spec.mode == CheckMode::Grad)) ? -1.0 : 1.0;
  std::vector<double> fc(h * static_cast<std::size_t>(c.heads)), fs(fc.size()), ft(fc.size());
  // Each kept frequency's share of the tolerance: its angle error and the float32 sum of K products.
  std::vector<double> weight(static_cast<std::size_t>(K));
  for (int D = 0; D < K; ++D)
    weight[static_cast<std::size_t>(D)] = term[static_cast<std::size_t>(D)] - scale * 2 * u.eps_t + scale * K * u.eps_a;
  // The matrices the groups take: every one, or with --kv-head the one named.
  const long first = u.fope_matrix >= 0 ? u.fope_matrix : 0, last = u.fope_matrix >= 0 ? u.fope_matrix + 1 : c.heads;
  for (long m = first; m < last; ++m) {
    double* mc = fc.data() + static_cast<std::size_t>(m) * h;
    double* ms = fs.data() + static_cast<std::size_t>(m) * h;
    double* mt = ft.data() + static_cast<std::size_t>(m) * h;
    for (int j = 0; j < u.half; ++j) {
      if (j >= K) {  // (F3): padded, cos 1 and sin fope_pad_sin
        mc[j] = scale, ms[j] = scale * spec.fope_pad_sin * sign;
        mt[j] = scale * 2 * u.eps_t * (1 + std::abs(spec.fope_pad_sin));
        continue;
      }
      const FopePair f = fope_pair(c, m, j, cs.data(), sn.data(), weight.data());  // (F2), models/fope.hpp
      mc[j] = f.cos, ms[j] = f.sin;
      mt[j] = 2 * u.eps_t * (std::abs(f.cos) + std::abs(f.sin)) + f.weighted;
    }
  }
  const long groups = shape.groups, d = shape.d;
  double pmax = 0;
  x.resize(static_cast<std::size_t>(d)), y.resize(static_cast<std::size_t>(d));
  for (long g = 0; g < groups; ++g) {
    const std::size_t o =
        static_cast<std::size_t>(u.fope_matrix >= 0 ? u.fope_matrix : (g % u.fope_heads) / u.fope_per_matrix) * h;
    const long v = ((s - s0) * groups + g) * d;
    widen_elements(view.type, element_at(view.before, view.type, v), d, x.data());
    widen_elements(view.type, element_at(view.after, view.type, v), d, y.data());
    pmax = std::max(
        pmax, compare_vector_exact(u, fc.data() + o, fs.data() + o, ft.data() + o, scale, x.data(), y.data(), s, g, t));
  }
  return pmax;
}

void merge(DumpComparison& c, const Tally& t) {
  c.max_ratio = std::max(c.max_ratio, t.max_ratio);
  c.failing += t.failing;
  c.total += t.total;
  for (std::size_t ch = 0; ch < t.channel.size(); ++ch)
    c.channel_ratio[static_cast<Eigen::Index>(ch)] =
        std::max(c.channel_ratio[static_cast<Eigen::Index>(ch)], t.channel[ch]);
  for (std::size_t g = 0; g < t.group_failing.size(); ++g) c.group_failing[g] += t.group_failing[g];
  c.before_non_finite.merge(t.before_non_finite);
  c.after_non_finite.merge(t.after_non_finite);
}

void finish(DumpComparison& c, const Tally& t, const std::vector<double>& norm_y2, const std::vector<double>& norm_x2) {
  c.first_seq = t.first_seq, c.first_group = t.first_group, c.first_channel = t.first_channel;
  c.first_expected = t.first_expected, c.first_got = t.first_got, c.first_tolerance = t.first_tolerance;
  c.first_pair = t.first_pair;
  for (std::size_t s = 0; s < norm_y2.size(); ++s) c.norm_after2 += norm_y2[s], c.norm_expected2 += norm_x2[s];
  c.first_x[0] = t.first_x[0], c.first_x[1] = t.first_x[1], c.first_y[0] = t.first_y[0], c.first_y[1] = t.first_y[1];
}

}  // namespace exact_path

std::vector<DumpComparison> compare_exact(const BlockShape& shape, const std::vector<AxisPosition>& positions,
                                          const std::vector<Variant>& variants, const BlockFetch& fetch,
                                          const ComparePass& pass) {
  using namespace exact_path;
  if (static_cast<long>(positions.size()) != shape.seq) {
    throw InvalidArgument(error_msg("{0} positions for a dump of {1} sequence positions", positions.size(), shape.seq));
  }
  std::vector<Setup> setups;
  for (const Variant& v : variants) setups.push_back(make_setup(v, shape));
  const std::size_t nv = variants.size();
  std::vector<DumpComparison> out(nv);
  std::vector<Tally> tally(nv);
  std::vector<std::vector<double>> norm_y2(nv), norm_x2(nv);  // (N1): Σ‖y‖² and Σ(a·‖x‖)² per index
  for (std::size_t k = 0; k < nv; ++k) {
    out[k].position_ratio = Eigen::VectorXd::Zero(shape.seq);
    out[k].channel_ratio = Eigen::VectorXd::Zero(shape.d);
    out[k].group_failing.assign(static_cast<std::size_t>(shape.groups), 0);
    tally[k].channel.assign(static_cast<std::size_t>(shape.d), 0.0);
    tally[k].group_failing.assign(static_cast<std::size_t>(shape.groups), 0);
    if (variants[k].norms)
      norm_y2[k].assign(static_cast<std::size_t>(shape.seq), 0.0), norm_x2[k].assign(norm_y2[k].size(), 0.0);
  }
  // The indices visited: the whole range, or the ranges of a sample (pass.only).
  std::vector<std::pair<long, long>> ranges = pass.only;
  if (ranges.empty()) ranges.emplace_back(0, shape.seq);
  const long groups = shape.groups, d = shape.d;
  const auto n = static_cast<std::size_t>(2 * d);  // a position table holds at most 2·half ≤ d entries
  std::vector<double> cs(n), sn(n), term(n), q(n), x(static_cast<std::size_t>(d)), y(x.size());
  BlockBuffers buffers;
  for (const auto& [first, last] : ranges) {
    if (first < 0 || last < first || last > shape.seq) {
      throw std::logic_error("compare_exact: the ranges of a pass must lie within the range");  // a caller's bug
    }
    for (long s = first; s < last; ++s) {
      BlockView view;
      fetch(s, s + 1, buffers, view);  // index s alone: its vectors at 0 … groups − 1
      // vector g of the index, widened to double, into x and y (its input read from group `from`)
      const auto load = [&](long g, long from) {
        widen_elements(view.type, element_at(view.before, view.type, from * d), d, x.data());
        widen_elements(view.type, element_at(view.after, view.type, g * d), d, y.data());
      };
      for (std::size_t k = 0; k < nv; ++k) {
        const Setup& u = setups[k];
        const Variant& v = variants[k];
        Tally& t = tally[k];
        double pmax = 0;
        if (v.norms) {  // (N1): the pairs' norms, summed per index
          double scale = 1;
          position_table(u, variant_position(v, positions, s), cs.data(), sn.data(), term.data(), &scale);
          norm_factors(u, cs.data(), sn.data(), q.data());
          const auto i = static_cast<std::size_t>(s);
          for (long g = 0; g < groups; ++g) {
            load(g, g);
            pmax = std::max(pmax, compare_norms_exact(u, cs.data(), sn.data(), q.data(), x.data(), y.data(), s, g, t,
                                                      norm_y2[k][i], norm_x2[k][i]));
          }
        } else if (u.fope) {  // FoPE: every group its key-value head's scaled rotations
          pmax = compare_position_fope(u, shape, variant_position(v, positions, s), view, s, s, t, x, y);
        } else if (v.heads_mixed) {  // HeadsSeqMixed: every vector at its own position index
          pmax = compare_position_mixed(u, shape, positions, view, s, s, t, x, y);
        } else {  // (C1): every element of every vector
          double scale = 1;
          position_table(u, variant_position(v, positions, s), cs.data(), sn.data(), term.data(), &scale);
          for (long g = 0; g < groups; ++g) {
            load(g, (g + v.group_offset) % groups);  // HeadsCrossed: the input read from another group
            pmax = std::max(
                pmax, compare_vector_exact(u, cs.data(), sn.data(), term.data(), scale, x.data(), y.data(), s, g, t));
          }
        }
        out[k].position_ratio[static_cast<Eigen::Index>(s)] = pmax;
        t.max_ratio = std::max(t.max_ratio, pmax);
      }
    }
  }
  for (std::size_t k = 0; k < nv; ++k) {  // the verdict: the tallies into the comparisons
    merge(out[k], tally[k]);
    finish(out[k], tally[k], norm_y2[k], norm_x2[k]);
  }
  return out;
}

}  // namespace rope
