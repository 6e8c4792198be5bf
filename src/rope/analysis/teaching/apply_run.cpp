// rope apply's computation (apply_run.hpp), for every front end.
#include "rope/analysis/teaching/apply_run.hpp"

#include <fmt/format.h>

#include "rope/core/error.hpp"
#include "rope/core/rotation.hpp"
#include "rope/core/tolerance.hpp"
#include "rope/models/rope_spec.hpp"

namespace rope {

void check_apply_request(const ApplyRequest& request) {
  if (request.xpos && (request.model_options || request.position.multi())) {
    throw InvalidArgument(error_msg("{0} applies to plain RoPE: leave out {1}, {2} and {3}, and give one position",
                                    option_name("xpos"), option_name("model"), option_name("config"),
                                    option_name("scaling")));
  }
  if (request.query && !request.model_source) {
    throw InvalidArgument(error_msg("{0} scales a query as a model's attention does: give {1} or {2}",
                                    option_name("query"), option_name("model"), option_name("config")));
  }
}

ApplyRun run_apply(const ApplyRequest& request) {
  check_apply_request(request);
  const ModelRope& rope = request.rope;
  // FoPE (fope_apply.hpp): the checkpoint's coefficients and the key-value head, before anything else is computed.
  std::optional<FopeHead> fope = fope_head(rope, request.coefficients, request.kv_head);
  const int n = static_cast<int>(request.x.size());
  if (!rope.plain) {
    const RopeSpec& spec = rope.spec;
    try {
      static_cast<void>(rotary_offset_for(spec, n));  // the library's rule; the message names --vector
    } catch (const InvalidArgument&) {
      throw InvalidArgument(
          spec.partial()
              ? error_msg(
                    "{0} has {1} numbers but {2} has head_dim {3} of which d = {4} rotate: give {5} or {6} numbers",
                    option_name("vector"), n, spec.name, spec.head_dim, spec.rotary_dim, spec.head_dim, spec.rotary_dim)
              : error_msg("{0} has {1} numbers but {2} rotates d = {3}", option_name("vector"), n, spec.name,
                          spec.rotary_dim));
    }
  }
  const int d = rope.spec.rotary_dim;
  const AxisPosition& p = request.position;
  if (request.float32 && p.multi()) {
    throw InvalidArgument(
        error_msg("{0} computes HF's angles at one position m, but {1} {2} has {3} components: give a single "
                  "number with {4}",
                  option_name("float32"), option_name("position"), p.text(), p.count, option_name("float32")));
  }
  for (int k = 0; k < p.count; ++k) {
    // A multi-axis position names the component that is too large (its axis is the model's k-th).
    check_position_resolvable(
        p.value[static_cast<std::size_t>(k)], d,
        p.multi() ? fmt::format("{} component {} of {}", option_name("position"), k + 1, p.text()) : "position m");
  }
  ApplyRun run;
  run.rope = rope;
  run.x = request.x;
  run.position = p;
  run.xpos = request.xpos;
  run.query = request.query;
  if (fope) {
    if (request.float32 || p.multi()) {
      throw InvalidArgument(
          error_msg("FoPE is computed at one position m in float64: give one number with {0} and "
                    "leave out {1}",
                    option_name("position"), option_name("float32")));
    }
    run.fope_head = fope;
    run.fope = fope_blocks(rope.spec, *fope, p[0]);
    const FopeApply forms = fope_apply(rope.spec, *run.fope, request.x, p[0]);
    run.apply.spec = rope.spec;
    run.apply.offset = rotary_offset_for(rope.spec, n);
    run.apply.frequency = rope.spec.params.inv_freq;
    run.apply.angle = run.fope->angle;
    run.apply.xpos_scale = Eigen::VectorXd::Ones(d / 2);
    run.apply.by_matrix = forms.by_matrix, run.apply.by_elementwise = forms.by_elementwise;
    run.apply.by_complex = forms.by_complex, run.apply.check = forms.check;
  } else {
    run.apply = model_apply(rope.spec, request.x, p, request.xpos, request.float32);
  }
  // Query scaling: Ministral 3 and Mistral 4 multiply the query by s(m) (S21) after RoPE, on every layer; the
  // three forms were compared before, and s(m) scales them alike.
  const std::optional<QueryScaling>& qs = rope.model.query_scaling;
  run.s_m = request.query && qs ? qs->at(p[0]) : 1.0;
  run.by_matrix = run.s_m * run.apply.by_matrix;
  run.by_elementwise = run.s_m * run.apply.by_elementwise;
  run.by_complex = run.s_m * run.apply.by_complex;
  run.by_float32 = run.s_m * run.apply.by_float32;
  return run;
}

}  // namespace rope
