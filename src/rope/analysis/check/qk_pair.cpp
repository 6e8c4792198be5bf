// q and k together (qk_pair.hpp): the relative-position identity (Q1) on a sample of the dumps under (Q2), and the
// fused kernels' mistakes of ColossalAI PR #6429 tried on the same sample.
#include "rope/analysis/check/qk_pair.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "rope/analysis/check/check_table.hpp"
#include "rope/analysis/check/fast/dump_stream.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/dtype.hpp"

namespace rope {

namespace {

/// kQkSampleIndices indices evenly spread over [0, seq), the first and the last included, fewer when the vectors
/// are many (kQkSampleElements).
std::vector<long> sample_indices(long seq, long vectors, int d) {
  const long per_index = std::max<long>(1, 2 * vectors * d);  // before and after of every q and k vector
  const long count = std::min({seq, kQkSampleIndices, std::max<long>(2, kQkSampleElements / per_index)});
  std::vector<long> out;
  for (long i = 0; i < count; ++i) {
    const long s = count == 1 ? 0 : i * (seq - 1) / (count - 1);
    if (out.empty() || s > out.back()) out.push_back(s);
  }
  return out;
}

/// The dumps before and after at `indices`, every group: from the files a block at a time, or picked in memory.
std::pair<DumpVectors, DumpVectors> read_sample(const LoadedDumps& dumps, const std::vector<long>& indices) {
  if (dumps.stream) return dumps.stream->read(indices, dumps.stream->groups());
  std::pair<DumpVectors, DumpVectors> out{dumps.before, dumps.after};
  for (auto* v : {&out.first, &out.second}) {
    const DumpVectors& from = v == &out.first ? dumps.before : dumps.after;
    v->values.clear();
    v->seq = static_cast<long>(indices.size());
    const auto width = static_cast<std::size_t>(from.groups() * from.d);
    for (const long s : indices) {
      const double* at = from.vector(s, 0);
      v->values.insert(v->values.end(), at, at + width);
    }
  }
  return out;
}

/// What one side's tolerance and angles need, per pair.
struct SideTerms {
  const RopeExpectation& e;
  std::vector<std::pair<int, int>> in, out;  // the pairs' channels before and after
  std::vector<int> unrotated;                // channels in no pair
  Eigen::VectorXd c;                         // c_i of (C2)
  double eps_t = 0, eps_a = 0, a = 1;
  SideTerms(const RopeExpectation& expected, AngleModel angles, DType dtype) : e(expected) {
    const int half = static_cast<int>(e.theta().size());
    std::vector<char> used(static_cast<std::size_t>(e.rope.head_dim), 0);
    for (int i = 0; i < half; ++i) {
      in.push_back(pair_channels(e, i, false));
      out.push_back(pair_channels(e, i, true));
      used[static_cast<std::size_t>(in.back().first)] = used[static_cast<std::size_t>(in.back().second)] = 1;
    }
    for (int j = 0; j < e.rope.head_dim; ++j) {
      if (!used[static_cast<std::size_t>(j)]) unrotated.push_back(j);
    }
    c = angle_error_factors(angles, e.theta(), e.base(), e.rotary_dim());
    eps_t = epsilon(dtype);
    eps_a = angle_epsilon(angles);
    a = e.attention_factor();
  }
  Eigen::VectorXd angles_at(const AxisPosition& p) const {
    const AxisMap* map = e.rope.axes ? &*e.rope.axes : nullptr;
    return channel_angles(e.theta(), map, p, false);
  }
  /// (C1)'s relative term of pair i at angle φ: 2·ε_T + ε_A·(1 + c_i·|φ|).
  double term(int i, double phi) const { return 2 * eps_t + eps_a * (1 + c[i] * std::abs(phi)); }
};

double pair_norm(const double* x, std::pair<int, int> ch) { return std::hypot(x[ch.first], x[ch.second]); }

/// Whether `y` (after) is within (C1) of the pairs built by `expect(i, ya, yb)` and of `x` scaled by `scale` on the
/// unrotated channels; `norm(i)` the pair's scale for its tolerance.
template <typename Expect, typename Norm>
bool within(const SideTerms& t, const double* x, const double* y, const Eigen::VectorXd& phi, double scale,
            Expect expect, Norm norm) {
  for (int i = 0; i < static_cast<int>(t.in.size()); ++i) {
    double ya = 0, yb = 0;
    expect(i, ya, yb);
    const double tol = kToleranceSafety * scale * t.a * norm(i) * t.term(i, phi[i]);
    if (!(std::abs(y[t.out[static_cast<std::size_t>(i)].first] - ya) <= tol) ||
        !(std::abs(y[t.out[static_cast<std::size_t>(i)].second] - yb) <= tol))
      return false;
  }
  for (const int j : t.unrotated) {
    if (!(std::abs(y[j] - scale * x[j]) <= kToleranceSafety * t.eps_t * std::abs(scale * x[j]))) return false;
  }
  return true;
}

}  // namespace

QkPairCheck measure_qk_pair(const QkSide& q, const QkSide& k, bool diagnose) {
  QkPairCheck r;
  r.q_heads = q.dumps.after.heads;
  r.k_heads = k.dumps.after.heads;
  const RopeExpectation &eq = q.expected, &ek = k.expected;
  if (eq.fope || ek.fope) {
    r.not_measured = msg("FoPE turns no pair by one angle: the identity ⟨R_m q, R_n k⟩ = qᵀ R_(n−m) k is not measured");
    return r;
  }
  if ((eq.rope.axes && eq.rope.axes->split()) || (ek.rope.axes && ek.rope.axes->split())) {
    r.not_measured = msg(
        "a split XD-RoPE map turns a pair's two channels by two positions: the identity ⟨R_m q, R_n k⟩ = qᵀ R_(n−m) "
        "k is not measured");
    return r;
  }
  r.measured = true;
  const long gq = q.dumps.after.groups(), gk = k.dumps.after.groups();
  const long hq = std::max<long>(1, r.q_heads), hk = std::max<long>(1, r.k_heads);
  const long share = std::max<long>(1, hq / hk);  // q heads per key-value head
  const int d = q.dumps.after.d;
  const std::vector<long> indices = sample_indices(q.dumps.after.seq, gq + gk, d);
  const std::pair<DumpVectors, DumpVectors> q_sample = read_sample(q.dumps, indices);
  const std::pair<DumpVectors, DumpVectors> k_sample = read_sample(k.dumps, indices);
  const DumpVectors &qb = q_sample.first, &qa = q_sample.second, &kb = k_sample.first, &ka = k_sample.second;
  const SideTerms tq(eq, q.angles, q.dumps.after.dtype), tk(ek, k.angles, k.dumps.after.dtype);
  const auto n_idx = static_cast<long>(indices.size());
  std::vector<Eigen::VectorXd> phi_q, phi_k;
  std::vector<double> scale_q, scale_k;
  for (const long s : indices) {
    const AxisPosition& pq = q.positions[static_cast<std::size_t>(s)];
    const AxisPosition& pk = k.positions[static_cast<std::size_t>(s)];
    phi_q.push_back(tq.angles_at(pq));
    phi_k.push_back(tk.angles_at(pk));
    scale_q.push_back(eq.query_scale(pq[0]));
    scale_k.push_back(ek.query_scale(pk[0]));
  }
  const auto k_group_of = [&](long g) { return (g / hq) * hk + (g % hq) / share; };
  const double eps64 = epsilon(DType::F64);
  const auto half = static_cast<int>(tq.in.size());
  r.indices = n_idx;
  r.pairs_sampled = n_idx * n_idx;
  std::vector<double> cos_d(static_cast<std::size_t>(half)), sin_d(cos_d), term_q(cos_d), term_k(cos_d);
  for (long mi = 0; mi < n_idx; ++mi) {
    for (long ni = 0; ni < n_idx; ++ni) {
      for (int i = 0; i < half; ++i) {  // per (m, n): the angle of n − m and each side's (C1) term, for every vector
        const auto at = static_cast<std::size_t>(i);
        const double phm = phi_q[static_cast<std::size_t>(mi)][i], phn = phi_k[static_cast<std::size_t>(ni)][i];
        cos_d[at] = std::cos(phn - phm);
        sin_d[at] = std::sin(phn - phm);
        term_q[at] = tq.term(i, phm);
        term_k[at] = tk.term(i, phn);
      }
      for (long g = 0; g < gq; ++g) {
        const long kg = k_group_of(g);
        const double* x = qb.vector(mi, g);
        const double* y = qa.vector(mi, g);
        const double* u = kb.vector(ni, kg);
        const double* v = ka.vector(ni, kg);
        const double sq = scale_q[static_cast<std::size_t>(mi)] * scale_k[static_cast<std::size_t>(ni)];
        double got = 0, abs_sum = 0;
        for (int c = 0; c < d; ++c) got += y[c] * v[c], abs_sum += std::abs(y[c] * v[c]);
        double rot = 0, pass = 0, bound = 0, scale = 0;
        for (int i = 0; i < half; ++i) {
          const auto [a, b] = tq.in[static_cast<std::size_t>(i)];
          const auto [ka_ch, kb_ch] = tk.in[static_cast<std::size_t>(i)];
          const auto at = static_cast<std::size_t>(i);
          rot += cos_d[at] * (x[a] * u[ka_ch] + x[b] * u[kb_ch]) + sin_d[at] * (x[b] * u[ka_ch] - x[a] * u[kb_ch]);
          const double nq = std::sqrt(x[a] * x[a] + x[b] * x[b]),
                       nk = std::sqrt(u[ka_ch] * u[ka_ch] + u[kb_ch] * u[kb_ch]);
          const double t_q = kToleranceSafety * sq * tq.a * nq * term_q[at];
          const double t_k = kToleranceSafety * tk.a * nk * term_k[at];
          bound += std::sqrt(2.0) * (t_q * tk.a * nk + t_k * sq * tq.a * nq) + 2 * t_q * t_k;
          scale += sq * tq.a * tk.a * (std::abs(x[a] * u[ka_ch]) + std::abs(x[b] * u[kb_ch]));
        }
        for (const int j : tq.unrotated) {
          pass += x[j] * u[j];
          bound += kToleranceSafety * (tq.eps_t + tk.eps_t + kToleranceSafety * tq.eps_t * tk.eps_t) * sq *
                   std::abs(x[j] * u[j]);
          scale += sq * std::abs(x[j] * u[j]);
        }
        const double expected = sq * (tq.a * tk.a * rot + pass);
        bound += 2 * d * eps64 * (abs_sum + scale);
        const double diff = std::abs(got - expected);
        const double ratio = !std::isfinite(got) ? std::numeric_limits<double>::infinity()
                             : diff == 0         ? 0.0
                             : bound > 0         ? diff / bound
                                                 : std::numeric_limits<double>::infinity();
        ++r.scores;
        if (r.m < 0 || ratio > r.max_ratio || (std::isnan(ratio) && !std::isnan(r.max_ratio))) {
          r.max_ratio = std::isnan(ratio) ? std::numeric_limits<double>::infinity() : ratio;
          r.max_score_error = scale > 0 ? diff / scale : diff;
          r.tolerance = scale > 0 ? bound / scale : bound;
          r.m = indices[static_cast<std::size_t>(mi)];
          r.n = indices[static_cast<std::size_t>(ni)];
          r.q_group = g;
          r.k_group = kg;
          r.got = got;
          r.expected = expected;
        }
      }
    }
  }
  if (!diagnose) return r;
  // The fused kernel's mistakes (ColossalAI PR #6429), each against every sampled vector; named only where the
  // expected rotation fails somewhere in the sample.
  const auto rotate = [](const double* x, std::pair<int, int> ch, double phi, double f, double& ya, double& yb) {
    ya = f * (x[ch.first] * std::cos(phi) - x[ch.second] * std::sin(phi));
    yb = f * (x[ch.first] * std::sin(phi) + x[ch.second] * std::cos(phi));
  };
  // qk-crossed under either GQA head map (map 0: q head h with k head h / share, the attention's repeat_interleave,
  // and k head g with q head g·share, the first of its group; map 1: h mod H_k, a kernel that tiles the k heads, and
  // k head g with q head g); the same map for every head of a batch row.
  const auto k_of = [&](long g, int map) { return map == 0 ? k_group_of(g) : (g / hq) * hk + (g % hq) % hk; };
  const auto q_of = [&](long g, int map) { return (g / hk) * hq + (map == 0 ? (g % hk) * share : g % hk); };
  bool q_expected = true, k_expected = true, k_heads = share > 1;
  bool q_crossed[2] = {true, share > 1}, k_crossed[2] = {true, share > 1};
  for (long si = 0; si < n_idx; ++si) {
    const auto s = static_cast<std::size_t>(si);
    for (long g = 0; g < gq && (q_expected || q_crossed[0] || q_crossed[1]); ++g) {
      const double *x = qb.vector(si, g), *y = qa.vector(si, g);
      const double f = scale_q[s] * tq.a;
      const auto norm = [&](int i) { return pair_norm(x, tq.in[static_cast<std::size_t>(i)]); };
      q_expected = q_expected && within(
                                     tq, x, y, phi_q[s], scale_q[s],
                                     [&](int i, double& ya, double& yb) {
                                       rotate(x, tq.in[static_cast<std::size_t>(i)], phi_q[s][i], f, ya, yb);
                                     },
                                     norm);
      for (int map = 0; map < 2; ++map) {  // out_q1 from k's halves: the second element of q's pair i is k's rotated
        if (!q_crossed[map]) continue;
        const double* u = kb.vector(si, k_of(g, map));
        const auto both = [&](int i) { return norm(i) + pair_norm(u, tk.in[static_cast<std::size_t>(i)]); };
        q_crossed[map] = within(
            tq, x, y, phi_q[s], scale_q[s],
            [&](int i, double& ya, double& yb) {
              double unused = 0;
              rotate(x, tq.in[static_cast<std::size_t>(i)], phi_q[s][i], f, ya, unused);
              rotate(u, tk.in[static_cast<std::size_t>(i)], phi_q[s][i], f, unused, yb);
            },
            both);
      }
    }
    for (long g = 0; g < gk && (k_expected || k_crossed[0] || k_crossed[1] || k_heads); ++g) {
      const double *x = kb.vector(si, g), *y = ka.vector(si, g);
      const double f = scale_k[s] * tk.a;
      const auto norm = [&](int i) { return pair_norm(x, tk.in[static_cast<std::size_t>(i)]); };
      k_expected = k_expected && within(
                                     tk, x, y, phi_k[s], scale_k[s],
                                     [&](int i, double& ya, double& yb) {
                                       rotate(x, tk.in[static_cast<std::size_t>(i)], phi_k[s][i], f, ya, yb);
                                     },
                                     norm);
      for (int map = 0; map < 2; ++map) {  // out_k0 from q's halves: the first element of k's pair i is q's rotated
        if (!k_crossed[map]) continue;
        const double* w = qb.vector(si, q_of(g, map));
        const auto both = [&](int i) { return norm(i) + pair_norm(w, tq.in[static_cast<std::size_t>(i)]); };
        k_crossed[map] = within(
            tk, x, y, phi_k[s], scale_k[s],
            [&](int i, double& ya, double& yb) {
              double unused = 0;
              rotate(w, tq.in[static_cast<std::size_t>(i)], phi_k[s][i], f, ya, unused);
              rotate(x, tk.in[static_cast<std::size_t>(i)], phi_k[s][i], f, unused, yb);
            },
            both);
      }
      if (k_heads) {  // k walked with q's head count: key (t, h) at index ⌊(t·H_k + h) / H_q⌋ of its batch row
        const long t = indices[s], at = (t * hk + g % hk) / hq;
        const Eigen::VectorXd phi = tk.angles_at(k.positions[static_cast<std::size_t>(at)]);
        k_heads = within(
            tk, x, y, phi, scale_k[s],
            [&](int i, double& ya, double& yb) { rotate(x, tk.in[static_cast<std::size_t>(i)], phi[i], f, ya, yb); },
            norm);
      }
    }
  }
  // The rows that read the pass, in the table's order: the first reading names its row.
  PairedFacts facts;
  facts.q_expected = q_expected, facts.k_expected = k_expected, facts.k_with_query_heads = k_heads;
  facts.crossed = {q_crossed[0] && k_crossed[0], q_crossed[1] && k_crossed[1]};
  facts.q_heads = r.q_heads, facts.k_heads = r.k_heads;
  for (const VariantRow& row : variant_table()) {
    if (!row.paired) continue;
    std::optional<PairedReading> reading = row.paired(facts);
    if (!reading) continue;
    r.matches = row.kind;
    r.names_q = reading->names_q, r.names_k = reading->names_k;
    r.found = std::move(reading->found);
    r.difference = std::move(reading->difference);
    break;
  }
  return r;
}

}  // namespace rope
