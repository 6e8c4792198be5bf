// rope matrix's computation (matrix_run.hpp), for every front end.
#include "rope/analysis/teaching/matrix_run.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "rope/core/error.hpp"
#include "rope/core/rotation.hpp"
#include "rope/core/types.hpp"
#include "rope/models/rope_float32.hpp"
#include "rope/models/rope_spec.hpp"

namespace rope {

namespace {

/// R_Mᵀ R_N beside R_(N−M) (M7), per axis (A5) for a model with multimodal sections or a vision tower.
void relative(MatrixRun& run, const AxisPosition& m, const AxisPosition& n) {
  const ModelRope& rope = run.rope;
  const int dim = run.dim;
  for (int k = 0; k < m.count; ++k)
    check_position_resolvable(m.value[static_cast<std::size_t>(k)], dim, option_name("relative") + " M");
  for (int k = 0; k < n.count; ++k)
    check_position_resolvable(n.value[static_cast<std::size_t>(k)], dim, option_name("relative") + " N");
  const AxisMap* axes = !rope.plain && rope.spec.axes ? &*rope.spec.axes : nullptr;
  run.rotation = relative_rotation(rope.spec.params.inv_freq, axes, m, n, rope.spec.layout);
  const double diff = (run.rotation->product - run.rotation->rotation).cwiseAbs().maxCoeff();
  // The angles reach θ_i·|p + o|: a vision tower's offset o (Llama 4's 1) counts in the tolerance.
  const double o = axes ? axes->position_offset : 0.0;
  run.offset = o;
  const auto reach = [o](const AxisPosition& p) {
    double r = 0;
    for (int k = 0; k < p.count; ++k) r = std::max(r, std::abs(p.value[static_cast<std::size_t>(k)] + o));
    return r;
  };
  // Each of M and N resolves on its own, but the check's budget 2(|m| + |n|) must too: where it reaches
  // max_resolvable_position the tolerance of (M13) reaches 1 and "equal" would mean nothing.
  const double budget = 2 * (reach(m) + reach(n));
  if (budget >= max_resolvable_position(dim)) {
    throw InvalidArgument(error_msg(
        "{0} M N: 2·(|m| + |n|) = {1} is beyond what float64 resolves at d = {2}: it must be below {3}, where the tolerance κ·ε·(d + 2(|m| + |n|)) of (M13) reaches 1",
        option_name("relative"), fmt::format("{:g}", budget), dim,
        fmt::format("{:.3g}", max_resolvable_position(dim))));
  }
  run.check = Check{diff, 1.0, relative_tolerance(machine_epsilon<double>(), dim, budget)};
}

/// FoPE's R_Mᵀ R_N beside R_(N−M) (fope_apply.hpp), each the key-value head's blocks at its position.
void fope_relative(MatrixRun& run, double m, double n) {
  const RopeSpec& spec = run.rope.spec;
  const Eigen::MatrixXd rm = fope_matrix(spec, fope_blocks(spec, *run.fope_head, m), run.dim);
  const Eigen::MatrixXd rn = fope_matrix(spec, fope_blocks(spec, *run.fope_head, n), run.dim);
  RelativeRotation rel;
  rel.delta = AxisPosition::single(n - m);
  rel.product = rm.transpose() * rn;
  rel.rotation = fope_matrix(spec, fope_blocks(spec, *run.fope_head, n - m), run.dim);
  const Eigen::MatrixXd diff = (rel.product - rel.rotation).cwiseAbs();
  Eigen::Index row = 0, column = 0;
  const double largest = diff.maxCoeff(&row, &column);
  run.fope_row = static_cast<long>(row), run.fope_column = static_cast<long>(column);
  // The tolerance of a rotation's (M13), scaled by the largest |ζ|² the product can reach.
  double s = 1;
  for (const double v : {m, n, n - m}) s = std::max(s, fope_blocks(spec, *run.fope_head, v).scale.maxCoeff());
  run.check =
      Check{largest, s * s, relative_tolerance(machine_epsilon<double>(), run.dim, 2 * (std::abs(m) + std::abs(n)))};
  run.rotation = std::move(rel);
}

}  // namespace

MatrixRun run_matrix(const MatrixRequest& request) {
  const ModelRope& rope = request.rope;
  MatrixRun run;
  run.rope = rope;
  run.digits = request.digits;
  run.dim = rope.spec.rotary_dim;
  check_dimension(run.dim, kMaxMatrixDim);
  // The printed matrix: the model's head (head_dim, (S19)) or plain RoPE's d.
  run.size = !rope.plain ? rope.spec.head_dim : run.dim;
  check_dimension(run.size, kMaxMatrixDim, "head_dim");
  if (request.digits < 0 || request.digits > 17) {
    throw InvalidArgument(
        error_msg("{0} must be between {1} and {2} (got {3})", option_name("digits"), 0, 17, request.digits));
  }
  if (request.figure && !request.relative.empty()) {
    throw InvalidArgument(error_msg("a figure ({0}, {1}, {2}, {3}) draws R_m: use it with {4}, not {5}",
                                    option_name("png"), option_name("svg"), option_name("pdf"), option_name("output"),
                                    option_name("position"), option_name("relative")));
  }
  if (request.float32 && !request.relative.empty()) {
    throw InvalidArgument(error_msg("{0} prints R_m as HF's float32 cos and sin give it: use it with {1}, not {2}",
                                    option_name("float32"), option_name("position"), option_name("relative")));
  }
  if (request.position.has_value() == !request.relative.empty()) {
    throw InvalidArgument(
        error_msg("give exactly one of {0} M or {1} M N", option_name("position"), option_name("relative")));
  }
  if (rope.spec.head_slices > 1) {
    throw InvalidArgument(
        error_msg("{0} gives each head its own slice of one table over {1} heads (LTX-2's rope_type split, "
                  "docs/multi-axis.md (W10)), which this command does not place: rope check and positions take it",
                  rope.spec.name, rope.spec.head_slices));
  }
  if (rope.spec.axis_blocks && !request.relative.empty()) {  // (M7) is checked in one of the two layouts
    throw InvalidArgument(
        error_msg("{0}: Gemma 4's vision tower pairs channels inside each axis's block "
                  "(docs/multi-axis.md (V6)), and rope matrix checks R_mᵀ R_n = R_(n−m) in the interleaved "
                  "or half layout only: give {1}",
                  option_name("relative"), option_name("position")));
  }
  // FoPE (fope_apply.hpp): the checkpoint's coefficients and the key-value head; one position m, float64.
  run.fope_head = fope_head(rope, request.coefficients, request.kv_head);
  if (run.fope_head) {
    bool multi = request.position && request.position->multi();
    for (const AxisPosition& p : request.relative) multi = multi || p.multi();
    if (request.float32 || multi) {
      throw InvalidArgument(
          error_msg("FoPE is computed at one position m in float64: give one number with {0} and "
                    "leave out {1}",
                    option_name("position"), option_name("float32")));
    }
  }
  if (!request.relative.empty()) {
    if (request.relative.size() != 2)
      throw InvalidArgument(error_msg("{0} takes two positions, M and N", option_name("relative")));
    run.relative = request.relative;
    if (run.fope_head) {
      for (const AxisPosition& p : request.relative) check_position_resolvable(p[0], run.dim, option_name("relative"));
      fope_relative(run, request.relative[0][0], request.relative[1][0]);
    } else {
      relative(run, request.relative[0], request.relative[1]);
    }
    return run;
  }
  const AxisPosition& p = *request.position;
  run.position = p;
  if (run.fope_head) {  // R_m: the key-value head's scaled rotations on the model's head
    run.spec = rope.spec;
    run.fope = fope_blocks(rope.spec, *run.fope_head, p[0]);
    run.matrix = fope_matrix(rope.spec, *run.fope, run.size);
    return run;
  }
  if (request.float32 && p.multi()) {
    throw InvalidArgument(
        error_msg("{0} computes HF's angles at one position m, but {1} {2} has {3} components: give a single "
                  "number with {4}",
                  option_name("float32"), option_name("position"), p.text(), p.count, option_name("float32")));
  }
  double largest = p.value[0];  // HF's dynamic update takes max(position_ids) + 1
  for (int k = 0; k < p.count; ++k) {
    check_position_resolvable(p.value[static_cast<std::size_t>(k)], run.dim,
                              p.multi() ? fmt::format("{} component {} of {}", option_name("position"), k + 1, p.text())
                                        : option_name("position"));
    largest = std::max(largest, p.value[static_cast<std::size_t>(k)]);
  }
  const Eigen::VectorXd& theta = rope.spec.params.inv_freq;
  // dynamic and longrope: the frequencies HF uses at this position (seq_len = m + 1 unless --seq-len).
  if (!rope.plain) run.spec = spec_at_position(rope.spec, largest);
  if (p.multi() && !(run.spec && run.spec->axes)) (void)axis_angles(theta, nullptr, p);  // throws: one position only
  // float32: the entries HF's float32 cos and sin give (rope_float32.hpp), at a single position m.
  run.float32 = run.spec && request.float32;
  // (A1): a model with multimodal sections turns block i by θ_i times the position of its axis.
  run.matrix = run.float32 ? spec_matrix_float32(*run.spec, p.value[0], run.size)
               : run.spec  ? spec_matrix(*run.spec, p, run.size)
                           : rotation_matrix<double>(theta, p.value[0], rope.spec.layout);
  return run;
}

}  // namespace rope
