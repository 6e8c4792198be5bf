// rope attention's computation (attention_run.hpp): the scores, the shift rows' verdicts and a model's score
// lines, for every front end.
#include "rope/analysis/teaching/attention_run.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "rope/analysis/teaching/alibi.hpp"
#include "rope/analysis/teaching/motion.hpp"
#include "rope/core/error.hpp"
#include "rope/core/message.hpp"
#include "rope/models/rope_spec.hpp"

namespace rope {

std::string scaling_range(const QueryScaling& q, const Eigen::VectorXd& positions) {
  const double lo = q.at(positions.minCoeff());
  const double hi = q.at(positions.maxCoeff());
  return lo == hi ? fmt::format("{:.6g}", lo) : fmt::format("{:.6g} … {:.6g}", lo, hi);
}

void use_model_attention(AttentionSettings& settings, const ModelRope& model) {
  if (model.model.attention_scale) settings.scale = model.model.attention_scale->value;
  if (model.model.query_scaling) settings.query_scaling = model.model.query_scaling;
  if (model.model.attention_scale) settings.softcap = model.model.attention_scale->softcap;
}

ShiftRow judge_shift(Encoding e, const ShiftReport& r, bool wide) {
  const Message bug = msg("CHANGED (a bug)");
  switch (e) {
    case Encoding::Rope:
      return {e, r, r.check.passed(),
              r.check.passed()
                  ? wide ? msg("invariant: rounding only, within the tolerance") : msg("invariant: rounding only")
                  : msg("CHANGED beyond rounding (a bug)")};
    case Encoding::Sinusoidal:
      return {e, r, true, r.check.passed() ? msg("unchanged for these q, k") : msg("changed: leaks absolute position")};
    case Encoding::Alibi:
      return {e, r, r.max_abs_change == 0.0, r.max_abs_change == 0.0 ? msg("invariant: exactly") : bug};
    default:
      return {e, r, r.max_abs_change == 0.0,
              r.max_abs_change == 0.0 ? msg("invariant: trivially, position-blind") : bug};
  }
}

void mark_regime_change(ShiftRow& row, long before, long after, bool wide) {
  row.ok = true;
  row.by_design = true;
  row.verdict = wide ? msg("changed: the frequencies depend on seq_len ({0} → {1}), as in the model", before, after)
                     : msg("changed, by design: seq_len {0} → {1}", before, after);
}

void mark_query_scaling_change(ShiftRow& row, const AttentionSettings& settings, const Eigen::VectorXd& positions,
                               double shift, bool wide) {
  if (!settings.query_scaling) return;
  const QueryScaling& q = *settings.query_scaling;
  const Eigen::VectorXd moved = positions.array() + shift;
  bool changed = false;
  for (Eigen::Index i = 0; i < positions.size(); ++i) changed = changed || q.at(positions[i]) != q.at(moved[i]);
  if (!changed) return;
  row.ok = true;
  row.by_design = true;
  row.verdict = wide ? msg("changed: the query scaling s(p) (S21) is {0} before and {1} after, as in the model",
                           scaling_range(q, positions), scaling_range(q, moved))
                     : msg("changed, by design: s(p) {0} → {1}", scaling_range(q, positions), scaling_range(q, moved));
}

namespace {

AttentionResult setup_for(const AttentionRequest& opt, Encoding encoding) {
  AttentionResult s;
  s.encoding = encoding;
  if (encoding == Encoding::Rope && opt.model) {
    s.settings.spec = opt.model->spec;
    use_model_attention(s.settings, *opt.model);  // its softmax scale, its query scaling (S21)
  }
  s.settings.encoding = encoding;
  s.settings.base = opt.base;
  s.settings.causal = opt.causal;
  if (encoding == Encoding::Alibi) {
    s.slope = alibi_slopes(opt.heads)[static_cast<std::size_t>(opt.head - 1)];
    s.settings.alibi_slope = s.slope;
  }
  return s;
}

}  // namespace

AttentionRun run_attention(const AttentionRequest& opt) {
  if (opt.compare && opt.csv_stdout) {
    throw InvalidArgument(error_msg("{0} writes one CSV per encoding: give {1} FILE, not '-'", option_name("compare"),
                                    option_name("csv")));
  }
  AttentionRun run;
  run.request = opt;
  const QueriesKeys& qk = run.qk =
      opt.user ? *opt.user : random_queries_keys(opt.tokens, opt.model ? opt.model->spec.head_dim : opt.dim, opt.seed);
  const Eigen::VectorXd& positions = run.positions = token_positions(opt.tokens);
  // dynamic and longrope: HF takes the frequencies at seq_len = max(position) + 1, so a shift past L0
  // changes them, and the scores with them: what the model does, not a bug.
  std::optional<std::pair<long, long>> regime_change;
  if (opt.model && opt.shift) {
    const RopeSpec before = spec_at_position(opt.model->spec, opt.tokens - 1.0);
    const RopeSpec after =
        spec_at_position(opt.model->spec, std::abs(static_cast<double>(*opt.shift) + opt.tokens - 1.0));
    if (before.params.inv_freq != after.params.inv_freq || before.attention_factor() != after.attention_factor()) {
      regime_change = {before.config.seq_len.value_or(0), after.config.seq_len.value_or(0)};
    }
  }
  for (Encoding e : opt.encodings) {
    AttentionResult r = setup_for(opt, e);
    r.a = attention_weights(qk.q, qk.k, positions, r.settings);
    if (e == Encoding::Alibi) r.bias = alibi_bias(positions, r.slope);
    if (opt.shift) {
      run.shifts.push_back(
          judge_shift(e, shift_test(qk.q, qk.k, positions, static_cast<double>(*opt.shift), r.settings), opt.wide));
      if (e == Encoding::Rope && regime_change)
        mark_regime_change(run.shifts.back(), regime_change->first, regime_change->second, opt.wide);
      if (e == Encoding::Rope)
        mark_query_scaling_change(run.shifts.back(), r.settings, positions, static_cast<double>(*opt.shift), opt.wide);
    }
    run.results.push_back(std::move(r));
  }
  run.passed = std::all_of(run.shifts.begin(), run.shifts.end(), [](const ShiftRow& s) { return s.ok; });
  for (const AttentionResult& r : run.results) run.shared_max = std::max(run.shared_max, r.a.maxCoeff());
  // The GIF: every frame's weights first, so that compare can put every encoding's frames on one scale.
  if (opt.frames > 0 && opt.shift) {  // every position + c_k, c_k from 0 to C (rope/analysis/teaching/motion.hpp)
    run.frame_shifts = motion::integer_sweep(*opt.shift, opt.frames);
    for (const AttentionResult& r : run.results) {
      run.frame_weights.push_back(motion::shifted_weights(qk.q, qk.k, positions, r.settings, run.frame_shifts));
      for (const Eigen::MatrixXd& a : run.frame_weights.back()) run.frames_max = std::max(run.frames_max, a.maxCoeff());
    }
  }
  return run;
}

}  // namespace rope
