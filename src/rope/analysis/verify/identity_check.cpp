#include "rope/analysis/verify/identity_check.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "rope/core/error.hpp"
#include "rope/core/simd.hpp"
#include "rope/core/tolerance.hpp"

namespace rope {

namespace {

/// Both sides for one pair; cm, sm, cn, sn, cd, sd are the table rows of m, n and |n − m|, sign the
/// sign of n − m (sin is odd). The sums run in kPartial interleaved partial sums (pair i goes to
/// partial i mod kPartial), so the compiler can keep them in vector registers without reordering
/// additions; half must be a multiple of kPartial or the tail is summed at the end.
constexpr int kPartial = 8;
ROPE_CLONES void pair_sides(const double* q, const double* k, const double* cm, const double* sm, const double* cn,
                            const double* sn, const double* cd, const double* sd, double sign, int half, double* out) {
  double lhs[kPartial] = {}, rhs[kPartial] = {}, qq[kPartial] = {}, kk[kPartial] = {};
  int i0 = 0;
  for (; i0 + kPartial <= half; i0 += kPartial) {
    for (int l = 0; l < kPartial; ++l) {
      const int i = i0 + l;
      const double qa = q[2 * i], qb = q[2 * i + 1], ka = k[2 * i], kb = k[2 * i + 1];
      const double rqa = qa * cm[i] - qb * sm[i], rqb = qa * sm[i] + qb * cm[i];  // R_m q (M9)
      const double rka = ka * cn[i] - kb * sn[i], rkb = ka * sn[i] + kb * cn[i];  // R_n k
      lhs[l] += rqa * rka + rqb * rkb;
      const double s = sign * sd[i];
      const double dka = ka * cd[i] - kb * s, dkb = ka * s + kb * cd[i];  // R_{n−m} k
      rhs[l] += qa * dka + qb * dkb;
      qq[l] += qa * qa + qb * qb;
      kk[l] += ka * ka + kb * kb;
    }
  }
  for (int i = i0; i < half; ++i) {  // d/2 not a multiple of kPartial
    const int l = i - i0;
    const double qa = q[2 * i], qb = q[2 * i + 1], ka = k[2 * i], kb = k[2 * i + 1];
    const double rqa = qa * cm[i] - qb * sm[i], rqb = qa * sm[i] + qb * cm[i];
    const double rka = ka * cn[i] - kb * sn[i], rkb = ka * sn[i] + kb * cn[i];
    lhs[l] += rqa * rka + rqb * rkb;
    const double s = sign * sd[i];
    const double dka = ka * cd[i] - kb * s, dkb = ka * s + kb * cd[i];
    rhs[l] += qa * dka + qb * dkb;
    qq[l] += qa * qa + qb * qb;
    kk[l] += ka * ka + kb * kb;
  }
  double L = 0, R = 0, Q = 0, K = 0;
  for (int l = 0; l < kPartial; ++l) {
    L += lhs[l];
    R += rhs[l];
    Q += qq[l];
    K += kk[l];
  }
  out[0] = L;
  out[1] = R;
  out[2] = std::sqrt(Q) * std::sqrt(K);
}

}  // namespace

std::uint64_t batch_seed(std::uint64_t seed, long b) {
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (static_cast<std::uint64_t>(b) + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

void draw_pair_batch(RandomLanes& rng, int d, long max_position, PairBatch& batch) {
  static_assert(kCheckBatch % RandomLanes::kLanes == 0);
  batch.d = d;
  batch.pairs = kCheckBatch;
  batch.q.resize(kCheckBatch * d);
  batch.k.resize(kCheckBatch * d);
  batch.m.resize(kCheckBatch);
  batch.n.resize(kCheckBatch);
  rng.fill_normal(batch.q.data(), batch.q.size());
  rng.fill_normal(batch.k.data(), batch.k.size());
  const auto n = static_cast<std::uint64_t>(max_position);
  for (long t = 0; t < kCheckBatch; t += RandomLanes::kLanes) rng.below_step(n, batch.m.data() + t);
  for (long t = 0; t < kCheckBatch; t += RandomLanes::kLanes) rng.below_step(n, batch.n.data() + t);
}

void relative_position_sides(const CosSinTable<double>& table, const PairBatch& batch, double* lhs, double* rhs,
                             double* scale) {
  const int half = table.half;
  for (long t = 0; t < batch.pairs; ++t) {
    const long m = static_cast<long>(batch.m[t]), n = static_cast<long>(batch.n[t]);
    const long delta = n - m;
    const long ad = delta < 0 ? -delta : delta;
    double out[3];
    pair_sides(batch.q.data() + t * batch.d, batch.k.data() + t * batch.d, table.cos.data() + m * half,
               table.sin.data() + m * half, table.cos.data() + n * half, table.sin.data() + n * half,
               table.cos.data() + ad * half, table.sin.data() + ad * half, delta < 0 ? -1.0 : 1.0, half, out);
    lhs[t] = out[0];
    rhs[t] = out[1];
    scale[t] = out[2];
  }
}

RelativeCheck check_relative_position(const Eigen::VectorXd& theta, long pairs, long max_position, std::uint64_t seed) {
  if (pairs < 1) throw InvalidArgument(error_msg("{0} must be >= {1} (got {2})", "pairs", 1, pairs));
  if (max_position < 1 || max_position > (1L << 24)) {
    throw InvalidArgument(
        error_msg("{0} must be between {1} and {2} (got {3})", "max-position", 1, "2^24", max_position));
  }
  const int d = static_cast<int>(2 * theta.size());
  const CosSinTable<double> table = cos_sin_table<double>(theta, max_position);
  const long batches = (pairs + kCheckBatch - 1) / kCheckBatch;
  double worst = 0.0;
#pragma omp parallel
  {
    PairBatch batch;
    double lhs[kCheckBatch], rhs[kCheckBatch], scale[kCheckBatch];
    double local = 0.0;
    // Dynamic: a thread the machine delays does not hold the other back at the end (the batches are
    // seeded by their index and the result is a maximum, so the split does not change it).
#pragma omp for schedule(dynamic)
    for (long b = 0; b < batches; ++b) {
      RandomLanes rng(batch_seed(seed, b));
      draw_pair_batch(rng, d, max_position, batch);
      relative_position_sides(table, batch, lhs, rhs, scale);
      for (long t = 0; t < kCheckBatch; ++t) local = std::max(local, std::abs(lhs[t] - rhs[t]) / scale[t]);
    }
#pragma omp critical
    worst = std::max(worst, local);
  }
  RelativeCheck r;
  r.pairs = batches * kCheckBatch;
  r.check.difference = worst;
  r.check.tolerance = relative_tolerance(machine_epsilon<double>(), d, 2.0 * static_cast<double>(max_position));
  return r;
}

}  // namespace rope
