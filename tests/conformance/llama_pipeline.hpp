// The conformance tier's pipeline harness (llama_pipeline.cpp) and its tiny models (llama_pipeline_cases.cpp).
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ggml.h"
#include "harness.hpp"

namespace rope_conformance {

constexpr int kVocab = 64;

/// The model's metadata, written with ggml's gguf API, and the values of its RoPE factor tensors.
struct Meta : GgufKeys<Meta> {
  std::map<std::string, std::vector<float>> factors;  ///< tensor name -> values
  std::uint32_t n_ctx = 256;                          ///< the context libllama runs with
  bool no_rope = false;  ///< the graph has no RoPE node: the case is listed in OUTDIR/norope.tsv
  /// libllama cannot save this architecture (llama_model_saver_supports_arch): the harness runs the model it built and
  /// writes CASE.gguf itself, the metadata and the RoPE factor tensors, with ggml's gguf API
  bool no_save = false;
  /// Not empty: one llama_decode per token at these increasing positions, of one sequence, in place of one batch
  /// (PLM's graph hands the KV cache a 2-D v, which libllama reads right only for one token: plm.cpp:127-131,
  /// llama-kv-cache.cpp:1360-1373)
  std::vector<int> one_token_decodes;
  /// Not empty: one batch of one sequence at these consecutive positions (DeepSeek-4's compressors and indexer need the
  /// tokens of a block before them)
  std::vector<int> prefill;
  /// Not 0 (with `prefill`): llama.cpp's context shift after the prefill, as its examples do it (tools/main: n_keep
  /// tokens kept, the next |shift| discarded, the rest moved back): llama_memory_seq_rm(0, kShiftKeep, kShiftKeep −
  /// shift), llama_memory_seq_add(0, kShiftKeep − shift, −1, shift), then one token decoded after them, which applies
  /// the shift to the K cache (build_graph_shift, src/llama-kv-cache.cpp). The K cache is float32 then, and the
  /// shift graph's RoPE nodes (the cache before and after, the shift of every cell) are captured with mode tag
  /// "shift" in pipeline.tsv.
  int shift = 0;
  explicit Meta(const std::string& a) : GgufKeys(a) {
    gguf_set_val_str(g, "general.name", "rope conformance tiny model");
    // The dummy tokenizer "test" of llama.cpp's own test of every architecture (tests/test-llama-archs.cpp).
    gguf_set_val_str(g, "tokenizer.ggml.model", "test");
    std::vector<std::string> toks;
    std::vector<const char*> ptrs;
    for (int i = 0; i < kVocab; ++i) toks.push_back("tok_" + std::to_string(i));
    for (const auto& s : toks) ptrs.push_back(s.c_str());
    gguf_set_arr_str(g, "tokenizer.ggml.tokens", ptrs.data(), ptrs.size());
    std::vector<float> scores(kVocab, 0.0f);
    gguf_set_arr_data(g, "tokenizer.ggml.scores", GGUF_TYPE_FLOAT32, scores.data(), scores.size());
  }
  /// An optional tensor, which libllama creates from metadata only when the metadata lists it.
  Meta& listed(const std::string& name, std::int64_t ne0, std::int64_t ne1 = 1) {
    ggml_tensor t;
    std::memset(&t, 0, sizeof t);
    t.type = GGML_TYPE_F32;
    t.ne[0] = ne0, t.ne[1] = ne1, t.ne[2] = t.ne[3] = 1;
    t.nb[0] = 4, t.nb[1] = 4 * ne0, t.nb[2] = t.nb[3] = 4 * ne0 * ne1;
    ggml_set_name(&t, name.c_str());
    gguf_add_tensor(g, &t);
    return *this;
  }
  /// A RoPE factor tensor (rope_freqs.weight, rope_factors_long.weight, ...) with its values.
  Meta& tensor(const std::string& name, const std::vector<float>& v) {
    factors[name] = v;
    return listed(name, static_cast<std::int64_t>(v.size()));
  }
  Meta& model(std::uint32_t ctx, std::uint32_t heads, std::uint32_t kv_heads, std::uint32_t head_dim,
              std::uint32_t n_rot, float base, std::uint32_t layers = 2) {
    return u32("context_length", ctx)
        .u32("embedding_length", heads * head_dim)
        .u32("block_count", layers)
        .u32("feed_forward_length", 64)
        .u32("attention.head_count", heads)
        .u32("attention.head_count_kv", kv_heads)
        .u32("attention.key_length", head_dim)
        .u32("attention.value_length", head_dim)
        .f32("attention.layer_norm_rms_epsilon", 1e-6f)
        .u32("rope.dimension_count", n_rot)
        .f32("rope.freq_base", base);
  }
};

/// The tokens a context shift keeps at the start (Meta::shift).
constexpr int kShiftKeep = 4;

/// One tiny model: its name, llama.cpp architecture and metadata.
struct PipelineCase {
  std::string name, arch;
  std::function<void(Meta&)> build;
};
std::vector<PipelineCase> pipeline_cases();

}  // namespace rope_conformance
