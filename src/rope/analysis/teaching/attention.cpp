#include "rope/analysis/teaching/attention.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>

#include "rope/core/apply.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/core/random.hpp"
#include "rope/analysis/verify/sinusoidal.hpp"
#include "rope/core/tolerance.hpp"

namespace rope {

namespace {

void check_tokens(Eigen::Index tokens) {
  if (tokens < 1 || tokens > kMaxAttentionTokens) {
    throw InvalidArgument(
        error_msg("{0} must be between {1} and {2} (got {3})", "number of tokens", 1, kMaxAttentionTokens, tokens));
  }
}

bool is_integer(double x) { return std::isfinite(x) && std::floor(x) == x; }

/// q_i and k_j after the encoding that acts on the vectors (rope, sinusoidal, learned); the others
/// leave them as they are.
struct Encoded {
  Eigen::MatrixXd q;
  Eigen::MatrixXd k;
};

void validate(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k, const Eigen::VectorXd& positions,
              const AttentionSettings& s) {
  if (q.rows() != k.rows() || q.cols() != k.cols()) {
    throw InvalidArgument(error_msg("q and k must have the same shape (got {0}×{1} and {2}×{3})", q.rows(), q.cols(),
                                    k.rows(), k.cols()));
  }
  check_tokens(q.rows());
  check_dimension(static_cast<int>(q.cols()), kMaxAttentionDim);
  if (positions.size() != q.rows()) {
    throw InvalidArgument(
        error_msg("one position per token is needed ({0} tokens, got {1} positions)", q.rows(), positions.size()));
  }
  for (Eigen::Index i = 0; i < positions.size(); ++i) check_position(positions[i]);
  if (s.scale && !(std::isfinite(*s.scale) && *s.scale > 0)) {
    throw InvalidArgument(error_msg("the softmax scale must be a finite number > 0 (got {0})", *s.scale));
  }
  if (s.softcap && !(std::isfinite(*s.softcap) && *s.softcap > 0)) {
    throw InvalidArgument(error_msg("the score cap must be a finite number > 0 (got {0})", *s.softcap));
  }
  switch (s.encoding) {
    case Encoding::Rope:
      for (Eigen::Index i = 0; s.query_scaling && i < positions.size(); ++i) {
        if (positions[i] < 0) {  // log(1 + ⌊p / L0⌋) of (S21) is not defined below 0; a model's positions start at 0
          throw InvalidArgument(
              error_msg("the query scaling (S21) needs positions >= 0, as the model's position ids are "
                        "(got {0})",
                        positions[i]));
        }
      }
      if (s.spec) {
        rotary_offset_for(*s.spec, static_cast<int>(q.cols()));  // d is the model's head_dim or rotary_dim
        break;
      }
      check_base(s.base);
      break;
    case Encoding::Sinusoidal:
      check_base(s.base);
      break;
    case Encoding::Alibi:
      if (!std::isfinite(s.alibi_slope) || s.alibi_slope < 0) {
        throw InvalidArgument(error_msg("ALiBi slope must be a finite number >= 0 (got {0})", s.alibi_slope));
      }
      break;
    case Encoding::T5Bias:
      t5_relative_position_bucket(0, s.t5);  // checks the bucket settings
      if (s.t5_bias.size() != s.t5.num_buckets) {
        throw InvalidArgument(error_msg("T5 needs one bias per bucket ({0} buckets, got {1} biases)", s.t5.num_buckets,
                                        s.t5_bias.size()));
      }
      for (Eigen::Index i = 0; i < positions.size(); ++i) {
        if (!is_integer(positions[i]) || std::abs(positions[i]) > 1e15) {
          throw InvalidArgument(error_msg("T5 buckets need integer positions (got {0})", positions[i]));
        }
      }
      break;
    case Encoding::LearnedAbsolute:
      if (s.learned_table.cols() != q.cols() || s.learned_table.rows() < 1) {
        throw InvalidArgument(
            error_msg("the learned table must have d = {0} columns and at least one row (got {1}×{2})", q.cols(),
                      s.learned_table.rows(), s.learned_table.cols()));
      }
      for (Eigen::Index i = 0; i < positions.size(); ++i) {
        const double p = positions[i];
        if (!is_integer(p) || p < 0 || p >= static_cast<double>(s.learned_table.rows())) {
          throw InvalidArgument(
              error_msg("a learned table of {0} positions has rows 0 … {1} only: position {2} has no embedding",
                        s.learned_table.rows(), s.learned_table.rows() - 1, p));
        }
      }
      break;
    case Encoding::None:
      break;
  }
}

Encoded encode(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k, const Eigen::VectorXd& positions,
               const AttentionSettings& s) {
  const int d = static_cast<int>(q.cols());
  Encoded e{q, k};
  switch (s.encoding) {
    case Encoding::Rope: {
      if (s.spec) {
        const RopeSpec spec = spec_at_position(*s.spec, positions.cwiseAbs().maxCoeff());
        for (Eigen::Index i = 0; i < q.rows(); ++i) {
          e.q.row(i) = spec_apply(spec, q.row(i).transpose(), positions[i]).transpose();  // (S19)
          e.k.row(i) = spec_apply(spec, k.row(i).transpose(), positions[i]).transpose();
        }
        break;
      }
      const Eigen::VectorXd theta = frequencies(d, s.base);
      for (Eigen::Index i = 0; i < q.rows(); ++i) {
        const Eigen::VectorXd qi = q.row(i).transpose();
        const Eigen::VectorXd ki = k.row(i).transpose();
        e.q.row(i) = apply_rotary<double>(qi, theta, positions[i], Layout::Interleaved).transpose();  // (M9)
        e.k.row(i) = apply_rotary<double>(ki, theta, positions[i], Layout::Interleaved).transpose();
      }
      break;
    }
    case Encoding::Sinusoidal:
      for (Eigen::Index i = 0; i < q.rows(); ++i) {
        const Eigen::RowVectorXd p = sinusoidal_encoding(d, positions[i], s.base).transpose();  // (M12)
        e.q.row(i) += p;
        e.k.row(i) += p;
      }
      break;
    case Encoding::LearnedAbsolute:
      for (Eigen::Index i = 0; i < q.rows(); ++i) {
        const auto t = static_cast<Eigen::Index>(positions[i]);
        e.q.row(i) += s.learned_table.row(t);
        e.k.row(i) += s.learned_table.row(t);
      }
      break;
    case Encoding::None:
    case Encoding::Alibi:
    case Encoding::T5Bias:
      break;
  }
  if (s.encoding == Encoding::Rope && s.query_scaling) {  // (S21): the query only, after RoPE
    for (Eigen::Index i = 0; i < q.rows(); ++i) e.q.row(i) *= s.query_scaling->at(positions[i]);
  }
  return e;
}

/// The term added to the score of query position pi and key position pj (0 for the encodings that act
/// on the vectors).
double bias(const AttentionSettings& s, double pi, double pj) {
  switch (s.encoding) {
    case Encoding::Alibi:
      return 0.0 - s.alibi_slope * std::abs(pi - pj);
    case Encoding::T5Bias:
      return s.t5_bias[t5_relative_position_bucket(static_cast<long>(pj - pi), s.t5)];
    default:
      return 0.0;
  }
}

/// Rows first … first + count − 1 of the scores (a matrix product per block of rows is much faster than
/// one matrix-vector product per row).
Eigen::MatrixXd score_rows(const Encoded& e, const Eigen::VectorXd& positions, const AttentionSettings& s,
                           Eigen::Index first, Eigen::Index count) {
  Eigen::MatrixXd rows = (e.q.middleRows(first, count) * e.k.transpose()) * score_scale(s, e.q.cols());
  if (s.softcap) rows = (rows.array() / *s.softcap).tanh() * *s.softcap;  // as HF's eager softcap: / cap, tanh, × cap
  if (s.encoding == Encoding::Alibi || s.encoding == Encoding::T5Bias) {
    for (Eigen::Index r = 0; r < count; ++r) {
      for (Eigen::Index j = 0; j < rows.cols(); ++j) rows(r, j) += bias(s, positions[first + r], positions[j]);
    }
  }
  return rows;
}

/// Rows per block in shift_test: 256 × 4096 doubles, 8 MiB per block.
constexpr Eigen::Index kShiftBlock = 256;

/// softmax of the first `keys` entries of `row`; the others 0.
Eigen::VectorXd softmax(const Eigen::VectorXd& row, Eigen::Index keys) {
  Eigen::VectorXd a = Eigen::VectorXd::Zero(row.size());
  const double top = row.head(keys).maxCoeff();
  double sum = 0.0;
  for (Eigen::Index j = 0; j < keys; ++j) {
    a[j] = std::exp(row[j] - top);
    sum += a[j];
  }
  a.head(keys) /= sum;
  return a;
}

Eigen::Index keys_seen(Eigen::Index i, Eigen::Index tokens, bool causal) { return causal ? i + 1 : tokens; }

}  // namespace

double score_scale(const AttentionSettings& settings, Eigen::Index d) {
  return settings.scale.value_or(1.0 / std::sqrt(static_cast<double>(d)));
}

std::string_view to_string(Encoding encoding) {
  switch (encoding) {
    case Encoding::None:
      return "none";
    case Encoding::Rope:
      return "rope";
    case Encoding::Sinusoidal:
      return "sinusoidal";
    case Encoding::Alibi:
      return "alibi";
    case Encoding::T5Bias:
      return "t5";
    case Encoding::LearnedAbsolute:
      return "learned";
  }
  return "?";
}

Encoding parse_encoding(std::string_view text) {
  if (text == "rope") return Encoding::Rope;
  if (text == "sinusoidal") return Encoding::Sinusoidal;
  if (text == "alibi") return Encoding::Alibi;
  if (text == "none") return Encoding::None;
  throw InvalidArgument(error_msg("encoding must be 'rope', 'sinusoidal', 'alibi' or 'none' (got '{0}')", text));
}

int t5_relative_position_bucket(long relative_position, const T5Buckets& b) {
  const int per_direction = b.bidirectional ? b.num_buckets / 2 : b.num_buckets;
  const int max_exact = per_direction / 2;
  if (b.num_buckets < 2 || (b.bidirectional && b.num_buckets % 2 != 0) || max_exact < 1 ||
      b.max_distance <= max_exact) {
    throw InvalidArgument(
        error_msg("T5 buckets need num_buckets >= {0} ({1}) and max_distance > num_buckets/{2} (got {3} and {4})",
                  b.bidirectional ? 4 : 2, b.bidirectional ? "even, half per direction" : "one direction",
                  b.bidirectional ? 4 : 2, b.num_buckets, b.max_distance));
  }
  int bucket = 0;
  long distance = 0;
  if (b.bidirectional) {
    if (relative_position > 0) bucket += per_direction;  // keys after the query
    distance = relative_position < 0 ? -relative_position : relative_position;
  } else {
    distance = relative_position < 0 ? -relative_position : 0;  // keys after the query: bucket 0
  }
  if (distance < max_exact) return bucket + static_cast<int>(distance);
  const double large = std::log(static_cast<double>(distance) / max_exact) /
                       std::log(static_cast<double>(b.max_distance) / max_exact) * (per_direction - max_exact);
  const int log_bucket = max_exact + static_cast<int>(large);  // truncation, as .to(torch.long)
  return bucket + std::min(log_bucket, per_direction - 1);
}

QueriesKeys random_queries_keys(int tokens, int d, std::uint64_t seed) {
  check_tokens(tokens);
  check_dimension(d, kMaxAttentionDim);
  Random rng(seed);
  QueriesKeys qk{Eigen::MatrixXd(tokens, d), Eigen::MatrixXd(tokens, d)};
  for (Eigen::MatrixXd* m : {&qk.q, &qk.k}) {
    for (int i = 0; i < tokens; ++i) {
      for (int c = 0; c < d; ++c) (*m)(i, c) = rng.normal();
    }
  }
  return qk;
}

Eigen::VectorXd token_positions(int tokens, double first) {
  Eigen::VectorXd p(tokens);
  for (int i = 0; i < tokens; ++i) p[i] = first + i;
  return p;
}

Eigen::MatrixXd attention_scores(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k, const Eigen::VectorXd& positions,
                                 const AttentionSettings& settings) {
  validate(q, k, positions, settings);
  const Encoded e = encode(q, k, positions, settings);
  Eigen::MatrixXd s = (e.q * e.k.transpose()) * score_scale(settings, q.cols());
  if (settings.softcap) s = (s.array() / *settings.softcap).tanh() * *settings.softcap;
  if (settings.encoding == Encoding::Alibi || settings.encoding == Encoding::T5Bias) {
    for (Eigen::Index i = 0; i < s.rows(); ++i) {
      for (Eigen::Index j = 0; j < s.cols(); ++j) s(i, j) += bias(settings, positions[i], positions[j]);
    }
  }
  return s;
}

Eigen::MatrixXd softmax_rows(const Eigen::MatrixXd& scores, bool causal) {
  if (scores.rows() != scores.cols() || scores.size() == 0) {
    throw InvalidArgument(
        error_msg("scores must be a non-empty square matrix (got {0}×{1})", scores.rows(), scores.cols()));
  }
  Eigen::MatrixXd a(scores.rows(), scores.cols());
  for (Eigen::Index i = 0; i < scores.rows(); ++i) {
    a.row(i) = softmax(scores.row(i).transpose(), keys_seen(i, scores.cols(), causal)).transpose();
  }
  return a;
}

Eigen::MatrixXd attention_weights(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k, const Eigen::VectorXd& positions,
                                  const AttentionSettings& settings) {
  return softmax_rows(attention_scores(q, k, positions, settings), settings.causal);
}

ShiftReport shift_test(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k, const Eigen::VectorXd& positions,
                       double shift, const AttentionSettings& settings) {
  if (!std::isfinite(shift)) throw InvalidArgument(error_msg("shift must be a finite number (got {0})", shift));
  const Eigen::VectorXd moved = positions.array() + shift;
  validate(q, k, positions, settings);
  validate(q, k, moved, settings);
  const Encoded before = encode(q, k, positions, settings);
  const Encoded after = encode(q, k, moved, settings);
  const auto d = static_cast<int>(q.cols());
  const double scale_qk = score_scale(settings, d);
  // A model's attention factor a multiplies both rotated vectors, so the scores and their rounding by a².
  double a2 = 1.0;
  if (settings.encoding == Encoding::Rope && settings.spec) {
    const double a = std::max(spec_at_position(*settings.spec, positions.cwiseAbs().maxCoeff()).attention_factor(),
                              spec_at_position(*settings.spec, moved.cwiseAbs().maxCoeff()).attention_factor());
    a2 = std::max(1.0, a * a);
    // (S21): the query scaled at its position, before and after the shift: the larger bounds the rounding.
    if (settings.query_scaling) {
      a2 *= std::max(settings.query_scaling->at(positions.cwiseAbs().maxCoeff()),
                     settings.query_scaling->at(moved.cwiseAbs().maxCoeff()));
    }
  }
  const Eigen::VectorXd q_norm = q.rowwise().norm() * a2;
  const Eigen::VectorXd k_norm = k.rowwise().norm();

  ShiftReport r;
  r.shift = shift;
  const Eigen::Index n = q.rows();
  Eigen::MatrixXd block0, block1;
  for (Eigen::Index i = 0; i < n; ++i) {
    if (i % kShiftBlock == 0) {
      block0 = score_rows(before, positions, settings, i, std::min(kShiftBlock, n - i));
      block1 = score_rows(after, moved, settings, i, std::min(kShiftBlock, n - i));
    }
    const Eigen::Index keys = keys_seen(i, n, settings.causal);
    const Eigen::VectorXd s0 = block0.row(i % kShiftBlock).transpose();
    const Eigen::VectorXd s1 = block1.row(i % kShiftBlock).transpose();
    for (Eigen::Index j = 0; j < keys; ++j) {
      const double change = std::abs(s1[j] - s0[j]);
      const double scale = q_norm[i] * k_norm[j] * scale_qk;
      r.max_abs_change = std::max(r.max_abs_change, change);
      if (change > 0) r.check.difference = std::max(r.check.difference, scale > 0 ? change / scale : INFINITY);
      const double budget = std::abs(positions[i]) + std::abs(positions[j]) + std::abs(moved[i]) + std::abs(moved[j]);
      r.position_budget = std::max(r.position_budget, budget);
    }
    const Eigen::VectorXd a0 = softmax(s0, keys);
    const Eigen::VectorXd a1 = softmax(s1, keys);
    r.max_weight_change = std::max(r.max_weight_change, (a1 - a0).cwiseAbs().maxCoeff());
  }
  r.check.tolerance = relative_tolerance(machine_epsilon<double>(), d, r.position_budget);
  return r;
}

}  // namespace rope
