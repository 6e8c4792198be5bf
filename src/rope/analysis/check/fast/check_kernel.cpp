// The element-wise comparison of rope check (check_kernel.hpp): tolerance (C1), per-thread tallies merged
// in an order that does not depend on the threads; vectors whose pairs lie in a regular form screened
// (check_screen.hpp), read as the files store them.
#include "rope/analysis/check/fast/check_kernel.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <cmath>
#include <exception>
#include <limits>
#include <fmt/format.h>
#include <mutex>
#include <stdexcept>

#include "rope/analysis/calculators/precision.hpp"
#include "rope/models/fope_mix.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "rope/core/workers.hpp"

namespace rope {
namespace {

/// What one variant needs at every element: channels of each pair, the error model's constants.
struct Setup {
  const Variant* variant = nullptr;
  int d = 0, half = 0;
  double eps_t = 0, eps_a = 0, a = 1;
  Eigen::VectorXd c_i;
  /// Pair i is read at channels (ca, cb) of x and written at (oa, ob) of y: the same, but for de-interleaved
  /// output (check.hpp pair_channels).
  std::vector<int> ca, cb, oa, ob, unrotated;
  const AxisMap* map = nullptr;
  /// HF's XD-RoPE (axes.hpp (A11)): the pair's second channel turns by its own stream, so a position's tables hold
  /// 2·half entries, the second channels' from half on (stride); otherwise half.
  bool split = false;
  bool sin_second = false;  ///< AxisMap::sin_from_second: both channels take the cos of a(j) and the sin of b(j)
  int stride = 0;
  int off = 0;
  /// The pairs are (off + i, off + half + i) (half) or (off + 2i, off + 2i + 1) (interleaved): the fast path.
  bool half_form = false, interleaved_form = false;
  /// (N1): a pair's norm within norm_rel·a·‖x‖ + norm_floor (Variant::norms).
  double norm_rel = 0, norm_floor = 0;
  /// FoPE (models/fope.hpp): the coefficients, the heads of a batch row and the query heads per matrix (group g's
  /// matrix: (g mod heads) / per_matrix; one shared matrix: per_matrix = heads).
  const FopeCoefficients* fope = nullptr;
  long fope_heads = 1, fope_per_matrix = 1;
  long fope_matrix = -1;  ///< RopeExpectation::fope_matrix: every group on this matrix (−1: by its head's index)
};

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

/// The position index s of the range turns by under the variant: restarts, the sequence index, the offset.
AxisPosition variant_position(const Variant& v, const std::vector<AxisPosition>& positions, long s) {
  // MropeIgnored: 1-D positions, the index in the whole sequence: the first row's (its t) plus s.
  AxisPosition p = v.sequence_index && !positions.empty()
                       ? AxisPosition::single(positions.front()[0] + static_cast<double>(s))
                       : positions[static_cast<std::size_t>(s)];
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

/// A bound on the absolute error of CUDA's fast sine and cosine (__sinf, __cosf) of a reduced angle: the CUDA C++
/// Programming Guide's table (Mathematical Functions, Intrinsic Functions) gives 2^-21.41 for x in [−π, π], as NVIDIA's
/// developer forums quote it ("__device__ and __host__ qualifiers in same function"); 2^-20 here, above it with room.
const double kFastUnitError = std::ldexp(1.0, -20);

}  // namespace

double fast_math_shortfall() { return static_cast<double>(static_cast<float>(1.0 / kTwoPi)) * kTwoPi - 1.0; }

namespace {

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

/// cos, sin and the angle term of (C1) of every pair at position p; for a split map (HF's XD-RoPE) those of the
/// pairs' second channels after them, at half + i.
void position_table(const Setup& u, const AxisPosition& p, double* cs, double* sn, double* term, double* scale) {
  const RopeExpectation& spec = u.variant->spec;
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
      double angle_bound = u.eps_a * (1 + u.c_i[i] * std::abs(m[i]) * spec.theta()[i]);
      if (u.variant->angle_type && u.variant->angle_chain_units > 0) {  // a chain rounded step by step (check.hpp)
        angle_bound +=
            u.variant->angle_chain_units * epsilon(*u.variant->angle_type) * (std::abs(m[i]) + 1) * spec.theta()[i];
      }
      if (u.variant->fast_math) {
        // AnglesFastMath: the float32 angle (this bound) falls short by |fast_math_shortfall()| of itself, its turns
        // x = φ·fl32(1/2π) round to float32 (at most ε_f32 of φ, truncated or not), and the unit errs by
        // kFastUnitError in cos and in sin.
        const double angle = std::abs(m[i]) * spec.theta()[i];
        angle_bound += (std::abs(fast_math_shortfall()) + epsilon(DType::F32)) * angle + 2 * kFastUnitError;
      }
      double c = std::cos(phi[i]), sn_i = std::sin(phi[i]), steps = 0;
      if (u.variant->table_type) {
        // A table rounded to its type (CosSinTableBf16): cos and sin rounded; where the kernel's own float32 angle
        // (within twice the bound of ours) may round to the neighbouring value, one step of the type more.
        c = table_value(*u.variant->table_type, c, 2 * angle_bound, &steps);
        sn_i = table_value(*u.variant->table_type, sn_i, 2 * angle_bound, &steps);
      }
      cs[at + i] = *scale * c;
      sn[at + i] = *scale * sn_i * (flipped ? -1.0 : 1.0);
      term[at + i] = *scale * (2 * u.eps_t + angle_bound + steps / kToleranceSafety);
    }
  }
}

/// One thread's tally for one variant.
struct Tally {
  double max_ratio = 0;
  long failing = 0, total = 0;
  std::vector<double> channel;
  std::vector<long> group_failing;
  long first_seq = -1, first_group = -1;
  int first_rank = -1, first_channel = -1;  // rank: the order in which (C1) visits the channels of a vector
  double first_expected = 0, first_got = 0, first_tolerance = 0;
  int first_pair = -1;  // the first failure's pair (−1: a pass-through channel) and its values
  double first_x[2] = {0, 0}, first_y[2] = {0, 0};
  NonFiniteValues before_non_finite, after_non_finite;
  /// The thread's last vector failed, after its first failure: the next goes to the counting path without the screen
  /// (a failing dump's vectors mostly fail; either path gives the same numbers).
  bool counting = false;

  bool before(long s, long g, int rank) const {
    return first_seq < 0 || s < first_seq ||
           (s == first_seq && (g < first_group || (g == first_group && rank < first_rank)));
  }
  void fail(long s, long g, int rank, int ch, double expected, double got, double tol) {
    ++failing;
    ++group_failing[static_cast<std::size_t>(g)];
    if (before(s, g, rank)) {
      first_seq = s, first_group = g, first_rank = rank, first_channel = ch;
      first_expected = expected, first_got = got, first_tolerance = tol;
      first_pair = -1;
    }
  }
};

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

/// One vector x → y at index s of group g under (C1), every element recorded one by one; returns its largest
/// ratio.
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
  for (std::size_t i = 0; i < h; ++i) q[i] = u.a * std::sqrt(tb.cs[i] * tb.cs[i] + tb.sn[i] * tb.sn[i]);
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
                        long s0, Tally& t, PositionScratch& w, FusedNorms* norms = nullptr, bool counts_only = false) {
  const std::size_t h = static_cast<std::size_t>(u.half);
  const long groups = shape.groups, d = shape.d;
  const double k = kToleranceSafety * u.a;
  bool screen = (u.half_form || u.interleaved_form) && u.unrotated.empty() && u.variant->group_offset == 0 && !u.split;
  for (int i = 0; i < u.half && screen; ++i) {
    const double kt = k * tb.term[i];
    tb.kt2[i] = kt * kt;
    screen = tb.kt2[i] >= 1e-280 && tb.kt2[i] <= 1e280;  // normal, so that the screen's bound holds
  }
  double pmax = 0;
  auto exact_vector = [&](long g) {  // compare_vector on the vector widened to double
    const long v = ((s - s0) * groups + g) * d;
    // HeadsCrossed: the input of group g read from another group of the same index.
    const long vx = ((s - s0) * groups + (g + u.variant->group_offset) % groups) * d;
    const double* x = static_cast<const double*>(view.before) + vx;
    const double* y = static_cast<const double*>(view.after) + v;
    if (view.type != BlockElement::F64) {
      w.x.resize(static_cast<std::size_t>(d)), w.y.resize(static_cast<std::size_t>(d));
      widen_elements(view.type, element_at(view.before, view.type, vx), d, w.x.data());
      widen_elements(view.type, element_at(view.after, view.type, v), d, w.y.data());
      x = w.x.data(), y = w.y.data();
    }
    w.pair_max.assign(h, 0.0);
    pmax = std::max(pmax, compare_vector(u, tb.cs, tb.sn, tb.term, tb.scale, x, y, s, g, t, w.pair_max.data()));
    for (const double m : w.pair_max) pmax = std::max(pmax, m);
  };
  if (!screen) {
    for (long g = 0; g < groups; ++g) exact_vector(g);
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
  for (long g = 0; g < groups; ++g) {
    const long v = ((s - s0) * groups + g) * d + u.off;
    const void* x = element_at(view.before, view.type, v);
    const void* y = element_at(view.after, view.type, v);
    double* q = &w.q[static_cast<std::size_t>(g) * dd];
    bool screened = false;
    if (norms && norms->passed && t.counting) {
      // A failing dump's vectors after the thread's first failure: (C1) counted from the screen's q where every
      // element's verdict is certain from it, and (N1) summed, in one loop over the vector as stored
      // (count_screen_norms); its q then stands for its ratios as a screened vector's does (the maxima below). The
      // exact path for a vector with an element near its tolerance.
      int fails = 0;
      const int both =
          count_screen_norms(sp, tb.cs, tb.sn, tb.kt2, norms->bounds, x, y, q, w.cq.data(), sums, sums + h, &fails);
      norms->passed = (both & 2) != 0;
      if ((both & 1) != 0) {
        counted(g, fails);
      } else {
        checked_exactly(g);
      }
      continue;
    }
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
    double gy = 0, gx = 0;
    for (int i = 0; i < u.half; ++i) {
      const auto k = static_cast<std::size_t>(i);
      const double xa = x[u.ca[k]], xb = x[u.cb[k]], ya = y[u.oa[k]], yb = y[u.ob[k]];
      // A split map (HF's XD-RoPE) is no rotation: the norm of the expected pair, a·(x_a c − x_b s, x_a s′ + x_b c′).
      const std::size_t ka = u.sin_second ? h + k : k, kb = u.sin_second ? k : h + k;  // sin_from_second
      const double nx = u.split ? u.a * std::hypot(xa * tb.cs[k] - xb * tb.sn[ka], xa * tb.sn[h + k] + xb * tb.cs[kb])
                                : w.norm_q[k] * std::sqrt(xa * xa + xb * xb);
      const double ny = std::sqrt(ya * ya + yb * yb);
      const double tol = u.norm_rel * nx + u.norm_floor, diff = std::abs(ny - nx);
      gy += ny * ny, gx += nx * nx;
      if (diff <= tol) {  // the usual case: within (N1)
        const double r = tol > 0 ? diff / tol : 0.0;
        pmax = std::max(pmax, r);
        continue;
      }
      for (int ch = 0; ch < d; ++ch) {  // a value that is not a number: counted as the element kernel counts it
        if (!std::isfinite(x[ch])) t.before_non_finite.add(s, g, ch, x[ch]);
        if (!std::isfinite(y[ch])) t.after_non_finite.add(s, g, ch, y[ch]);
      }
      const double r = judge(t, s, g, 2 * i, u.oa[k], nx, ny, tol);
      if (t.first_seq == s && t.first_group == g && t.first_pair < 0 && t.first_rank == 2 * i) {
        t.first_pair = i, t.first_x[0] = xa, t.first_x[1] = xb, t.first_y[0] = ya, t.first_y[1] = yb;
      }
      t.channel[static_cast<std::size_t>(u.oa[k])] = std::max(t.channel[static_cast<std::size_t>(u.oa[k])], r);
      pmax = std::max(pmax, r);
    }
    if (std::isfinite(gy) && std::isfinite(gx)) sy += gy, sx += gx;
    t.total += 2 * u.half;
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
/// of group g at index s turns at the position of index (s·groups + g) mod seq; each vector by the exact path.
double compare_position_mixed(const Setup& u, const BlockShape& shape, const std::vector<AxisPosition>& positions,
                              const BlockView& view, long s, long s0, Tally& t, PositionScratch& w) {
  const long groups = shape.groups, d = shape.d;
  const auto n = static_cast<std::size_t>(u.stride);
  std::vector<double> cs(n), sn(n), term(n);
  double pmax = 0;
  for (long g = 0; g < groups; ++g) {
    const long q = (s * groups + g) % shape.seq;
    double scale = 1;
    position_table(u, variant_position(*u.variant, positions, q), cs.data(), sn.data(), term.data(), &scale);
    const long v = ((s - s0) * groups + g) * d;
    w.x.resize(static_cast<std::size_t>(d)), w.y.resize(static_cast<std::size_t>(d));
    widen_elements(view.type, element_at(view.before, view.type, v), d, w.x.data());
    widen_elements(view.type, element_at(view.after, view.type, v), d, w.y.data());
    pmax = std::max(pmax,
                    compare_vector_exact(u, cs.data(), sn.data(), term.data(), scale, w.x.data(), w.y.data(), s, g, t));
  }
  return pmax;
}

/// FoPE (models/fope.hpp (F2)–(F4)): every vector of index s against its key-value head's scaled rotations. The
/// pairs' cos and sin at the position (position_table: a query's scaling and a flipped sin folded in) are combined by
/// each matrix of coefficients; the tolerance of pair j adds to (C1)'s rounding of cos′ and sin′ in the dump's type
/// the angle error of every kept frequency D weighted by |C_cos[D, j]| + |C_sin[D, j]|, and the float32 sum of K
/// products (at most K·ε_A of Σ|C|·1, a margin of 2 over γ_K).
double compare_position_fope(const Setup& u, const BlockShape& shape, const AxisPosition& p, const BlockView& view,
                             long s, long s0, Tally& t, PositionScratch& w) {
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
  w.x.resize(static_cast<std::size_t>(d)), w.y.resize(static_cast<std::size_t>(d));
  for (long g = 0; g < groups; ++g) {
    const std::size_t o =
        static_cast<std::size_t>(u.fope_matrix >= 0 ? u.fope_matrix : (g % u.fope_heads) / u.fope_per_matrix) * h;
    const long v = ((s - s0) * groups + g) * d;
    widen_elements(view.type, element_at(view.before, view.type, v), d, w.x.data());
    widen_elements(view.type, element_at(view.after, view.type, v), d, w.y.data());
    pmax = std::max(pmax, compare_vector_exact(u, fc.data() + o, fs.data() + o, ft.data() + o, scale, w.x.data(),
                                               w.y.data(), s, g, t));
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

}  // namespace

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
  std::vector<Tally> firsts(nv);  // the first failure over the threads
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
        for (std::size_t k = 0; k < nv; ++k) {
          if (fused[k]) continue;  // compared in the loop of variant k − 1, below
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
                                                        s0, tally[k], scratch);
              pos[s] = pmax;
              tally[k].max_ratio = std::max(tally[k].max_ratio, pmax);
            }
            continue;
          }
          if (u.variant->heads_mixed) {  // HeadsSeqMixed: every vector at its own position index
            for (long s = s0; s < s1; ++s) {
              const double pmax = compare_position_mixed(u, shape, positions, view, s, s0, tally[k], scratch);
              pos[s] = pmax;
              tally[k].max_ratio = std::max(tally[k].max_ratio, pmax);
            }
            continue;
          }
          const bool with_norms = k + 1 < nv && fused[k + 1];
          for (long s = s0; s < s1; ++s) {
            const std::size_t o = static_cast<std::size_t>(s - s0) * h;
            double& sc = scale[k][static_cast<std::size_t>(s - s0)];
            position_table(u, variant_position(*u.variant, positions, s), &cs[k][o], &sn[k][o], &term[k][o], &sc);
            const Tables tables{&cs[k][o], &sn[k][o], &term[k][o], &kt2[k][o], sc};
            FusedNorms norms;
            bool screen_norms = false;  // without its screen, (N1) is compared by compare_fused_norms alone
            if (with_norms) {
              const NormScreen ns = norm_screen(setups[k + 1], tables, false, scratch.norm_q, scratch.norm_w2);
              norms.bounds = ns.bounds;
              screen_norms = ns.on;
            }
            const double pmax = compare_position(u, shape, tables, view, s, s0, tally[k], scratch,
                                                 screen_norms ? &norms : nullptr, k >= pass.counts_from && !with_norms);
            pos[s] = pmax;  // each index belongs to one block: no other thread writes it
            tally[k].max_ratio = std::max(tally[k].max_ratio, pmax);
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
  for (std::size_t k = 0; k < nv; ++k) {
    const Tally& t = firsts[k];
    DumpComparison& c = out[k];
    c.first_seq = t.first_seq, c.first_group = t.first_group, c.first_channel = t.first_channel;
    c.first_expected = t.first_expected, c.first_got = t.first_got, c.first_tolerance = t.first_tolerance;
    c.first_pair = t.first_pair;
    for (std::size_t s = 0; s < norm_y2[k].size(); ++s)
      c.norm_after2 += norm_y2[k][s], c.norm_expected2 += norm_x2[k][s];
    c.first_x[0] = t.first_x[0], c.first_x[1] = t.first_x[1], c.first_y[0] = t.first_y[0], c.first_y[1] = t.first_y[1];
  }
  if (progress && *progress) (*progress)(1.0);
  return out;
}

}  // namespace rope
