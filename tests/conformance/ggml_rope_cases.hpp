// The conformance tier's kernel cases (ggml_rope_cases.cpp runs them; ggml_rope_layer_cases.cpp holds the per-layer
// and further kernel cases): one ggml RoPE call as llama.cpp makes it, the GGUF file that describes the model.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ggml.h"
#include "gguf.h"
#include "harness.hpp"

namespace rope_conformance {

constexpr int kHeads = 2;
const std::vector<int> kPositions{0, 1, 2, 3, 7, 100, 1000, 3808, 4097, 8700, 16384, 30000, 32767, 65535};

/// One GGUF file: metadata and small f32 tensors, written by ggml's gguf API.
struct Gguf : GgufKeys<Gguf> {
  ggml_context* data = ggml_init({1 << 20, nullptr, false});
  explicit Gguf(const std::string& a) : GgufKeys(a) {}
  Gguf& tensor(const std::string& name, const std::vector<float>& v) {
    ggml_tensor* t = ggml_new_tensor_1d(data, GGML_TYPE_F32, static_cast<std::int64_t>(v.size()));
    ggml_set_name(t, name.c_str());
    for (std::size_t i = 0; i < v.size(); ++i) static_cast<float*>(t->data)[i] = v[i];
    gguf_add_tensor(g, t);
    return *this;
  }
  /// A model: context, embedding, heads, layers, head size, rotary dims, base.
  Gguf& model(std::uint32_t ctx, std::uint32_t heads, std::uint32_t head_dim, std::uint32_t n_rot, float base,
              std::uint32_t layers = 2) {
    return u32("context_length", ctx)
        .u32("embedding_length", heads * head_dim)
        .u32("block_count", layers)
        .u32("attention.head_count", heads)
        .u32("attention.head_count_kv", heads)
        .u32("attention.key_length", head_dim)
        .u32("rope.dimension_count", n_rot)
        .f32("rope.freq_base", base);
  }
  bool write(const std::string& path) {
    const bool ok = gguf_write_to_file(g, path.c_str(), false);
    gguf_free(g);
    ggml_free(data);
    return ok;
  }
};

struct Call {
  int head_dim = 128, n_dims = 128, mode = GGML_ROPE_TYPE_NEOX, n_ctx_orig = 0;
  float base = 10000, freq_scale = 1, ext_factor = 0, attn_factor = 1, beta_fast = 32, beta_slow = 1;
  std::vector<float> freq_factors;
  std::vector<int> sections;  ///< M-RoPE: ggml_rope_multi with positions (p, p, p, 0)
  int offset = 0;             ///< ggml_rope_set_offset
  int position_shift = 0;     ///< a planted bug: positions + shift
  std::vector<int> positions = kPositions;
  std::vector<int> columns;              ///< VISION: the patch's column (slot 1); `positions` holds its row (slot 0)
  bool before_is_after = false;          ///< a planted bug: "before" read after an in-place RoPE (the rotated values)
  std::vector<std::array<int, 3>> axes;  ///< M-RoPE: (t, h, w) per token in slots 0-2 (slot 3 is 0); else (p, p, p)
  bool e_slot = false;  ///< M-RoPE: slot 3 holds the position too (Qwen4-exp's indexer k at a block's first position)
  bool f16 = false;     ///< the kernel on float16 q (the dumps are float16 too)
  int row = 0;          ///< > head_dim: q is a strided view of rows this wide (a fused QKV), heads apart by head_dim
};

/// Adds a case: its name, the call, the GGUF file, the extra `rope check` arguments, the expected verdict ("pass", the
/// variant a planted bug must be named, or "no-rope": check must refuse the layer, it rotates nothing).
using AddCase = std::function<void(const std::string&, const Call&, Gguf&, const std::string&, const std::string&)>;

/// The attn_factor llama.cpp passes to ggml for YaRN with factor f (src/llama-context.cpp:178-214): get_mscale(f),
/// or with a yarn_log_multiplier (DeepSeek's mscale_all_dim 1) the ratio get_mscale(f, 1) / get_mscale(f, 1); then
/// divided by ggml's own 1 + 0.1 ln f, which ggml's rope_yarn multiplies back.
inline float yarn_attn_factor(float f, bool log_multiplier) {
  const float mscale = 0.1f * std::log(f) + 1.0f;
  const float a = log_multiplier ? mscale / mscale : mscale;
  return a * (1.0f / (1.0f + 0.1f * std::log(f)));
}

/// The layers whose RoPE differs, on GGUF files as convert_hf_to_gguf.py writes them (no sliding_window_pattern: the
/// architecture's default pattern), and further kernel cases (float16, strided views, multi-axis positions).
void layer_cases(const AddCase& add, const std::string& dir);

/// The lightning indexers on the first channels of their [rope | nope] heads (ggml_rope_indexer_cases.cpp).
void indexer_cases(const AddCase& add, const std::string& dir);

}  // namespace rope_conformance
