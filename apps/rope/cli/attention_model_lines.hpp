/// @file
/// What `rope attention --model/--config/GGUF` says of the model's own attention (docs/scaling.md (S22)): the score
/// formula with the softmax scale it uses (HF's self.scaling, llama.cpp's kq_scale: ModelConfig::attention_scale)
/// and where that came from, the query scaling (S21) at the positions shown, and the shift test's row when the
/// query scaling moves with the shift.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "rope/analysis/attention.hpp"
#include "rope/cli/attention_shift_table.hpp"
#include "rope/cli/lang.hpp"
#include "rope/models/resolve.hpp"

namespace rope::cli {

/// The settings' softmax scale and query scaling from the model (none from plain RoPE or a vision tower: 1/√d).
void use_model_attention(AttentionSettings& settings, const ModelRope& model);

/// The score formula of RoPE with the model, then a line on its softmax scale (value, rule, where from) and, for a
/// model with query scaling, a line on s(p) at `positions`.
std::vector<std::string> model_score_lines(const ModelRope& model, const AttentionSettings& settings,
                                           const Eigen::VectorXd& positions, const Text& t);

/// The shift test's RoPE row when the query scaling s(p) is not the same at positions and positions + shift: the
/// scores change as the model's do, by design (exit 0), and the verdict says s(p) before and after.
void mark_query_scaling_change(ShiftRow& row, const AttentionSettings& settings, const Eigen::VectorXd& positions,
                               double shift, const Text& t, bool wide);

}  // namespace rope::cli
