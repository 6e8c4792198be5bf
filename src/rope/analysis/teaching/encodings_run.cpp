#include "rope/analysis/teaching/encodings_run.hpp"

#include <fmt/format.h>

#include "rope/analysis/teaching/alibi.hpp"
#include "rope/analysis/verify/sinusoidal.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/core/message.hpp"

namespace rope {

namespace {

void check_encodings_request(const EncodingsRequest& opt) {
  if (opt.tokens < 1 || opt.tokens > kMaxAttentionTokens) {
    throw InvalidArgument(error_msg("{0} must be between {1} and {2} (got {3})", option_name("tokens"), 1,
                                    kMaxAttentionTokens, opt.tokens));
  }
  check_dimension(opt.dim, kMaxAttentionDim, option_name("dim"));
  check_base(opt.base);
  if (opt.heads < 1 || opt.heads > kMaxAlibiHeads) {
    throw InvalidArgument(
        error_msg("{0} must be between {1} and {2} (got {3})", option_name("heads"), 1, kMaxAlibiHeads, opt.heads));
  }
  if (opt.context < 1 || opt.context > kMaxEncodingsContext) {
    throw InvalidArgument(error_msg("{0} must be between {1} and {2} (got {3})", option_name("context"), 1,
                                    kMaxEncodingsContext, opt.context));
  }
  if (opt.shift < 0 || opt.shift > kMaxEncodingsShift) {
    throw InvalidArgument(
        error_msg("{0} must be between {1} and {2} (got {3}): the learned table has no negative positions",
                  option_name("shift"), 0, kMaxEncodingsShift, opt.shift));
  }
  const double work = static_cast<double>(opt.tokens) * opt.tokens * opt.dim;
  if (work > kMaxEncodingsWork) {
    throw InvalidArgument(
        error_msg("{0}² × {1} must be at most {2} (got {3}² × {4} = {5}): the shift test computes every score of five "
                  "encodings twice; lower the tokens or the dimension",
                  option_name("tokens"), option_name("dim"), "2^32", opt.tokens, opt.dim, fmt::format("{:g}", work)));
  }
  if (opt.tokens + opt.shift > opt.context) {
    throw InvalidArgument(
        error_msg("{0} + {1} must be <= {2}: the learned table has rows 0 … {3} only (got {4} + {5} = {6})",
                  option_name("tokens"), option_name("shift"), option_name("context"), opt.context - 1, opt.tokens,
                  opt.shift, opt.tokens + opt.shift));
  }
}

}  // namespace

EncodingsRun run_encodings(const EncodingsRequest& request) {
  check_encodings_request(request);
  EncodingsRun run;
  run.request = request;
  const int n = request.tokens;
  const int d = request.dim;
  run.slopes = alibi_slopes(request.heads);
  run.theta = frequencies(d, request.base);
  const T5Buckets& t5 = run.t5;

  // The same q_i, k_j for every encoding; the trained tables of learned and T5 replaced by random ones.
  const QueriesKeys qk = random_queries_keys(n, d, request.seed);
  const Eigen::VectorXd positions = token_positions(n);
  Random rng(request.seed + 1);
  Eigen::MatrixXd table(n + request.shift, d);  // the rows 0 … N − 1 + C that the test reads
  for (Eigen::Index r = 0; r < table.rows(); ++r) {
    for (int c = 0; c < d; ++c) table(r, c) = rng.normal();
  }
  Eigen::VectorXd t5_bias(t5.num_buckets);
  for (int b = 0; b < t5.num_buckets; ++b) t5_bias[b] = rng.normal();
  for (Encoding e : kEncodingsColumns) {
    AttentionSettings s;
    s.encoding = e;
    s.base = request.base;
    s.alibi_slope = run.slopes.front();
    s.t5_bias = t5_bias;
    s.learned_table = table;
    run.shifts.push_back(shift_test(qk.q, qk.k, positions, static_cast<double>(request.shift), s));
  }
  run.rope_passed = run.shifts.back().check.passed();
  run.exact_passed = run.shifts[2].max_abs_change == 0.0 && run.shifts[3].max_abs_change == 0.0;

  for (long dist = 0, last = -1; dist <= 4 * t5.max_distance; ++dist) {
    const int b = t5_relative_position_bucket(-dist, t5);
    if (b != last) run.t5_starts.push_back(dist), last = b;
  }
  for (const long dist : run.t5_starts) {
    run.t5_before.push_back(t5_relative_position_bucket(-dist, t5));
    run.t5_after.push_back(dist == 0 ? -1 : t5_relative_position_bucket(dist, t5));
  }

  const double distances[] = {0, 10, 100, 1000};
  run.distances = Eigen::Map<const Eigen::VectorXd>(distances, std::size(distances));
  run.random = random_scores(run.theta, run.distances, kEncodingsDecaySamples, request.seed);
  const Eigen::VectorXd p0 = sinusoidal_encoding(d, 0.0, request.base);
  const Eigen::Index m = run.distances.size();
  run.bound.resize(m);
  run.ones.resize(m);
  run.sinusoidal.resize(m);
  for (Eigen::Index k = 0; k < m; ++k) {
    run.bound[k] = decay_bound(run.theta, run.distances[k]);
    run.ones[k] = ones_score(run.theta, run.distances[k]);
    run.sinusoidal[k] = p0.dot(sinusoidal_encoding(d, run.distances[k], request.base));
  }
  run.first_beyond = first_pair_beyond(wavelengths(run.theta), static_cast<double>(request.context));
  return run;
}

}  // namespace rope
