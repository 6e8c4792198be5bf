// rope apply's computation (apply_run.hpp), moved out of apps/rope/cli/commands/cmd_apply.cpp.
#include "rope/analysis/teaching/apply_run.hpp"

#include <fmt/format.h>

#include "rope/core/error.hpp"
#include "rope/core/rotation.hpp"
#include "rope/core/tolerance.hpp"
#include "rope/models/rope_spec.hpp"

namespace rope {

void check_apply_request(const ApplyRequest& request) {
  if (request.xpos && (request.model_options || request.position.multi())) {
    throw InvalidArgument(
        error_msg("--xpos applies to plain RoPE: leave out --model, --config and --scaling, and give one position"));
  }
  if (request.query && !request.model_source) {
    throw InvalidArgument(error_msg("{0} scales a query as a model's attention does: give {1} or {2}",
                                    option_name("query"), option_name("model"), option_name("config")));
  }
}

ApplyRun run_apply(const ApplyRequest& request) {
  check_apply_request(request);
  const ModelRope& rope = request.rope;
  const int n = static_cast<int>(request.x.size());
  if (!rope.plain) {
    const RopeSpec& spec = rope.spec;
    try {
      static_cast<void>(rotary_offset_for(spec, n));  // the library's rule; the message names --vector
    } catch (const InvalidArgument&) {
      throw InvalidArgument(
          spec.partial()
              ? error_msg(
                    "--vector has {0} numbers but {1} has head_dim {2} of which d = {3} rotate: give {4} or {5} numbers",
                    n, spec.name, spec.head_dim, spec.rotary_dim, spec.head_dim, spec.rotary_dim)
              : error_msg("--vector has {0} numbers but {1} rotates d = {2}", n, spec.name, spec.rotary_dim));
    }
  }
  const int d = rope.spec.rotary_dim;
  const AxisPosition& p = request.position;
  if (request.float32 && p.multi()) {
    throw InvalidArgument(
        error_msg("--float32 computes HF's angles at one position m, but --position {0} has {1} "
                  "components: give a single number with --float32",
                  p.text(), p.count));
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
  run.apply = model_apply(rope.spec, request.x, p, request.xpos, request.float32);
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
