// FoPE's scaled rotations for rope apply and rope matrix (fope_apply.hpp).
#include "rope/analysis/teaching/fope_apply.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <vector>

#include "rope/analysis/check/fope_coefficients.hpp"
#include "rope/core/error.hpp"
#include "rope/core/rotation.hpp"
#include "rope/core/types.hpp"
#include "rope/models/fope_mix.hpp"
#include "rope/models/rope_spec.hpp"

namespace rope {

std::optional<FopeHead> fope_head(const ModelRope& rope, const FopeCheckpoint& coefficients,
                                  const std::optional<long>& kv_head) {
  std::shared_ptr<const FopeCoefficients> c = fope_coefficients_for(rope.spec, rope.plain, coefficients);
  if (!c) {
    if (kv_head) fope_kv_matrix(rope.spec, nullptr, *kv_head);  // refuses --kv-head without FoPE
    return std::nullopt;
  }
  FopeHead h;
  h.coefficients = c;
  h.kv_heads = fope_kv_heads(rope.spec, *c);
  h.kv_head = kv_head.value_or(0);
  h.matrix = fope_kv_matrix(rope.spec, c.get(), h.kv_head);  // checks the head
  return h;
}

FopeBlocks fope_blocks(const RopeSpec& spec, const FopeHead& head, double m) {
  const int pairs = spec.rotary_dim / 2;
  check_position_resolvable(m, spec.rotary_dim, "position m");
  const FopeCoefficients& c = *head.coefficients;
  FopeBlocks b;
  b.kept = c.kept;
  std::vector<double> cos_t(static_cast<std::size_t>(c.kept)), sin_t(cos_t.size());
  for (int D = 0; D < c.kept; ++D) {  // the kept frequencies' cos(m·θ_D) and sin(m·θ_D), float64
    const double angle = m * spec.params.inv_freq[D];
    cos_t[static_cast<std::size_t>(D)] = std::cos(angle), sin_t[static_cast<std::size_t>(D)] = std::sin(angle);
  }
  b.cos = Eigen::VectorXd::Ones(pairs), b.sin = Eigen::VectorXd::Zero(pairs);  // (F3): padded pairs pass through
  for (int j = 0; j < std::min(c.kept, pairs); ++j) {
    const FopePair f = fope_pair(c, head.matrix, j, cos_t.data(), sin_t.data());  // (F2), models/fope.hpp
    b.cos[j] = f.cos, b.sin[j] = f.sin;
  }
  b.scale.resize(pairs), b.angle.resize(pairs);
  for (int j = 0; j < pairs; ++j)
    b.scale[j] = std::hypot(b.cos[j], b.sin[j]), b.angle[j] = std::atan2(b.sin[j], b.cos[j]);
  return b;
}

Eigen::MatrixXd fope_matrix(const RopeSpec& spec, const FopeBlocks& blocks, int n) {
  const int offset = rotary_offset_for(spec, n);
  Eigen::MatrixXd r = Eigen::MatrixXd::Identity(n, n);
  for (int j = 0; j < spec.rotary_dim / 2; ++j) {
    const auto [pa, pb] = spec_pair_channels(spec, j);
    const int a = offset + pa, b = offset + pb;
    r(a, a) = blocks.cos[j], r(a, b) = -blocks.sin[j];
    r(b, a) = blocks.sin[j], r(b, b) = blocks.cos[j];
  }
  return r;
}

FopeApply fope_apply(const RopeSpec& spec, const FopeBlocks& blocks, const Eigen::VectorXd& x, double m) {
  const int n = static_cast<int>(x.size());
  const int offset = rotary_offset_for(spec, n);
  FopeApply r;
  r.by_matrix = fope_matrix(spec, blocks, n) * x;
  r.by_elementwise = x, r.by_complex = x;
  for (int j = 0; j < spec.rotary_dim / 2; ++j) {
    const auto [pa, pb] = spec_pair_channels(spec, j);
    const int a = offset + pa, b = offset + pb;
    // x·cat(cos′, cos′) + rotate_half(x)·cat(sin′, sin′): channel a gets −x_b·sin′, channel b gets x_a·sin′.
    r.by_elementwise[a] = x[a] * blocks.cos[j] + (-x[b]) * blocks.sin[j];
    r.by_elementwise[b] = x[b] * blocks.cos[j] + x[a] * blocks.sin[j];
    const std::complex<double> z =
        std::complex<double>(blocks.cos[j], blocks.sin[j]) * std::complex<double>(x[a], x[b]);
    r.by_complex[a] = z.real(), r.by_complex[b] = z.imag();
  }
  const double diff = std::max((r.by_matrix - r.by_elementwise).cwiseAbs().maxCoeff(),
                               (r.by_complex - r.by_elementwise).cwiseAbs().maxCoeff());
  const double scale = std::max(std::max(1.0, blocks.scale.maxCoeff()) * x.norm(), 1e-300);
  r.check = Check{diff, scale, relative_tolerance(machine_epsilon<double>(), spec.rotary_dim, std::abs(m))};
  return r;
}

}  // namespace rope
