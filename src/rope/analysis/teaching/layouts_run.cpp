#include "rope/analysis/teaching/layouts_run.hpp"

#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"

namespace rope {

LayoutsRun run_layouts(const LayoutsRequest& request) {
  if (request.positions.size() != 2) {
    const std::size_t got = request.positions.size();
    throw InvalidArgument(got == 1 ? error_msg("give {0} twice, the query's m then the key's n (got {1} value)",
                                               option_name("position"), got)
                                   : error_msg("give {0} twice, the query's m then the key's n (got {1} values)",
                                               option_name("position"), got));
  }
  const ModelRope& rope = request.rope;
  if (request.q && rope.spec.rotary_dim != request.q->size()) {
    throw InvalidArgument(error_msg("--q and --k have {0} numbers, but the model's rotary dimension d is {1}",
                                    request.q->size(), rope.spec.rotary_dim));
  }
  LayoutsSettings settings = request.settings;
  settings.m = request.positions[0];
  settings.n = request.positions[1];
  settings.q = request.q;
  settings.k = request.k;
  settings.dim = rope.spec.rotary_dim;
  settings.base = rope.spec.config.base;
  if (!rope.plain) settings.inv_freq = rope.spec.params.inv_freq;
  LayoutsRun run;
  run.demo = layouts_demo(settings);
  run.rope = rope;
  run.user_vectors = request.q.has_value();
  if (request.cache)
    run.cache = layout_cache(rope.plain ? frequencies(run.demo.dim, settings.base) : rope.spec.params.inv_freq);
  run.wide = request.wide;
  run.show_vectors = request.show_vectors;
  run.csv = request.csv;
  return run;
}

}  // namespace rope
