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
    m.model(131072, 4, 2, 64, 64, 1e6f)
        .str("rope.scaling.type", "yarn")
        .f32("rope.scaling.factor", 4)
        .u32("rope.scaling.original_context_length", 32768);
  });
  add("qwen3", "qwen3", [](Meta& m) { m.model(40960, 4, 2, 64, 64, 1e6f); });  // q-norm before RoPE
  add("phi3-long", "phi3", [](Meta& m) {  // Phi-3 128k: fused QKV, LongRoPE, n_ctx beyond the original context
    std::vector<float> lf, sf;
    for (int i = 0; i < 48; ++i)
      lf.push_back(1.0f + 0.25f * static_cast<float>(i)), sf.push_back(1.0f + 0.01f * static_cast<float>(i));
    m.model(131072, 2, 2, 96, 96, 10000)
        .u32("rope.scaling.original_context_length", 4096)
        .listed("blk.0.attn_qkv.weight", 192, 576)
        .listed("blk.1.attn_qkv.weight", 192, 576)
        .f32("rope.scaling.attn_factor", std::sqrt(1.0f + std::log(32.0f) / std::log(4096.0f)))
        .tensor("rope_factors_long.weight", lf)
        .tensor("rope_factors_short.weight", sf);
    m.n_ctx = 8192;
  });
  add("phi3-short", "phi3", [](Meta& m) {  // the same with n_ctx 256: llama.cpp takes the short factors at any position
    std::vector<float> lf, sf;
    for (int i = 0; i < 48; ++i)
      lf.push_back(1.0f + 0.25f * static_cast<float>(i)), sf.push_back(1.0f + 0.01f * static_cast<float>(i));
    m.model(131072, 2, 2, 96, 96, 10000)
        .u32("rope.scaling.original_context_length", 4096)
        .listed("blk.0.attn_qkv.weight", 192, 576)
        .listed("blk.1.attn_qkv.weight", 192, 576)
        .f32("rope.scaling.attn_factor", std::sqrt(1.0f + std::log(32.0f) / std::log(4096.0f)))
        .tensor("rope_factors_long.weight", lf)
        .tensor("rope_factors_short.weight", sf);
  });
  const auto deepseek = [](Meta& m, bool mla) {
    m.u32("context_length", 163840)
        .u32("embedding_length", 256)
        .u32("block_count", 2)
        .u32("feed_forward_length", 64)
        .u32("attention.head_count", 2)
        .u32("attention.head_count_kv", mla ? 1 : 2)
        .u32("attention.key_length", mla ? 576 : 192)
        .u32("attention.value_length", mla ? 512 : 128)
        .f32("attention.layer_norm_rms_epsilon", 1e-6f)
        .u32("rope.dimension_count", 64)
        .f32("rope.freq_base", 10000)
        .str("rope.scaling.type", "yarn")
        .f32("rope.scaling.factor", 40)
        .u32("rope.scaling.original_context_length", 4096)
        .f32("rope.scaling.yarn_log_multiplier", 0.1f)
        .u32("attention.q_lora_rank", 64)
        .u32("attention.kv_lora_rank", 512)
        .u32("leading_dense_block_count", 1)
        .u32("expert_count", 2)
        .u32("expert_used_count", 2)
        .u32("expert_shared_count", 1)
        .u32("expert_feed_forward_length", 32)
        .f32("expert_weights_scale", 1.0f)
        .u32("expert_gating_func", 2);
    if (mla) m.u32("attention.key_length_mla", 192).u32("attention.value_length_mla", 128);
  };
  add("deepseek2", "deepseek2", [&](Meta& m) { deepseek(m, false); });
  add("deepseek2-mla", "deepseek2", [&](Meta& m) { deepseek(m, true); });
  add("minicpm3", "minicpm3", [](Meta& m) {  // MiniCPM3: the last rope.dimension_count channels of q (set_offset)
    m.model(32768, 2, 2, 96, 32, 10000).u32("attention.q_lora_rank", 64).u32("attention.kv_lora_rank", 64);
  });
  add("gemma3", "gemma3", [](Meta& m) {  // 6 layers: 0-4 sliding (base 10000 unscaled), 5 full (1e6, linear 8)
    m.model(131072, 2, 1, 256, 256, 1e6f, 6)
        .u32("attention.sliding_window", 512)
        .f32("rope.freq_base_swa", 10000)
        .str("rope.scaling.type", "linear")
        .f32("rope.scaling.factor", 8);
  });
  add("qwen2vl", "qwen2vl", [](Meta& m) {
    m.model(32768, 2, 2, 128, 128, 1e6f).i32s("rope.dimension_sections", {16, 24, 24, 0});
  });
  add("qwen3vl", "qwen3vl", [](Meta& m) {
    m.model(262144, 2, 2, 128, 128, 5e6f).i32s("rope.dimension_sections", {24, 20, 20, 0}).u32("n_deepstack_layers", 0);
  });
  // Per-layer RoPE (gguf_config_layers.cpp): sliding layers, NoPE layers, decided by each architecture's graph.
  add("cohere2", "cohere2", [](Meta& m) {  // RoPE on the sliding layers only (il % 4 < 3); rope.freq_base_swa unused
    m.model(8192, 2, 2, 64, 64, 10000, 8)
        .u32("attention.sliding_window", 512)
        .f32("logit_scale", 0.125f)
        .f32("attention.layer_norm_epsilon", 1e-5f)
        .f32("rope.freq_base_swa", 50000);
  });
  add("cohere2moe", "cohere2moe", [](Meta& m) {  // dense_first pattern 4; the leading dense block turns too
    m.model(8192, 2, 2, 64, 64, 10000, 8)
        .u32("attention.sliding_window", 512)
        .f32("logit_scale", 0.125f)
        .f32("attention.layer_norm_epsilon", 1e-5f)
        .u32("leading_dense_block_count", 1)
        .u32("expert_count", 2)
        .u32("expert_used_count", 2)
        .u32("expert_feed_forward_length", 32);
  });
  add("exaone4-32b", "exaone4", [](Meta& m) {  // 64 layers: the 32B's sliding pattern, RoPE on sliding layers only
    m.model(131072, 2, 1, 64, 64, 1e6f, 64)
        .u32("attention.sliding_window", 4096)
        .str("rope.scaling.type", "linear")
        .f32("rope.scaling.factor", 2);
  });
  add("exaone4-1.2b", "exaone4", [](Meta& m) { m.model(65536, 2, 1, 64, 64, 1e6f, 4); });  // no sliding layers
  add("olmo3", "olmo2", [](Meta& m) {  // OLMo 3: sliding layers at freq_base without the YaRN of the full ones
    m.model(65536, 2, 2, 64, 64, 500000, 8)
        .u32("attention.sliding_window", 4096)
        .str("rope.scaling.type", "yarn")
        .f32("rope.scaling.factor", 8)
        .u32("rope.scaling.original_context_length", 8192);
  });
  add("mellum", "mellum", [](Meta& m) {  // as OLMo 3
    m.model(65536, 2, 2, 64, 64, 500000, 8)
        .u32("attention.sliding_window", 1024)
        .str("rope.scaling.type", "yarn")
        .f32("rope.scaling.factor", 4)
        .u32("rope.scaling.original_context_length", 16384)
        .u32("expert_count", 2)
        .u32("expert_used_count", 2)
        .u32("expert_feed_forward_length", 32);
  });
  add("afmoe", "afmoe", [](Meta& m) {  // NoPE where (il + 1) % 4 == 0; the others slide at rope.freq_base_swa
    m.model(65536, 2, 2, 64, 64, 10000, 8)
        .u32("attention.sliding_window", 256)
        .f32("rope.freq_base_swa", 20000)
        .u32("leading_dense_block_count", 1)
        .u32("expert_count", 2)
        .u32("expert_used_count", 2)
        .u32("expert_feed_forward_length", 32)
        .u32("expert_shared_count", 1);
  });
  add("smallthinker", "smallthinker", [](Meta& m) {  // dense_first: NoPE where il % 4 == 0
    m.model(32768, 2, 2, 64, 64, 1.5e6f, 8)
        .u32("attention.sliding_window", 4096)
        .u32("expert_count", 2)
        .u32("expert_used_count", 2)
        .u32("expert_feed_forward_length", 32)
        .u32("expert_gating_func", 1);
  });
  add("llama4", "llama4", [](Meta& m) {  // chunked attention: NoPE where (il + 1) % 4 == 0, rope_freqs elsewhere
    m.model(262144, 2, 2, 64, 64, 500000, 8)
        .u32("interleave_moe_layer_step", 1)
        .u32("expert_count", 2)
        .u32("expert_used_count", 1)
        .u32("expert_feed_forward_length", 32)
        .u32("expert_shared_count", 1)
        .tensor("rope_freqs.weight", llama3_factors(64, 500000, 16, 1, 4, 8192));
  });
  add("smollm3", "smollm3", [](Meta& m) { m.model(65536, 2, 2, 64, 64, 5e6f, 8); });  // NoPE where (il + 1) % 4 == 0
  add("muse-glimmer", "muse-glimmer", [](Meta& m) {  // RoPE on the sliding layers only, scale 1, rope.freq_base_swa
    m.model(32768, 2, 2, 64, 64, 1e6f, 8)
        .u32("attention.sliding_window", 512)
        .f32("logit_scale", 1.0f)
        .f32("rope.freq_base_swa", 10000)
        .str("rope.scaling.type", "linear")
        .f32("rope.scaling.factor", 4);
  });
  add("gemma2", "gemma2", [](Meta& m) {  // pattern 2: sliding layers at rope.freq_base_swa with the model's scaling
    m.model(8192, 2, 1, 128, 128, 10000, 4)
        .u32("attention.sliding_window", 4096)
        .f32("rope.freq_base_swa", 20000)
        .str("rope.scaling.type", "linear")
        .f32("rope.scaling.factor", 2);
  });
  add("gpt-oss", "gpt-oss", [](Meta& m) {  // pattern 2, YaRN on both kinds, rope.freq_base_swa on the sliding ones
    m.model(131072, 2, 2, 64, 64, 150000, 4)
        .u32("attention.sliding_window", 128)
        .f32("rope.freq_base_swa", 50000)
        .str("rope.scaling.type", "yarn")
        .f32("rope.scaling.factor", 32)
        .u32("rope.scaling.original_context_length", 4096)
        .u32("expert_count", 2)
        .u32("expert_used_count", 2)
        .u32("expert_feed_forward_length", 32);
  });
  add("exaone-moe", "exaone-moe", [](Meta& m) {  // pattern 4, RoPE on the sliding layers only
    m.model(65536, 2, 2, 64, 64, 1e6f, 8)
        .u32("attention.sliding_window", 128)
        .u32("expert_count", 2)
        .u32("expert_used_count", 2)
        .u32("expert_feed_forward_length", 32)
        .u32("expert_gating_func", 2)
        .u32("leading_dense_block_count", 1);
  });
  add("laguna", "laguna", [](Meta& m) {  // dense_first pattern 4; sliding layers unscaled at rope.freq_base_swa
    m.model(131072, 2, 2, 64, 64, 500000, 8)
        .u32("attention.sliding_window", 512)
        .f32("rope.freq_base_swa", 10000)
        .str("rope.scaling.type", "yarn")
        .f32("rope.scaling.factor", 4)
        .u32("rope.scaling.original_context_length", 32768)
        .u32("leading_dense_block_count", 1)
        .u32("expert_count", 2)
        .u32("expert_used_count", 2)
        .u32("expert_feed_forward_length", 32);
  });
  add("granite-4-h-nope", "granite",
      [](Meta& m) {  // rope.scaling.finetuned false: no RoPE node at all (granite.cpp:33-37)
        m.model(8192, 2, 2, 64, 64, 10000, 2).f32("logit_scale", 1.0f).boolean("rope.scaling.finetuned", false);
        m.no_rope = true;
      });
  // Models checked on the kernel only until now, and those whose per-layer rules are new (their rows of
  // data/families.json).
  add("gemma4", "gemma4", [](Meta& m) {  // listed sliding layers: own head 64 and n_rot 64 at 10000; full: rope_freqs
    std::vector<float> prop(64, 1.0f);
    for (std::size_t i = 16; i < prop.size(); ++i) prop[i] = 1e30f;  // proportional RoPE: a quarter of the pairs turn
    m.model(262144, 2, 1, 128, 128, 1e6f, 4)
        .u32("attention.key_length_swa", 64)
        .u32("attention.value_length_swa", 64)
        .u32("rope.dimension_count_swa", 64)
        .f32("rope.freq_base_swa", 10000)
        .u32("attention.sliding_window", 512)
        .u32("embedding_length_per_layer_input", 16)
        .bools("attention.sliding_window_pattern", {true, true, true, false})
        .tensor("rope_freqs.weight", prop);
    m.no_save =
        true;  // llama_model_save_to_file leaves out embedding_length_per_layer_input, which the loader requires
  });
  add("plm", "plm", [](Meta& m) {  // the last rope.dimension_count channels of q (set_offset), k_pe alone
    m.model(4096, 2, 2, 192, 64, 100000)
        .u32("attention.kv_lora_rank", 512)
        .u32("attention.value_length", 128)
        .u32("embedding_length", 256);
    m.one_token_decodes = {30000, 40000, 65535};
  });
  add("step35", "step35", [](Meta& m) {  // full layers: n_rot / 2 with the first factors; sliding: all 64 at 10000
    std::vector<float> ff;
    for (int i = 0; i < 32; ++i) ff.push_back(1.0f + 0.125f * static_cast<float>(i));
    m.model(262144, 2, 2, 64, 64, 5e6f, 4)
        .u32("attention.sliding_window", 512)
        .f32("rope.freq_base_swa", 10000)
        .bools("attention.sliding_window_pattern", {false, true, true, true})
        .u32("expert_feed_forward_length", 32)
        .tensor("rope_freqs.weight", ff);
    m.no_save = true;  // llama_model_saver_supports_arch: not step35 (src/llama-model-saver.cpp:16-27)
  });
  // sliding layers: n_rot(il) 32 of 64, rope.freq_base_swa, scaled (the graph reshapes every layer with one head
  // size, n_embd_head_v() of layer 0: spark2-5.cpp:58,81)
  add("spark2_5", "spark2_5", [](Meta& m) {
    m.model(32768, 2, 2, 64, 64, 1e6f, 4)
        .u32("rope.dimension_count_swa", 32)
        .f32("rope.freq_base_swa", 10000)
        .str("rope.scaling.type", "linear")
        .f32("rope.scaling.factor", 2)
        .u32("attention.sliding_window", 512)
        .bools("attention.sliding_window_pattern", {true, true, true, false});
  });
  add("hunyuan-vl-alpha", "hunyuan_vl", [](Meta& m) {  // base = freq_base · alpha^(d/(d − 2)) (hunyuan-vl.cpp:7-12)
    m.model(32768, 2, 2, 128, 128, 10000).f32("rope.scaling.alpha", 1000);
  });
  // Compressed layers (ratio 4, 128) at compress_rope_freq_base with YaRN; their compressors' keys at each block's
  // first position; the indexer (ratio 4) with heads of 128 (a power of 2: its Hadamard transform), the last 64 turning
  add("deepseek4", "deepseek4", [](Meta& m) {
    m.model(1048576, 2, 1, 256, 64, 10000, 4)
        .str("rope.scaling.type", "yarn")
        .f32("rope.scaling.factor", 16)
        .u32("rope.scaling.original_context_length", 65536)
        .f32("attention.compress_rope_freq_base", 160000)
        .i32s("attention.compress_ratios", {0, 4, 128, 4})
        .u32("attention.sliding_window", 128)
        .u32("attention.q_lora_rank", 64)
        .u32("expert_count", 2)
        .u32("expert_used_count", 2)
        .u32("expert_feed_forward_length", 32)
        .u32("expert_shared_count", 1)
        .f32("expert_weights_scale", 1.5f)
        .boolean("expert_weights_norm", true)
        .f32("swiglu_clamp_exp", 10)
        .u32("attention.indexer.head_count", 2)
        .u32("attention.indexer.key_length", 128)
        .u32("attention.indexer.top_k", 16)
        .u32("attention.output_group_count", 1)
        .u32("attention.output_lora_rank", 32)
        .u32("hyper_connection.count", 4)
        .u32("hyper_connection.sinkhorn_iterations", 3)
        .f32("hyper_connection.epsilon", 1e-6f)
        .u32("hash_layer_count", 0)
        .u32("expert_gating_func", 4);
    for (int p = 65520; p < 65536; ++p) m.prefill.push_back(p);
    m.n_ctx = 65536;  // the compressed caches are indexed by position / ratio (src/llama-kv-cache-dsv4.cpp:523-527)
  });
  // The lightning indexers (gguf_config_indexer.cpp): heads of 128 (a power of 2: their Hadamard transform) of which
  // the first 64 turn with a rope type of their own (DeepSeek-3.2, dots3note NEOX; GLM-DSA NORM), or the last 64 with
  // the model's (HY-V4); MLA heads of 192 around them, the model's YaRN.
  const auto dsa = [](Meta& m, std::uint32_t layers) {
    m.u32("context_length", 163840)
        .u32("embedding_length", 256)
        .u32("block_count", layers)
        .u32("feed_forward_length", 64)
        .u32("attention.head_count", 2)
        .u32("attention.head_count_kv", 1)
        .u32("attention.key_length", 576)
        .u32("attention.value_length", 512)
        .f32("attention.layer_norm_rms_epsilon", 1e-6f)
        .u32("rope.dimension_count", 64)
        .f32("rope.freq_base", 10000)
        .str("rope.scaling.type", "yarn")
        .f32("rope.scaling.factor", 40)
        .u32("rope.scaling.original_context_length", 4096)
        .f32("rope.scaling.yarn_log_multiplier", 0.1f)
        .u32("attention.q_lora_rank", 64)
        .u32("attention.kv_lora_rank", 512)
        .u32("attention.key_length_mla", 192)
        .u32("attention.value_length_mla", 128)
        .u32("leading_dense_block_count", 1)
        .u32("expert_count", 2)
        .u32("expert_used_count", 2)
        .u32("expert_shared_count", 1)
        .u32("expert_feed_forward_length", 32)
        .f32("expert_weights_scale", 1.0f)
        .u32("expert_gating_func", 2)
        .u32("attention.indexer.head_count", 2)
        .u32("attention.indexer.key_length", 128)
        .u32("attention.indexer.top_k", 16);
  };
  add("deepseek32", "deepseek32", [&](Meta& m) { dsa(m, 2); });  // NEOX indexer in every layer (deepseek32.cpp:226-249)
  add("glm-dsa", "glm-dsa",
      [&](Meta& m) {  // NORM indexer on layer 0 only (attention.indexer.types; glm-dsa.cpp:264-287)
        dsa(m, 2);
        m.u32("context_length", 202752).i32s("attention.indexer.types", {1, 0});
        // its indexer tensors are optional (glm-dsa.cpp:144-148): libllama creates them only when the metadata lists
        // them
        m.listed("blk.0.indexer.k_norm.weight", 128)
            .listed("blk.0.indexer.k_norm.bias", 128)
            .listed("blk.0.indexer.proj.weight", 256, 2)
            .listed("blk.0.indexer.attn_k.weight", 256, 128)
            .listed("blk.0.indexer.attn_q_b.weight", 64, 256);
      });
  add("dots3note", "dots3note", [&](Meta& m) {  // NEOX indexer on the full layer 0 (dots3note.cpp:207-230)
    dsa(m, 2);
    m.u32("attention.kv_lora_rank_swa", 512)
        .u32("attention.key_length_mla_swa", 128)
        .u32("attention.value_length_mla_swa", 128)
        .u32("attention.sliding_window", 128)
        .f32("rope.freq_base_swa", 20000)
        .bools("attention.sliding_window_pattern", {false, true})
        .i32s("attention.indexer.types", {1, 0});
  });
  add("hy_v4", "hy_v4", [&](Meta& m) {  // the model's NORM on the last 64 of the indexer's 128 (hy-v4.cpp:342-375)
    dsa(m, 2);
    m.u32("hyper_connection.count", 4)
        .f32("hyper_connection.epsilon", 1e-6f)
        .f32("hyper_connection.magnitude", 1.0f)
        .i32s("attention.indexer.types", {1, 0});
  });
  // Qwen4-exp: IMROPE on heads of 256 turning 128 with sections whose pairs 61, 62 read the fourth slot, linear
  // attention but the fourth layer; its indexer (heads of 128, all turning) on that layer (compress ratio 4): q at the
  // tokens' positions, k (a block's mean key) at the block's first position in all four slots (qwen4exp.cpp:598-642,
  // src/llama-memory-hybrid-idx.cpp:482-492). One sequence: its blocks are whole.
  add("qwen4exp", "qwen4exp", [](Meta& m) {
    m.model(262144, 2, 1, 256, 128, 1e7f, 4)
        .i32s("rope.dimension_sections", {24, 20, 20, 0})
        .u32("ssm.conv_kernel", 4)
        .u32("ssm.inner_size", 128)
        .u32("ssm.state_size", 32)
        .u32("ssm.time_step_rank", 4)
        .u32("ssm.group_count", 2)
        .u32("hyper_connection.count", 2)
        .u32("hyper_connection.low_rank", 8)
        .f32("hyper_connection.epsilon", 1e-6f)
        .u32("attention.indexer.head_count", 2)
        .u32("attention.indexer.key_length", 128)
        .u32("attention.indexer.top_k", 8)
        .i32s("attention.compress_ratios", {4, 4, 4, 4})
        .u32("full_attention_interval", 4)
        .u32("expert_count", 2)
        .u32("expert_used_count", 2)
        .u32("expert_feed_forward_length", 32)
        .u32("expert_shared_feed_forward_length", 32);
    // A block is position / ratio, and must lie in the cache's cell window (GGML_ASSERT "qsa: cell position runs past
    // the cell window", src/llama-memory-hybrid-idx.cpp:352-356, 456): a sequence from position 0, 32 tokens, not far
    // out.
    for (int p = 0; p < 32; ++p) m.prefill.push_back(p);
    m.no_save = true;
  });
  // The hybrids: gated delta net on all layers but every full_attention_interval-th (4), RoPE on the full-attention
  // layer 3 alone (qwen35.cpp:15-23,166-171: IMROPE, :296-308; qwen3next.cpp:16-23,163-168: NEOX, :278-287).
  // The linear layers' fused qkv and gate are optional tensors (qwen35.cpp:77-78, qwen3next.cpp:87-88): listed,
  // n_embd 512 by 2 · 64 + 128 and 128 (key_dim = state 32 · groups 2, value_dim = 32 · 4 heads).
  auto gdn = [](Meta& m) {
    m.u32("ssm.conv_kernel", 4)
        .u32("ssm.inner_size", 128)
        .u32("ssm.state_size", 32)
        .u32("ssm.time_step_rank", 4)
        .u32("ssm.group_count", 2);
    for (int il = 0; il < 3; ++il) {
      m.listed("blk." + std::to_string(il) + ".attn_qkv.weight", 512, 256)
          .listed("blk." + std::to_string(il) + ".attn_gate.weight", 512, 128);
    }
  };
  add("qwen35", "qwen35", [&](Meta& m) {
    m.model(262144, 2, 1, 256, 64, 1e7f, 4).i32s("rope.dimension_sections", {11, 11, 10, 0});
    gdn(m);
  });
  add("qwen3next", "qwen3next", [&](Meta& m) {
    m.model(262144, 2, 1, 256, 64, 1e7f, 4)
        .u32("expert_count", 2)
        .u32("expert_used_count", 2)
        .u32("expert_feed_forward_length", 32)
        .u32("expert_shared_feed_forward_length", 32);
    gdn(m);
  });
  // The softmax scale (kq_scale.tsv; data/families.json's kq_scale rules): n_embd / n_head 128 apart from the head 64;
  // the Gemmas' sliding layers at rope.freq_base, unscaled, like the others (one RoPE in every layer).
  add("granite-scale", "granite", [](Meta& m) {  // attention.scale (HF's attention_multiplier), granite.cpp:10, 235
    m.model(8192, 2, 2, 64, 64, 10000, 2).f32("logit_scale", 1.0f).f32("attention.scale", 0.015625f);
  });
  add("gemma2-head", "gemma2", [](Meta& m) {  // q × 1/√n_embd_head_k (64), not n_embd / n_head; capped at 50
    m.model(8192, 2, 1, 64, 64, 10000, 4).u32("embedding_length", 256).u32("attention.sliding_window", 4096);
  });
  add("gemma2-27b", "gemma2", [](Meta& m) {  // 46 layers, the 27B: q × 1/√(n_embd / n_head) (gemma2.cpp:17-27); cap 30
    m.model(8192, 2, 1, 64, 64, 10000, 46)
        .u32("embedding_length", 256)
        .u32("attention.sliding_window", 4096)
        .f32("attn_logit_softcapping", 30);
  });
  add("gemma3-27b", "gemma3", [](Meta& m) {  // 62 layers, the 27B (gemma3.cpp:20-31)
    m.model(131072, 2, 1, 64, 64, 10000, 62).u32("embedding_length", 256).u32("attention.sliding_window", 512);
  });
  add("gemma3n", "gemma3n", [](Meta& m) {  // f_attention_scale 1: kq_scale 1, nothing on q (gemma3n.cpp:8, 174)
    m.model(32768, 2, 1, 64, 64, 10000, 4).u32("attention.sliding_window", 512).f32("rope.freq_base_swa", 10000);
    m.no_save = true;  // llama_model_saver aborts on gemma3n (its altup and per-layer tensors)
  });
  add("grok", "grok",
      [](Meta& m) {  // the scores × attention.output_scale, capped at attn_logit_softcapping, kq_scale 1
        m.model(8192, 2, 2, 64, 64, 10000, 2)
            .u32("expert_count", 2)
            .u32("expert_used_count", 2)
            .u32("expert_feed_forward_length", 32)
            .f32("attention.output_scale", 0.05f)
            .f32("attn_logit_softcapping", 20);
      });
  // llama.cpp's context shift (issue 66, Meta::shift): 600 tokens prefilled, 512 of them discarded after the first 4
  // and the rest moved back by 512, the K cache turned in place by build_rope_shift (src/llama-kv-cache.cpp:1924-1973)
  // at the next decode. NORM and NEOX without scaling, and NORM with YaRN 4 over 4096 (shift_check.py).
  const auto shifted = [](Meta& m) {
    m.n_ctx = 1024;
    for (int p = 0; p < 600; ++p) m.prefill.push_back(p);
    m.shift = -512;
  };
  add("shift-norm", "llama", [=](Meta& m) { m.model(4096, 4, 2, 64, 64, 10000), shifted(m); });
  add("shift-neox", "qwen2", [=](Meta& m) { m.model(4096, 4, 2, 64, 64, 10000), shifted(m); });
  add("shift-yarn", "llama", [=](Meta& m) {
    m.model(16384, 4, 2, 64, 64, 10000)
        .str("rope.scaling.type", "yarn")
        .f32("rope.scaling.factor", 4)
        .u32("rope.scaling.original_context_length", 4096);
    shifted(m);
  });
  return cases;
}

}  // namespace rope_conformance
