// Matching a candidate's rows to a reference's, head block by head block (weights_match.hpp).
#include "rope/analysis/weights/weights_match.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "rope/core/error.hpp"
#include "rope/core/message.hpp"

namespace rope {

namespace {

using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

Eigen::Map<const RowMajor> block_rows(const WeightRows& w, long first, long count) {
  return {w.data + first * w.cols, count, w.cols};
}

/// Rows scaled to unit length (a zero row stays zero).
RowMajor unit_rows(const Eigen::Map<const RowMajor>& m) {
  RowMajor out = m;
  for (Eigen::Index r = 0; r < out.rows(); ++r) {
    const double n = m.row(r).cast<double>().norm();
    if (n > 0) out.row(r) /= static_cast<float>(n);
  }
  return out;
}

/// Candidate row i of the block holds reference row hit[i], when every row has exactly one bit-equal copy.
std::optional<std::vector<long>> exact_block(const WeightRows& ref, const WeightRows& cand, long first, long d) {
  const std::size_t bytes = static_cast<std::size_t>(ref.cols) * sizeof(float);
  std::unordered_map<std::string_view, long> where;
  const auto row = [&](const WeightRows& w, long r) {
    return std::string_view(reinterpret_cast<const char*>(w.data + (first + r) * w.cols), bytes);
  };
  for (long r = 0; r < d; ++r) {
    if (!where.emplace(row(ref, r), r).second) return std::nullopt;  // two equal rows: ambiguous
  }
  std::vector<long> hit(static_cast<std::size_t>(d));
  std::vector<char> used(static_cast<std::size_t>(d), 0);
  for (long i = 0; i < d; ++i) {
    const auto it = where.find(row(cand, i));
    if (it == where.end() || used[static_cast<std::size_t>(it->second)]) return std::nullopt;
    used[static_cast<std::size_t>(it->second)] = 1;
    hit[static_cast<std::size_t>(i)] = it->second;
  }
  return hit;
}

/// The measured map: per block the exact copies, else each candidate row's most correlated reference row (not
/// always a permutation). `exact`: every block matched by bytes. nullopt for a bias (one column: no correlation).
std::optional<std::vector<long>> measured_order(const WeightRows& ref, const WeightRows& cand, long heads,
                                                bool& exact) {
  const long d = ref.rows / heads;
  std::vector<long> order(static_cast<std::size_t>(ref.rows));
  int inexact = 0;  // blocks without bit-equal copies
  // The blocks are independent and write disjoint rows of `order`: both cores (a block is d × cols floats, 2 MB
  // for d = 128 at width 4096; the product d² × cols multiply-adds).
#pragma omp parallel for schedule(dynamic) reduction(+ : inexact) if (ref.rows * ref.cols >= (1L << 20))
  for (long h = 0; h < heads; ++h) {
    const long first = h * d;
    if (auto hit = exact_block(ref, cand, first, d)) {
      for (long i = 0; i < d; ++i)
        order[static_cast<std::size_t>(first + i)] = first + (*hit)[static_cast<std::size_t>(i)];
      continue;
    }
    ++inexact;
    if (ref.cols < 2) continue;
    const RowMajor c = unit_rows(block_rows(cand, first, d));
    const RowMajor r = unit_rows(block_rows(ref, first, d));
    const Eigen::MatrixXf s = c * r.transpose();  // d × d
    for (long i = 0; i < d; ++i) {
      Eigen::Index best = 0;
      s.row(i).maxCoeff(&best);
      order[static_cast<std::size_t>(first + i)] = first + static_cast<long>(best);
    }
  }
  exact = inexact == 0;
  if (!exact && ref.cols < 2) return std::nullopt;  // a bias: no correlation of one column
  return order;
}

}  // namespace

double weight_residual(const WeightRows& ref, const WeightRows& cand, const std::vector<long>& order) {
  double diff = 0, norm = 0;
#pragma omp parallel for schedule(static) reduction(+ : diff, norm) if (cand.rows * cand.cols >= (1L << 20))
  for (long r = 0; r < cand.rows; ++r) {
    const float* c = cand.data + r * cand.cols;
    const float* p = ref.data + order[static_cast<std::size_t>(r)] * ref.cols;
    for (long j = 0; j < cand.cols; ++j) {
      const double e = static_cast<double>(c[j]) - static_cast<double>(p[j]);
      diff += e * e;
      norm += static_cast<double>(c[j]) * static_cast<double>(c[j]);
    }
  }
  if (norm == 0) return diff == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  return std::sqrt(diff / norm);
}

Eigen::MatrixXd head_correlation(const WeightRows& ref, const WeightRows& cand, long heads, long head) {
  const long d = ref.rows / heads;
  const RowMajor c = unit_rows(block_rows(cand, head * d, d));
  const RowMajor r = unit_rows(block_rows(ref, head * d, d));
  return (c.cast<double>() * r.cast<double>().transpose());
}

WeightMatch match_weights(const WeightRows& ref, const WeightRows& cand, const WeightShape& shape, WeightMap expected) {
  if (ref.rows != cand.rows || ref.cols != cand.cols) {
    throw InvalidArgument(error_msg("the reference has {0} × {1} values, the candidate {2} × {3}: the shapes differ",
                                    ref.rows, ref.cols, cand.rows, cand.cols));
  }
  if (shape.heads < 1 || ref.rows % shape.heads != 0 || shape.rows != ref.rows) {
    throw InvalidArgument(error_msg("{0} rows are not {1} heads of equal size", ref.rows, shape.heads));
  }
  struct Candidate {
    std::vector<long> order;
    std::vector<WeightMap> maps;  // empty: the measured map
    double residual = 0;
  };
  std::vector<Candidate> all;
  for (DistinctMap& d : distinct_maps(shape)) all.push_back({std::move(d.order), std::move(d.maps), 0});
  bool exact = false;
  const auto measured = measured_order(ref, cand, shape.heads, exact);
  bool measured_known = false;
  for (Candidate& c : all) {
    c.residual = weight_residual(ref, cand, c.order);
    if (measured && c.order == *measured) measured_known = true;
  }
  const auto rank = [&](const Candidate& c) {  // ties: the expected map first, then catalog order; NaN last
    const bool is_expected = std::find(c.maps.begin(), c.maps.end(), expected) != c.maps.end();
    const double r = std::isnan(c.residual) ? std::numeric_limits<double>::infinity() : c.residual;
    return std::make_tuple(std::isnan(c.residual), r, is_expected ? 0 : 1);
  };
  std::stable_sort(all.begin(), all.end(), [&](const Candidate& a, const Candidate& b) { return rank(a) < rank(b); });
  if (measured && !measured_known) {
    const double residual = weight_residual(ref, cand, *measured);
    if (all.empty() || residual < 0.5 * all.front().residual) all.insert(all.begin(), {*measured, {}, residual});
  }
  WeightMatch m;
  m.exact = exact && measured && !all.empty() && all.front().order == *measured;
  m.runner_up_residual = std::numeric_limits<double>::quiet_NaN();
  if (all.empty()) return m;  // not reached: identity always applies
  const Candidate& best = all.front();
  m.order = best.order;
  m.residual = best.residual;
  if (best.maps.empty()) {
    m.map = WeightMap::Unknown;
  } else {
    const bool has_expected = std::find(best.maps.begin(), best.maps.end(), expected) != best.maps.end();
    m.map = has_expected ? expected : best.maps.front();
    for (WeightMap w : best.maps) {
      if (w != m.map) m.same_as.push_back(w);
    }
  }
  if (all.size() > 1) {
    const Candidate& second = all[1];
    if (second.maps.empty()) {
      m.runner_up = WeightMap::Unknown;
    } else {
      const bool has_expected = std::find(second.maps.begin(), second.maps.end(), expected) != second.maps.end();
      m.runner_up = has_expected ? expected : second.maps.front();
    }
    m.runner_up_residual = second.residual;
  }
  m.explained =
      m.residual <= kWeightResidualBound && (!m.runner_up || m.residual < kWeightRunnerUpMargin * m.runner_up_residual);
  return m;
}

}  // namespace rope
