// FoPE's kept pairs (F1) and its note (fope.hpp).
#include "rope/models/fope.hpp"

#include <cmath>
#include <cstdint>

#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"

namespace rope {

int fope_kept_pairs(const FopeConfig& fope, int rotary_dim, double base) {
  const int pairs = rotary_dim / 2;
  if (fope.num_inv_freq) {
    if (*fope.num_inv_freq > pairs) {
      throw InvalidArgument(error_msg("FoPE: num_inv_freq {0} is more than the {1} pairs of the rotary dimension {2}",
                                      *fope.num_inv_freq, pairs, rotary_dim));
    }
    return static_cast<int>(*fope.num_inv_freq);
  }
  // _compute_inv_freq: 1 / base^(arange(0, r, 2, float32) / r) in float32, against the Python float 2π / L, which
  // PyTorch compares in the tensor's type (a 0-dimensional scalar does not promote it).
  const float limit = static_cast<float>(2.0 * kPi / static_cast<double>(fope.max_position));
  int kept = 0;
  for (int i = 0; i < pairs; ++i) {
    const float exponent = static_cast<float>(2 * i) / static_cast<float>(rotary_dim);
    const float theta = 1.0f / std::pow(static_cast<float>(base), exponent);
    if (theta > limit) ++kept;
  }
  return kept;
}

Message fope_refusal(const std::string& model) {
  return error_msg(
      "{0} has FoPE (docs/multi-axis.md §7): each pair's cos and sin mix the kept frequencies by the checkpoint's "
      "coefficients cos_coef and sin_coef, so no pair turns by m·θ_i, which is what this computes; {1} FILE, {2} "
      "FILE, {3} FILE and {4} FILE compute it",
      model, option_name("check.coefficients"), option_name("diff.coefficients"), option_name("apply.coefficients"),
      option_name("matrix.coefficients"));
}

Message fope_note(const FopeConfig& fope, int head_dim, int rotary_dim, double base) {
  const int kept = fope_kept_pairs(fope, rotary_dim, base);
  const Message why = fope.num_inv_freq
                          ? msg("the first num_inv_freq = {0}", *fope.num_inv_freq)
                          : msg("those with θ_i > 2π / max_position_embeddings = 2π / {0}", fope.max_position);
  const Message shape = fope.sep_head
                            ? msg("[{0}, {1}, {1}], one matrix per key-value head (fope_sep_head)", fope.kv_heads, kept)
                            : msg("[{0}, {0}], one matrix for every head", kept);
  return msg(
      "FoPE (Fourier Position Embedding, docs/multi-axis.md (F1)–(F4)): {0} pairs keep their θ ({1}), the "
      "other {2} of the head's {3} pairs are padded (cos 1, sin 0: they pass through); per key-value head each "
      "kept pair's cos and sin are sums over the kept frequencies weighted by the checkpoint's coefficients "
      "cos_coef and sin_coef of shape {4}, so each pair is a scaled rotation: rope check needs them ({5} "
      "FILE)",
      kept, why, head_dim / 2 - kept, head_dim / 2, shape, option_name("coefficients"));
}

}  // namespace rope
