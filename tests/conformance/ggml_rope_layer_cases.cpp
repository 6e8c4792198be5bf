// The conformance tier's per-layer and further kernel cases (ggml_rope_cases.hpp). Per layer: the GGUF file as
// convert_hf_to_gguf.py writes it for these architectures (no {arch}.attention.sliding_window_pattern, so llama.cpp
// takes the architecture's default pattern), the ggml call llama.cpp's graph makes on layer N, and `rope check
// --layer-type N`. The arguments of each call follow ggml-org/llama.cpp at the node-llama-cpp 3.22.1 bundle (commit
// de3ff815ea7d), src/models/ARCH.cpp, as src/rope/models/gguf/gguf_config_layers.cpp cites them.
#include <fstream>

#include "ggml_rope_cases.hpp"

namespace rope_conformance {

namespace {

std::string layer(int il) { return "--layer-type " + std::to_string(il); }

/// A row of --axis-positions per token, written beside the case: n numbers, the fourth (M-RoPE's e slot) 0 as
/// llama.cpp sets it (src/llama-graph.cpp:131-140).
std::string axis_file(const std::string& dir, const std::string& name, const std::vector<std::array<int, 3>>& rows,
                      int n) {
  const std::string path = dir + "/" + name + ".axis-positions.csv";
  std::ofstream f(path);
  for (const auto& r : rows) {
    for (int i = 0; i < n; ++i) f << (i ? "," : "") << (i < 3 ? r[static_cast<std::size_t>(i)] : 0);
    f << '\n';
  }
  return path;
}

void per_layer(const AddCase& add) {
  {  // Command R7B (cohere2): pattern 4, RoPE on the sliding layers only (cohere2.cpp:89), freq_base and the scaling
    const auto g = [] {
      Gguf f("cohere2");
      f.model(131072, 32, 128, 128, 50000, 32).u32("attention.sliding_window", 4096);
      return f;
    };
    Call c;
    c.mode = GGML_ROPE_TYPE_NORMAL, c.base = 50000;
    Gguf a = g(), b = g(), d = g();
    add("cohere2-layer-2-sliding", c, a, layer(2), "pass");
    add("cohere2-default", c, d, "", "pass");  // without --layer-type: the only layers that turn
    add("cohere2-layer-31-full", c, b, layer(31), "no-rope");
  }
  {  // Cohere2 MoE: dense_first pattern 4 (il % 4 != 0 slides), the leading dense block turns too (cohere2moe.cpp:184)
    const auto g = [] {
      Gguf f("cohere2moe");
      f.model(131072, 32, 128, 128, 50000, 16)
          .u32("attention.sliding_window", 4096)
          .u32("leading_dense_block_count", 1);
      return f;
    };
    Call c;
    c.mode = GGML_ROPE_TYPE_NORMAL, c.base = 50000;
    Gguf a = g(), b = g();
    add("cohere2moe-layer-0-dense", c, a, layer(0), "pass");
    add("cohere2moe-layer-8-full", c, b, layer(8), "no-rope");
  }
  {  // EXAONE 4.0 32B: 64 layers, pattern 4, RoPE on the sliding layers only (exaone4.cpp:4,111), llama3 scaling
    const std::vector<float> ff = llama3_factors(128, 1e6, 16, 1, 4, 8192);
    const auto g = [&](std::uint32_t layers) {
      Gguf f("exaone4");
      f.model(131072, 40, 128, 128, 1e6f, layers)
          .u32("attention.sliding_window", 4096)
          .tensor("rope_freqs.weight", ff)
          .u32("rope.scaling.original_context_length", 8192);
      return f;
    };
    Call c;
    c.base = 1e6f, c.freq_factors = ff;
    Gguf a = g(64), b = g(64), d = g(30);
    add("exaone4-32b-layer-62-sliding", c, a, layer(62), "pass");
    add("exaone4-32b-layer-63-full", c, b, layer(63), "no-rope");
    add("exaone4-1.2b-every-layer", c, d, "", "pass");  // 30 layers: no sliding pattern, RoPE everywhere
  }
  {  // OLMo 3 7B (olmo2): sliding layers at freq_base, freq_scale 1, ext_factor 0, attn_factor 1 (olmo2.cpp:117-131);
     // the full ones with the YaRN of the file
    const auto g = [] {
      Gguf f("olmo2");
      f.model(65536, 32, 128, 128, 500000, 32)
          .u32("attention.sliding_window", 4096)
          .str("rope.scaling.type", "yarn")
          .f32("rope.scaling.factor", 8)
          .u32("rope.scaling.original_context_length", 8192);
      return f;
    };
    Call sliding;
    sliding.base = 500000;
    Call full = sliding;
    full.freq_scale = 0.125f, full.ext_factor = 1, full.n_ctx_orig = 8192,
    full.attn_factor = yarn_attn_factor(8, false);
    Gguf a = g(), b = g(), d = g();
    add("olmo3-layer-0-sliding", sliding, a, layer(0), "pass");
    add("olmo3-layer-3-full", full, b, layer(3), "pass");
    add("olmo3-default-full", full, d, "", "pass");
    Gguf e = g();  // a planted bug: the full layer turned as a sliding one (without its YaRN)
    add("olmo3-layer-3-turned-as-sliding", sliding, e, layer(3), "scaling-ignored");
  }
  {  // SmallThinker: sliding_window > 0: dense_first pattern 4, no RoPE where il % 4 == 0 (smallthinker.cpp:106)
    const auto g = [] {
      Gguf f("smallthinker");
      f.model(32768, 16, 128, 128, 1.5e6f, 32).u32("attention.sliding_window", 4096);
      return f;
    };
    Call c;
    c.base = 1.5e6f;
    Gguf a = g(), b = g();
    add("smallthinker-layer-5", c, a, layer(5), "pass");
    add("smallthinker-layer-4-nope", c, b, layer(4), "no-rope");
  }
  {  // Llama 4 Scout: chunked attention unless sliding_window is 0, no RoPE where (il + 1) % 4 == 0 (llama4.cpp:143),
     // rope_freqs (Llama 3 scaling by 16 over 8192) on the others
    const std::vector<float> ff = llama3_factors(128, 500000, 16, 1, 4, 8192);
    const auto g = [&] {
      Gguf f("llama4");
      f.model(10485760, 40, 128, 128, 500000, 48)
          .tensor("rope_freqs.weight", ff)
          .u32("rope.scaling.original_context_length", 8192);
      return f;
    };
    Call c;
    c.mode = GGML_ROPE_TYPE_NORMAL, c.base = 500000, c.freq_factors = ff;
    Gguf a = g(), b = g(), d = g();
    add("llama4-layer-46-chunked", c, a, layer(46), "pass");
    add("llama4-default-chunked", c, d, "", "pass");
    add("llama4-layer-47-nope", c, b, layer(47), "no-rope");
  }
  {  // AFMoE without a sliding window: still no RoPE where (il + 1) % 4 == 0 (afmoe.cpp:135, n_no_rope_layer_step 4)
    const auto g = [] {
      Gguf f("afmoe");
      f.model(65536, 16, 128, 128, 10000, 8);
      return f;
    };
    Call c;
    Gguf a = g(), b = g();
    add("afmoe-layer-2", c, a, layer(2), "pass");
    add("afmoe-layer-7-nope", c, b, layer(7), "no-rope");
  }
  {  // EmbeddingGemma (gemma-embedding): pattern 6, sliding layers at rope.freq_base_swa unscaled
     // (gemma-embedding.cpp:94)
    const auto g = [] {
      Gguf f("gemma-embedding");
      f.model(2048, 3, 256, 256, 1e6f, 24).u32("attention.sliding_window", 512).f32("rope.freq_base_swa", 10000);
      return f;
    };
    Call sliding;
    sliding.head_dim = sliding.n_dims = 256, sliding.base = 10000;
    Call full = sliding;
    full.base = 1e6f;
    Gguf a = g(), b = g();
    add("gemma-embedding-layer-4-sliding", sliding, a, layer(4), "pass");
    add("gemma-embedding-layer-5-full", full, b, layer(5), "pass");
  }
  {  // ModernBERT: dense_first pattern 3; sliding layers at rope.freq_base_swa unscaled (modern-bert.cpp:4-8,94)
    const auto g = [] {
      Gguf f("modern-bert");
      f.model(8192, 12, 64, 64, 160000, 22).u32("attention.sliding_window", 128).f32("rope.freq_base_swa", 10000);
      return f;
    };
    Call full;
    full.head_dim = full.n_dims = 64, full.base = 160000;
    Call sliding = full;
    sliding.base = 10000;
    Gguf a = g(), b = g();
    add("modern-bert-layer-3-full", full, a, layer(3), "pass");
    add("modern-bert-layer-4-sliding", sliding, b, layer(4), "pass");
  }
  {  // Laguna: dense_first pattern 4; sliding layers rope.freq_base_swa, scale 1, ext_factor 0, attn_factor 1
     // (laguna.cpp:180-189); the full ones with the YaRN of the file
    const auto g = [] {
      Gguf f("laguna");
      f.model(131072, 16, 128, 128, 500000, 8)
          .u32("attention.sliding_window", 512)
          .f32("rope.freq_base_swa", 10000)
          .str("rope.scaling.type", "yarn")
          .f32("rope.scaling.factor", 4)
          .u32("rope.scaling.original_context_length", 32768);
      return f;
    };
    Call sliding;
    sliding.base = 10000;
    Call full;
    full.base = 500000, full.freq_scale = 0.25f, full.ext_factor = 1, full.n_ctx_orig = 32768,
    full.attn_factor = yarn_attn_factor(4, false);
    Gguf a = g(), b = g();
    add("laguna-layer-1-sliding", sliding, a, layer(1), "pass");
    add("laguna-layer-4-full", full, b, layer(4), "pass");
  }
  {  // Gemma 4 (gemma4.cpp:5,191-227): the pattern as an array; sliding layers with their own head and rotary dims
     // at rope.freq_base_swa unscaled; full layers of head 512 with rope_freqs (proportional RoPE: the pairs past a
     // quarter turn with a factor so large they stand still)
    std::vector<float> prop(256, 1.0f);
    for (std::size_t i = 64; i < prop.size(); ++i) prop[i] = 1e30f;
    const auto g = [&] {
      Gguf f("gemma4");
      f.model(262144, 8, 512, 512, 1e6f, 6)
          .u32("attention.key_length_swa", 256)
          .u32("rope.dimension_count_swa", 256)
          .f32("rope.freq_base_swa", 10000)
          .u32("attention.sliding_window", 1024)
          .bools("attention.sliding_window_pattern", {true, true, true, true, true, false})
          .tensor("rope_freqs.weight", prop);
      return f;
    };
    Call sliding;
    sliding.head_dim = sliding.n_dims = 256, sliding.base = 10000;
    Call full;
    full.head_dim = full.n_dims = 512, full.base = 1e6f, full.freq_factors = prop;
    Gguf a = g(), b = g();
    add("gemma4-layer-0-sliding", sliding, a, layer(0), "pass");
    add("gemma4-layer-5-full", full, b, layer(5), "pass");
  }
  {  // DeepSeek-V4 (deepseek4.cpp:903-935): the last 64 of 512 channels; layers with a compress ratio at
     // compress_rope_freq_base with the YaRN, magnitude 1 (dsv4_rope_attn_factor cancels ggml's); the others at
     // freq_base unscaled
    const auto g = [] {
      Gguf f("deepseek4");
      f.model(1048576, 64, 512, 64, 10000, 4)
          .str("rope.scaling.type", "yarn")
          .f32("rope.scaling.factor", 16)
          .u32("rope.scaling.original_context_length", 65536)
          .f32("attention.compress_rope_freq_base", 160000)
          .i32s("attention.compress_ratios", {0, 4, 128, 4})
          .u32("attention.sliding_window", 128);
      return f;
    };
    Call plain;
    plain.mode = GGML_ROPE_TYPE_NORMAL, plain.head_dim = 512, plain.n_dims = 64, plain.offset = 448, plain.base = 10000;
    plain.beta_fast = plain.beta_slow = 0;
    Call comp = plain;
    comp.base = 160000, comp.freq_scale = 1.0f / 16, comp.ext_factor = 1, comp.n_ctx_orig = 65536;
    comp.attn_factor = 1.0f / (1.0f + 0.1f * std::log(16.0f)), comp.beta_fast = 32, comp.beta_slow = 1;
    Gguf a = g(), b = g(), d = g();
    add("deepseek4-layer-0-sliding", plain, a, layer(0), "pass");
    add("deepseek4-layer-2-compressed", comp, b, layer(2), "pass");
    add("deepseek4-default-compressed", comp, d, "", "pass");
  }
  {  // Step 3.5 (step35.cpp:9,59-63,244-255): full layers rotate n_rot / 2 with the first n_rot / 4 factors of the
     // shared rope_freqs; sliding layers all n_rot at rope.freq_base_swa, unscaled, no factors
    std::vector<float> ff;
    for (int i = 0; i < 64; ++i) ff.push_back(1.0f + 0.0625f * static_cast<float>(i));
    const auto g = [&] {
      Gguf f("step35");
      f.model(262144, 64, 128, 128, 5e6f, 4)
          .f32("rope.freq_base_swa", 10000)
          .u32("attention.sliding_window", 512)
          .bools("attention.sliding_window_pattern", {false, true, true, true})
          .tensor("rope_freqs.weight", ff);
      return f;
    };
    Call full;
    full.head_dim = 128, full.n_dims = 64, full.base = 5e6f, full.freq_factors.assign(ff.begin(), ff.begin() + 32);
    Call sliding;
    sliding.head_dim = sliding.n_dims = 128, sliding.base = 10000;
    Gguf a = g(), b = g();
    add("step35-layer-0-full", full, a, layer(0), "pass");
    add("step35-layer-1-sliding", sliding, b, layer(1), "pass");
  }
  {  // Spark 2.5 (spark2-5.cpp:8-12,76-87): sliding layers of head 64 turning 64 at rope.freq_base_swa, scaled
    const auto g = [] {
      Gguf f("spark2_5");
      f.model(32768, 16, 128, 128, 1e6f, 4)
          .u32("attention.key_length_swa", 64)
          .u32("rope.dimension_count_swa", 64)
          .f32("rope.freq_base_swa", 10000)
          .str("rope.scaling.type", "linear")
          .f32("rope.scaling.factor", 2)
          .bools("attention.sliding_window_pattern", {true, true, true, false});
      return f;
    };
    Call sliding;
    sliding.head_dim = sliding.n_dims = 64, sliding.base = 10000, sliding.freq_scale = 0.5f;
    Call full;
    full.base = 1e6f, full.freq_scale = 0.5f;
    Gguf a = g(), b = g();
    add("spark2_5-layer-0-sliding", sliding, a, layer(0), "pass");
    add("spark2_5-layer-3-full", full, b, layer(3), "pass");
  }
  {  // dots3note (dots3note.cpp:23-34,309-339): NORM, the last 64 channels of an MLA head of 192 (full) or 128
     // (sliding: key_length_mla_swa), sliding at rope.freq_base_swa with the model's YaRN
    const auto g = [] {
      Gguf f("dots3note");
      f.model(131072, 16, 576, 64, 5e6f, 4)
          .u32("attention.key_length_mla", 192)
          .u32("attention.key_length_mla_swa", 128)
          .f32("rope.freq_base_swa", 10000)
          .str("rope.scaling.type", "yarn")
          .f32("rope.scaling.factor", 4)
          .u32("rope.scaling.original_context_length", 32768)
          .bools("attention.sliding_window_pattern", {false, true, true, true});
      return f;
    };
    Call full;
    full.mode = GGML_ROPE_TYPE_NORMAL, full.head_dim = 192, full.n_dims = 64, full.offset = 128, full.base = 5e6f;
    full.freq_scale = 0.25f, full.ext_factor = 1, full.n_ctx_orig = 32768,
    full.attn_factor = yarn_attn_factor(4, false);
    Call sliding = full;
    sliding.head_dim = 128, sliding.offset = 64, sliding.base = 10000;
    Gguf a = g(), b = g();
    add("dots3note-layer-0-full", full, a, layer(0), "pass");
    add("dots3note-layer-1-sliding", sliding, b, layer(1), "pass");
  }
  {  // GLM-DSA (glm-dsa.cpp:43,379-381) and DFlash's DSpark draft (dflash.cpp:48-92): the last 64 channels
    Call c;
    c.mode = GGML_ROPE_TYPE_NORMAL, c.head_dim = 256, c.n_dims = 64, c.offset = 192, c.base = 1e6f;
    Gguf glm("glm-dsa");
    glm.model(202752, 64, 576, 64, 1e6f).u32("attention.key_length_mla", 256);
    add("glm-dsa-mla-head", c, glm, "", "pass");
    Call d;  // every stage uncompressed: rope.freq_base, the YaRN keys unused
    d.mode = GGML_ROPE_TYPE_NORMAL, d.head_dim = 512, d.n_dims = 64, d.offset = 448, d.base = 10000;
    Gguf ds("dflash");
    ds.model(1048576, 64, 512, 64, 10000)
        .str("rope.scaling.type", "yarn")
        .f32("rope.scaling.factor", 16)
        .u32("rope.scaling.original_context_length", 65536)
        .u32("hyper_connection.count", 4);
    add("dflash-dspark", d, ds, "", "pass");
  }
}

/// Float16 kernels, q as a strided view of a fused QKV with partial rotation, multi-axis positions far out.
void kernels(const AddCase& add, const std::string& dir) {
  {  // PLM (src/models/plm.cpp:136-146): q turned over its last rope.dimension_count channels (ggml_rope_set_offset
     // by key_length − rope.dimension_count), k_pe alone; NORM. (libllama's graph of a tiny PLM asserts in
     // ggml_set_rows while reserving, so the pipeline has no PLM model.)
    const auto g = [] {
      Gguf f("plm");
      f.model(4096, 16, 192, 64, 100000, 32).u32("attention.kv_lora_rank", 512);
      return f;
    };
    Call q;
    q.mode = GGML_ROPE_TYPE_NORMAL, q.head_dim = 192, q.n_dims = 64, q.offset = 128, q.base = 100000;
    Gguf a = g();
    add("plm-q", q, a, "", "pass");
    Call k = q;
    k.head_dim = 64, k.offset = 0;
    Gguf b = g();
    add("plm-k_pe", k, b, "", "pass");
  }
  {  // float16 q through the NEOX and NORM kernels (ggml_compute_forward_rope_f16)
    Call c;
    c.base = 1e6f, c.f16 = true;
    Gguf g("qwen2");
    g.model(32768, 28, 128, 128, 1e6f);
    add("qwen2-f16", c, g, "", "pass");
    Call b = c;  // a planted bug in float16: base 10000 for a model of base 1e6
    b.base = 10000;
    Gguf gb("qwen2");
    gb.model(32768, 28, 128, 128, 1e6f);
    add("qwen2-f16-base-10000", b, gb, "", "base-10000");
    const std::vector<float> l3 = llama3_factors(128, 500000.0, 8.0, 1.0, 4.0, 8192.0);
    Call n;
    n.mode = GGML_ROPE_TYPE_NORMAL, n.base = 500000, n.freq_factors = l3, n.f16 = true;
    Gguf g2("llama");
    g2.model(131072, 32, 128, 128, 500000).tensor("rope_freqs.weight", l3);
    add("llama3-f16", n, g2, "", "pass");
  }
  {  // Phi-2: 32 of 80 channels rotate, q a view of the fused QKV (rows of 3 · heads · 80, heads 80 apart)
    Call c;
    c.head_dim = 80, c.n_dims = 32, c.row = 3 * kHeads * 80;
    Gguf g("phi2");
    g.model(2048, 32, 80, 32, 10000);
    add("phi2-partial-fused-view", c, g, "", "pass");
    Call h = c;  // and in float16
    h.f16 = true;
    Gguf g2("phi2");
    g2.model(2048, 32, 80, 32, 10000);
    add("phi2-partial-fused-view-f16", h, g2, "", "pass");
  }
  {  // Qwen3-VL (IMROPE) and Qwen2-VL (MROPE) with (t, h, w, 0) apart, t far out: a video's tokens after a long prompt
    std::vector<std::array<int, 3>> axes;
    std::vector<int> pos;
    for (int i = 0; i < 14; ++i) {
      const int t = 30000 + 977 * i, h = t + (i * 13) % 40, w = t + (i * 29) % 64;
      axes.push_back({t, h, w}), pos.push_back(t);
    }
    Call q;
    q.mode = GGML_ROPE_TYPE_IMROPE, q.base = 5e6f, q.sections = {24, 20, 20, 0}, q.axes = axes, q.positions = pos;
    Gguf g("qwen3vl");
    g.model(262144, 32, 128, 128, 5e6f).i32s("rope.dimension_sections", {24, 20, 20, 0});
    add("qwen3vl-thw-far", q, g, "--axis-positions " + axis_file(dir, "qwen3vl-thw-far", axes, 4), "pass");
    Call m = q;
    m.mode = GGML_ROPE_TYPE_MROPE, m.base = 1e6f, m.sections = {16, 24, 24, 0};
    Gguf g2("qwen2vl");
    g2.model(32768, 28, 128, 128, 1e6f).i32s("rope.dimension_sections", {16, 24, 24, 0});
    add("qwen2vl-thw-far", m, g2, "--axis-positions " + axis_file(dir, "qwen2vl-thw-far", axes, 4), "pass");
  }
  {  // the VISION kernel with rows and columns far out (a huge image, or a tower fed long positions)
    Call v;
    v.mode = GGML_ROPE_TYPE_VISION, v.head_dim = 80, v.n_dims = 40, v.sections = {20, 20, 0, 0};
    v.positions = {30000, 30001, 31337, 32767, 40000, 50000, 65535, 0, 9999, 65535};
    v.columns = {65535, 2, 30000, 12345, 40001, 7, 65535, 65535, 30000, 0};
    std::vector<std::array<int, 3>> rows;
    for (std::size_t t = 0; t < v.positions.size(); ++t) rows.push_back({v.positions[t], v.columns[t], 0});
    Gguf g("clip");
    add("vision-far", v, g,
        "--vision llama.cpp --base 10000 --angles ggml --axis-positions " + axis_file(dir, "vision-far", rows, 2),
        "pass");
  }
}

}  // namespace

void layer_cases(const AddCase& add, const std::string& dir) {
  per_layer(add);
  kernels(add, dir);
  indexer_cases(add, dir);
}

}  // namespace rope_conformance
