// rope permute as one call (permute_run.hpp).
#include "rope/analysis/weights/permute_run.hpp"

#include <fmt/format.h>

#include "rope/core/utf8.hpp"
#include "rope/models/gguf/gguf_config.hpp"
#include "rope/models/resolve.hpp"

namespace rope {

PermuteRun run_permute(const PermuteRequest& q) {
  PermuteRun run;
  PermuteSettings s = q.settings;
  if (!q.config.empty()) {
    // The model's RoPE as every command resolves it: a typed head_dim or base is the model's head_dim or rope_theta,
    // its scaling kept; the rows per head are its rotating channels.
    RopeOverrides o;
    o.head_dim = q.head_dim;
    o.base = q.base;
    o.layer_type = q.layer_type;  // a model whose layer types differ in head_dim, rotary dim or base (Gemma 3, 4)
    const ModelRope r = resolve_model_rope({"", q.config}, o);
    const AttentionShape a = read_attention_shape(q.config);
    s.head_dim = r.spec.rotary_dim;
    s.n_head = a.n_head;
    s.n_head_from = fmt::format("{}: {}", escape_controls(q.config),
                                a.gguf ? a.architecture + ".attention.head_count" : std::string("num_attention_heads"));
    s.n_head_kv = a.n_head_kv;
    s.base = r.spec.config.base;
    s.inv_freq = r.spec.params.inv_freq;
    run.spec = r.spec;
    run.gguf = a.gguf;
  } else {  // plain RoPE of the typed size and base
    if (q.head_dim) s.head_dim = *q.head_dim;
    if (q.base) s.base = *q.base;
  }
  if (q.heads) {
    s.n_head = *q.heads;
    s.n_head_from.clear();  // typed: the refusal names the count, not the file
  }
  if (q.kv_heads) s.n_head_kv = *q.kv_heads;
  run.demo = permute_demo(s);
  run.csv_written = q.csv_written;
  return run;
}

}  // namespace rope
