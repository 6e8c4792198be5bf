// rope attention with a model: its softmax scale and query scaling (attention_model_lines.hpp).
#include "rope/cli/attention_model_lines.hpp"

#include <fmt/format.h>

#include "rope/io/csv.hpp"

namespace rope::cli {

namespace {

/// "1.277" or "1 … 1.277": the range of s(p) over `positions`.
std::string scaling_range(const QueryScaling& q, const Eigen::VectorXd& positions) {
  const double lo = q.at(positions.minCoeff());
  const double hi = q.at(positions.maxCoeff());
  return lo == hi ? fmt::format("{:.6g}", lo) : fmt::format("{:.6g} … {:.6g}", lo, hi);
}

}  // namespace

void use_model_attention(AttentionSettings& settings, const ModelRope& model) {
  if (model.model.attention_scale) settings.scale = model.model.attention_scale->value;
  if (model.model.query_scaling) settings.query_scaling = model.model.query_scaling;
  if (model.model.attention_scale) settings.softcap = model.model.attention_scale->softcap;
}

std::vector<std::string> model_score_lines(const ModelRope& model, const AttentionSettings& settings,
                                           const Eigen::VectorXd& positions, const Text& t) {
  std::vector<std::string> lines;
  const std::optional<AttentionScale>& a = model.model.attention_scale;
  const std::string scale = a ? fmt::format("·{:.6g}", a->value) : std::string("/√d");
  lines.push_back(
      settings.query_scaling
          ? t.tr("s_ij = s(p_i)·<R_i q_i, R_j k_j>{0}, R_p the model's rotation, s(p) its query scaling (S21)", scale)
          : t.tr("s_ij = <R_i q_i, R_j k_j>{0}, R_p the model's rotation (docs/math.md (M8), scaling.md (S19))",
                 scale));
  if (a) {
    lines.push_back(t.tr("softmax scale {0}, the model's attention's own: {1}", attention_scale_text(*a).in(t.lang()),
                         a->from.in(t.lang())));
    if (a->softcap) {
      lines.push_back(t.tr("then capped: s_ij → {0}·tanh(s_ij / {0}) before the softmax ({1})",
                           format_number(*a->softcap), a->softcap_from.in(t.lang())));
    }
  } else {
    lines.push_back(t.tr("softmax scale 1/√d: {0} gives none of its own", model.spec.name));
  }
  if (const std::optional<QueryScaling>& q = settings.query_scaling) {
    lines.push_back(
        t.tr("q_i × s(p_i) after RoPE, s(p) = 1 + {0}·ln(1 + ⌊p / {1}⌋), every layer ({2}): {3} at positions {4} … {5}",
             format_number(q->beta), format_number(q->original), q->from.in(t.lang()), scaling_range(*q, positions),
             format_number(positions.minCoeff()), format_number(positions.maxCoeff())));
  }
  return lines;
}

void mark_query_scaling_change(ShiftRow& row, const AttentionSettings& settings, const Eigen::VectorXd& positions,
                               double shift, const Text& t, bool wide) {
  if (!settings.query_scaling) return;
  const QueryScaling& q = *settings.query_scaling;
  const Eigen::VectorXd moved = positions.array() + shift;
  bool changed = false;
  for (Eigen::Index i = 0; i < positions.size(); ++i) changed = changed || q.at(positions[i]) != q.at(moved[i]);
  if (!changed) return;
  row.ok = true;
  row.by_design = true;
  row.verdict = wide ? t.tr("changed: the query scaling s(p) (S21) is {0} before and {1} after, as in the model",
                            scaling_range(q, positions), scaling_range(q, moved))
                     : t.tr("changed, by design: s(p) {0} → {1}", scaling_range(q, positions), scaling_range(q, moved));
}

}  // namespace rope::cli
