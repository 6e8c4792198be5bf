// The tiny models of the conformance tier's pipeline (llama_pipeline.cpp), each as llama.cpp's loader reads it
// (ggml-org/llama.cpp at the node-llama-cpp 3.22.1 bundle, commit de3ff815ea7d; the keys each architecture
// requires: its load_arch_hparams in src/models/ARCH.cpp).
#include <cmath>

#include "llama_pipeline.hpp"

namespace rope_conformance {

std::vector<PipelineCase> pipeline_cases() {
  std::vector<PipelineCase> cases;
  const auto add = [&](const std::string& name, const std::string& arch, std::function<void(Meta&)> f) {
    cases.push_back({name, arch, std::move(f)});
  };
  add("llama3", "llama", [](Meta& m) {  // Llama 3.1: NORM, rope_freqs.weight
    m.model(131072, 4, 2, 64, 64, 500000).tensor("rope_freqs.weight", llama3_factors(64, 500000, 8, 1, 4, 8192));
  });
  add("qwen2-yarn", "qwen2", [](Meta& m) {  // Qwen2.5 long context: NEOX, YaRN 4 over 32768
    m.model(131072, 4, 2, 64, 64, 1e6f).str("rope.scaling.type", "yarn").f32("rope.scaling.factor", 4)
        .u32("rope.scaling.original_context_length", 32768);
  });
  add("qwen3", "qwen3", [](Meta& m) { m.model(40960, 4, 2, 64, 64, 1e6f); });  // q-norm before RoPE
  add("phi3-long", "phi3", [](Meta& m) {  // Phi-3 128k: fused QKV, LongRoPE, n_ctx beyond the original context
    std::vector<float> lf, sf;
    for (int i = 0; i < 48; ++i) lf.push_back(1.0f + 0.25f * static_cast<float>(i)), sf.push_back(1.0f + 0.01f * static_cast<float>(i));
    m.model(131072, 2, 2, 96, 96, 10000).u32("rope.scaling.original_context_length", 4096)
        .listed("blk.0.attn_qkv.weight", 192, 576).listed("blk.1.attn_qkv.weight", 192, 576)
        .f32("rope.scaling.attn_factor", std::sqrt(1.0f + std::log(32.0f) / std::log(4096.0f)))
        .tensor("rope_factors_long.weight", lf).tensor("rope_factors_short.weight", sf);
    m.n_ctx = 8192;
  });
  add("phi3-short", "phi3", [](Meta& m) {  // the same with n_ctx 256: llama.cpp takes the short factors at any position
    std::vector<float> lf, sf;
    for (int i = 0; i < 48; ++i) lf.push_back(1.0f + 0.25f * static_cast<float>(i)), sf.push_back(1.0f + 0.01f * static_cast<float>(i));
    m.model(131072, 2, 2, 96, 96, 10000).u32("rope.scaling.original_context_length", 4096)
        .listed("blk.0.attn_qkv.weight", 192, 576).listed("blk.1.attn_qkv.weight", 192, 576)
        .f32("rope.scaling.attn_factor", std::sqrt(1.0f + std::log(32.0f) / std::log(4096.0f)))
        .tensor("rope_factors_long.weight", lf).tensor("rope_factors_short.weight", sf);
  });
  const auto deepseek = [](Meta& m, bool mla) {
    m.u32("context_length", 163840).u32("embedding_length", 256).u32("block_count", 2).u32("feed_forward_length", 64)
        .u32("attention.head_count", 2).u32("attention.head_count_kv", mla ? 1 : 2)
        .u32("attention.key_length", mla ? 576 : 192).u32("attention.value_length", mla ? 512 : 128)
        .f32("attention.layer_norm_rms_epsilon", 1e-6f).u32("rope.dimension_count", 64).f32("rope.freq_base", 10000)
        .str("rope.scaling.type", "yarn").f32("rope.scaling.factor", 40).u32("rope.scaling.original_context_length", 4096)
        .f32("rope.scaling.yarn_log_multiplier", 0.1f).u32("attention.q_lora_rank", 64).u32("attention.kv_lora_rank", 512)
        .u32("leading_dense_block_count", 1).u32("expert_count", 2).u32("expert_used_count", 2)
        .u32("expert_shared_count", 1).u32("expert_feed_forward_length", 32).f32("expert_weights_scale", 1.0f)
        .u32("expert_gating_func", 2);
    if (mla) m.u32("attention.key_length_mla", 192).u32("attention.value_length_mla", 128);
  };
  add("deepseek2", "deepseek2", [&](Meta& m) { deepseek(m, false); });
  add("deepseek2-mla", "deepseek2", [&](Meta& m) { deepseek(m, true); });
  add("minicpm3", "minicpm3", [](Meta& m) {  // MiniCPM3: the last rope.dimension_count channels of q (set_offset)
    m.model(32768, 2, 2, 96, 32, 10000).u32("attention.q_lora_rank", 64).u32("attention.kv_lora_rank", 64);
  });
  add("gemma3", "gemma3", [](Meta& m) {  // 6 layers: 0-4 sliding (base 10000 unscaled), 5 full (1e6, linear 8)
    m.model(131072, 2, 1, 256, 256, 1e6f, 6).u32("attention.sliding_window", 512).f32("rope.freq_base_swa", 10000)
        .str("rope.scaling.type", "linear").f32("rope.scaling.factor", 8);
  });
  add("qwen2vl", "qwen2vl", [](Meta& m) { m.model(32768, 2, 2, 128, 128, 1e6f).i32s("rope.dimension_sections", {16, 24, 24, 0}); });
  add("qwen3vl", "qwen3vl", [](Meta& m) {
    m.model(262144, 2, 2, 128, 128, 5e6f).i32s("rope.dimension_sections", {24, 20, 20, 0}).u32("n_deepstack_layers", 0);
  });
  // Per-layer RoPE (gguf_config_layers.cpp): sliding layers, NoPE layers, decided by each architecture's graph.
  add("cohere2", "cohere2", [](Meta& m) {  // RoPE on the sliding layers only (il % 4 < 3); rope.freq_base_swa unused
    m.model(8192, 2, 2, 64, 64, 10000, 8).u32("attention.sliding_window", 512).f32("logit_scale", 0.125f)
        .f32("attention.layer_norm_epsilon", 1e-5f).f32("rope.freq_base_swa", 50000);
  });
  add("cohere2moe", "cohere2moe", [](Meta& m) {  // dense_first pattern 4; the leading dense block turns too
    m.model(8192, 2, 2, 64, 64, 10000, 8).u32("attention.sliding_window", 512).f32("logit_scale", 0.125f)
        .f32("attention.layer_norm_epsilon", 1e-5f).u32("leading_dense_block_count", 1).u32("expert_count", 2)
        .u32("expert_used_count", 2).u32("expert_feed_forward_length", 32);
  });
  add("exaone4-32b", "exaone4", [](Meta& m) {  // 64 layers: the 32B's sliding pattern, RoPE on sliding layers only
    m.model(131072, 2, 1, 64, 64, 1e6f, 64).u32("attention.sliding_window", 4096).str("rope.scaling.type", "linear")
        .f32("rope.scaling.factor", 2);
  });
  add("exaone4-1.2b", "exaone4", [](Meta& m) { m.model(65536, 2, 1, 64, 64, 1e6f, 4); });  // no sliding layers
  add("olmo3", "olmo2", [](Meta& m) {  // OLMo 3: sliding layers at freq_base without the YaRN of the full ones
    m.model(65536, 2, 2, 64, 64, 500000, 8).u32("attention.sliding_window", 4096).str("rope.scaling.type", "yarn")
        .f32("rope.scaling.factor", 8).u32("rope.scaling.original_context_length", 8192);
  });
  add("mellum", "mellum", [](Meta& m) {  // as OLMo 3
    m.model(65536, 2, 2, 64, 64, 500000, 8).u32("attention.sliding_window", 1024).str("rope.scaling.type", "yarn")
        .f32("rope.scaling.factor", 4).u32("rope.scaling.original_context_length", 16384).u32("expert_count", 2)
        .u32("expert_used_count", 2).u32("expert_feed_forward_length", 32);
  });
  add("afmoe", "afmoe", [](Meta& m) {  // NoPE where (il + 1) % 4 == 0; the others slide at rope.freq_base_swa
    m.model(65536, 2, 2, 64, 64, 10000, 8).u32("attention.sliding_window", 256).f32("rope.freq_base_swa", 20000)
        .u32("leading_dense_block_count", 1).u32("expert_count", 2).u32("expert_used_count", 2)
        .u32("expert_feed_forward_length", 32).u32("expert_shared_count", 1);
  });
  add("smallthinker", "smallthinker", [](Meta& m) {  // dense_first: NoPE where il % 4 == 0
    m.model(32768, 2, 2, 64, 64, 1.5e6f, 8).u32("attention.sliding_window", 4096).u32("expert_count", 2)
        .u32("expert_used_count", 2).u32("expert_feed_forward_length", 32).u32("expert_gating_func", 1);
  });
  add("llama4", "llama4", [](Meta& m) {  // chunked attention: NoPE where (il + 1) % 4 == 0, rope_freqs elsewhere
    m.model(262144, 2, 2, 64, 64, 500000, 8).u32("interleave_moe_layer_step", 1).u32("expert_count", 2)
        .u32("expert_used_count", 1).u32("expert_feed_forward_length", 32).u32("expert_shared_count", 1)
        .tensor("rope_freqs.weight", llama3_factors(64, 500000, 16, 1, 4, 8192));
  });
  add("smollm3", "smollm3", [](Meta& m) { m.model(65536, 2, 2, 64, 64, 5e6f, 8); });  // NoPE where (il + 1) % 4 == 0
  add("muse-glimmer", "muse-glimmer", [](Meta& m) {  // RoPE on the sliding layers only, scale 1, rope.freq_base_swa
    m.model(32768, 2, 2, 64, 64, 1e6f, 8).u32("attention.sliding_window", 512).f32("logit_scale", 1.0f)
        .f32("rope.freq_base_swa", 10000).str("rope.scaling.type", "linear").f32("rope.scaling.factor", 4);
  });
  add("gemma2", "gemma2", [](Meta& m) {  // pattern 2: sliding layers at rope.freq_base_swa with the model's scaling
    m.model(8192, 2, 1, 128, 128, 10000, 4).u32("attention.sliding_window", 4096).f32("rope.freq_base_swa", 20000)
        .str("rope.scaling.type", "linear").f32("rope.scaling.factor", 2);
  });
  add("gpt-oss", "gpt-oss", [](Meta& m) {  // pattern 2, YaRN on both kinds, rope.freq_base_swa on the sliding ones
    m.model(131072, 2, 2, 64, 64, 150000, 4).u32("attention.sliding_window", 128).f32("rope.freq_base_swa", 50000)
        .str("rope.scaling.type", "yarn").f32("rope.scaling.factor", 32).u32("rope.scaling.original_context_length", 4096)
        .u32("expert_count", 2).u32("expert_used_count", 2).u32("expert_feed_forward_length", 32);
  });
  add("exaone-moe", "exaone-moe", [](Meta& m) {  // pattern 4, RoPE on the sliding layers only
    m.model(65536, 2, 2, 64, 64, 1e6f, 8).u32("attention.sliding_window", 128).u32("expert_count", 2)
        .u32("expert_used_count", 2).u32("expert_feed_forward_length", 32).u32("expert_gating_func", 2)
        .u32("leading_dense_block_count", 1);
  });
  add("laguna", "laguna", [](Meta& m) {  // dense_first pattern 4; sliding layers unscaled at rope.freq_base_swa
    m.model(131072, 2, 2, 64, 64, 500000, 8).u32("attention.sliding_window", 512).f32("rope.freq_base_swa", 10000)
        .str("rope.scaling.type", "yarn").f32("rope.scaling.factor", 4).u32("rope.scaling.original_context_length", 32768)
        .u32("leading_dense_block_count", 1).u32("expert_count", 2).u32("expert_used_count", 2)
        .u32("expert_feed_forward_length", 32);
  });
  add("granite-4-h-nope", "granite", [](Meta& m) {  // rope.scaling.finetuned false: no RoPE node at all (granite.cpp:33-37)
    m.model(8192, 2, 2, 64, 64, 10000, 2).f32("logit_scale", 1.0f).boolean("rope.scaling.finetuned", false);
    m.no_rope = true;
  });
  return cases;
}

}  // namespace rope_conformance
