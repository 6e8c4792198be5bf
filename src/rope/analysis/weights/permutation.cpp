#include "rope/analysis/weights/permutation.hpp"

#include <cmath>
#include <fmt/format.h>
#include <limits>

#include "rope/core/rotation.hpp"
#include "rope/core/apply.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"

namespace rope {

namespace {

Eigen::MatrixXd random_matrix(Random& rng, long rows, int cols) {
  Eigen::MatrixXd w(rows, cols);
  for (Eigen::Index r = 0; r < w.rows(); ++r) {
    for (Eigen::Index c = 0; c < w.cols(); ++c) w(r, c) = rng.normal();
  }
  return w;
}

Eigen::MatrixXd reorder_rows(const Eigen::MatrixXd& w, const std::vector<long>& order) {
  Eigen::MatrixXd out(w.rows(), w.cols());
  for (Eigen::Index r = 0; r < w.rows(); ++r) out.row(r) = w.row(order[static_cast<std::size_t>(r)]);
  return out;
}

/// Head `h` (hd rows) of a projection, rotated at position p in `layout`.
Eigen::VectorXd rotated_head(const Eigen::VectorXd& proj, long h, int hd, const Eigen::VectorXd& theta, double p,
                             Layout layout) {
  const Eigen::VectorXd head = proj.segment(h * hd, hd);
  return apply_rotary<double>(head, theta, p, layout);
}

/// Higham's bound γ_n·Σ|u_i v_i| for one dot product, doubled for the difference of two.
double dot_bound(const Eigen::VectorXd& u, const Eigen::VectorXd& v) {
  const double eps = std::numeric_limits<double>::epsilon() / 2;
  const double n = static_cast<double>(u.size());
  return 2.0 * (n * eps / (1.0 - n * eps)) * (u.cwiseAbs().dot(v.cwiseAbs()));
}

}  // namespace

bool gguf_permutable(long rows, long heads) { return heads >= 1 && rows > 0 && rows % (2 * heads) == 0; }

std::vector<long> gguf_row_order(long rows, long heads) {
  if (heads < 1 || rows < 1 || rows > kMaxPermuteRows) {
    throw InvalidArgument(error_msg("permute: {0} rows in {1} heads: rows must be in 1 … {2} and heads >= 1", rows,
                                    heads, kMaxPermuteRows));
  }
  if (!gguf_permutable(rows, heads)) {
    throw InvalidArgument(
        error_msg("permute: {0} rows cannot be cut into {1} heads of two halves (rows must be a "
                  "multiple of 2 × {2})",
                  rows, heads, heads));
  }
  const long hd = rows / heads;
  std::vector<long> order(static_cast<std::size_t>(rows));
  for (long h = 0; h < heads; ++h) {
    for (long j = 0; j < hd / 2; ++j) {
      for (long s = 0; s < 2; ++s)
        order[static_cast<std::size_t>(h * hd + 2 * j + s)] = h * hd + s * (hd / 2) + j;  // (G1)
    }
  }
  return order;
}

PermuteDemo permute_demo(const PermuteSettings& s) {
  if (s.head_dim < 2 || s.head_dim % 2 != 0 || s.head_dim > 4096) {
    throw InvalidArgument(error_msg("head dimension {0} must be even, in {1} … {2}", s.head_dim, 2, 4096));
  }
  if (s.n_head < 1 || s.n_head_kv < 1 || s.n_head % s.n_head_kv != 0) {
    throw InvalidArgument(error_msg(
        "{0} query heads and {1} KV heads: both must be >= {2}, and the query heads a multiple of the KV heads (each KV head serves a group)",
        s.n_head, s.n_head_kv, 1));
  }
  if (s.n_head > kMaxPermuteRows / s.head_dim) {  // n_head·hd > the limit, without overflow
    if (!s.n_head_from.empty()) {                 // the model's file and key, not a count the user typed
      throw InvalidArgument(error_msg("{0} {1} × {2} rows per head is over the limit of {3} rows", s.n_head_from,
                                      s.n_head, s.head_dim, kMaxPermuteRows));
    }
    throw InvalidArgument(
        error_msg("{0} heads × {1} rows is over the limit of {2} rows", s.n_head, s.head_dim, kMaxPermuteRows));
  }
  if (s.width < 1 || s.width > kMaxPermuteWidth)
    throw InvalidArgument(error_msg("model dim {0} must be in {1} … {2}", s.width, 1, kMaxPermuteWidth));
  if ((s.n_head + s.n_head_kv) * s.head_dim * s.width > kMaxPermuteWeights) {  // each factor is bounded above
    throw InvalidArgument(
        error_msg("({0} + {1} heads) × {2} rows × model dim {3} random weights: over the limit of {4}", s.n_head,
                  s.n_head_kv, s.head_dim, s.width, kMaxPermuteWeights));
  }
  if (s.max_distance < 0 || s.max_distance > kMaxPermuteDistance) {
    throw InvalidArgument(error_msg("max distance {0} must be in {1} … {2}", s.max_distance, 0, kMaxPermuteDistance));
  }
  if (!std::isfinite(s.m) || std::abs(s.m) > 1e9)
    throw InvalidArgument(error_msg("position {0} must be finite, |m| <= {1}", s.m, "1e9"));
  const int hd = s.head_dim;
  const Eigen::VectorXd theta = s.inv_freq ? *s.inv_freq : frequencies(hd, s.base);
  if (theta.size() != hd / 2) {
    throw InvalidArgument(error_msg("{0} frequencies for a head of {1} rows (needs {2})", theta.size(), hd, hd / 2));
  }
  PermuteDemo d;
  d.settings = s;
  const long q_rows = s.n_head * hd;
  const long k_rows = s.n_head_kv * hd;
  d.q_order = gguf_row_order(q_rows, s.n_head);
  d.k_order = gguf_row_order(k_rows, s.n_head_kv);
  if (gguf_permutable(k_rows, s.n_head)) d.k_order_bug = gguf_row_order(k_rows, s.n_head);

  Random rng(s.seed);
  const Eigen::MatrixXd wq = random_matrix(rng, q_rows, s.width);
  const Eigen::MatrixXd wk = random_matrix(rng, k_rows, s.width);
  const Eigen::VectorXd x = random_matrix(rng, s.width, 1).col(0);
  const Eigen::VectorXd y = random_matrix(rng, s.width, 1).col(0);
  const Eigen::VectorXd q_hf = wq * x, k_hf = wk * y;
  const Eigen::VectorXd q_gguf = reorder_rows(wq, d.q_order) * x;
  const Eigen::VectorXd k_gguf = reorder_rows(wk, d.k_order) * y;
  const Eigen::VectorXd k_bug =
      d.k_order_bug ? Eigen::VectorXd(reorder_rows(wk, *d.k_order_bug) * y) : Eigen::VectorXd();

  const long n = s.max_distance + 1;
  d.distances = Eigen::VectorXd::LinSpaced(n, 0.0, static_cast<double>(s.max_distance));
  d.score_hf.resize(n);
  d.score_gguf.resize(n);
  if (d.k_order_bug) d.score_bug.resize(n);
  const long group = s.n_head / s.n_head_kv;
  double sum_sq = 0.0, bug_sum = 0.0;
  for (long h = 0; h < s.n_head; ++h) {
    const Eigen::VectorXd qh = rotated_head(q_hf, h, hd, theta, s.m, Layout::Half);
    const Eigen::VectorXd qg = rotated_head(q_gguf, h, hd, theta, s.m, Layout::Interleaved);
    for (long i = 0; i < n; ++i) {
      const double p = s.m + static_cast<double>(i);
      const Eigen::VectorXd kh = rotated_head(k_hf, h / group, hd, theta, p, Layout::Half);
      const Eigen::VectorXd kg = rotated_head(k_gguf, h / group, hd, theta, p, Layout::Interleaved);
      const double hf = pair_dot(qh, kh, Layout::Half);
      const double gg = pair_dot(qg, kg, Layout::Interleaved);
      d.max_fix_difference = std::max(d.max_fix_difference, std::abs(gg - hf));
      d.tolerance = std::max(d.tolerance, dot_bound(qh, kh));
      sum_sq += hf * hf;
      if (h == 0) {
        d.score_hf[i] = hf;
        d.score_gguf[i] = gg;
      }
      if (d.k_order_bug) {
        const Eigen::VectorXd kb = rotated_head(k_bug, h / group, hd, theta, p, Layout::Interleaved);
        const double bug = pair_dot(qg, kb, Layout::Interleaved);
        d.max_bug_difference = std::max(d.max_bug_difference, std::abs(bug - hf));
        bug_sum += std::abs(bug - hf);
        if (h == 0) d.score_bug[i] = bug;
      }
    }
  }
  d.scores = s.n_head * n;
  d.score_rms = std::sqrt(sum_sq / static_cast<double>(d.scores));
  d.mean_bug_difference = bug_sum / static_cast<double>(d.scores);
  return d;
}

}  // namespace rope
