// Which FoPE coefficients a command computes with (fope_coefficients.hpp): the rules, and the front end's reader
// called once they hold (the reader itself is fope_checkpoint.cpp, which a build that opens no file leaves out).
#include "rope/analysis/check/fope_coefficients.hpp"

#include <stdexcept>

#include "rope/core/error.hpp"
#include "rope/models/fope.hpp"
#include "rope/models/rope_spec.hpp"

namespace rope {

std::shared_ptr<const FopeCoefficients> fope_coefficients_for(const RopeSpec& spec, bool plain,
                                                              const FopeCheckpoint& checkpoint) {
  const std::string& path = checkpoint.path;
  if (spec.fope) {
    if (path.empty()) {
      throw InvalidArgument(
          error_msg("{0} has FoPE: each pair's cos and sin are weighted by the checkpoint's "
                    "coefficients cos_coef and sin_coef; give the checkpoint with {1} FILE",
                    spec.name, option_name("coefficients")));
    }
    const int kept = fope_kept_pairs(*spec.fope, spec.rotary_dim, spec.config.base);
    if (!checkpoint.read) throw std::logic_error("FoPE's checkpoint " + path + " was handed over without its reader");
    return std::make_shared<const FopeCoefficients>(checkpoint.read(path, *spec.fope, kept));
  }
  if (!path.empty() && plain) {
    throw InvalidArgument(error_msg("{0} FILE gives FoPE's coefficients: name a model with FoPE ({1} or {2})",
                                    option_name("coefficients"), option_name("model"), option_name("config")));
  }
  if (!path.empty()) {
    throw InvalidArgument(
        error_msg("{0} FILE gives FoPE's coefficients, and {1} has no FoPE (no fope_sep_head, "
                  "fope_init_factor or num_inv_freq in its RoPE block)",
                  option_name("coefficients"), spec.name));
  }
  return nullptr;
}

long fope_kv_heads(const RopeSpec& spec, const FopeCoefficients& c) {
  return spec.fope && spec.fope->kv_heads > 0 ? spec.fope->kv_heads : c.heads;
}

long fope_kv_matrix(const RopeSpec& spec, const FopeCoefficients* c, long kv_head) {
  if (!c) {
    throw InvalidArgument(error_msg("{0} chooses FoPE's key-value head: name a model with FoPE ({1} or {2})",
                                    option_name("kv_head"), option_name("model"), option_name("config")));
  }
  const long kv_heads = fope_kv_heads(spec, *c);
  if (kv_head < 0 || kv_head >= kv_heads) {
    throw InvalidArgument(error_msg("{0} {1}: {2} has {3} key-value heads, 0 … {4}", option_name("kv_head"), kv_head,
                                    spec.name, kv_heads, kv_heads - 1));
  }
  return c->heads == kv_heads ? kv_head : 0;  // (F4): its own matrix with fope_sep_head
}

}  // namespace rope
