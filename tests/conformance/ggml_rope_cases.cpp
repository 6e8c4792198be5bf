// The conformance tier's harness (docs/check.md "Conformance with llama.cpp"): runs the real ggml RoPE
// kernels of the prebuilt llama.cpp libraries (scripts/install-deps.sh llama) on the CPU backend and writes,
// per case, the dumps before and after RoPE (.npy, float32, [token, head, channel]) and a GGUF file written
// with ggml's own gguf API that describes the model the kernel ran, as llama.cpp's loader would read it. A
// table cases.tsv says how rope check must judge each: "pass", or the variant a planted bug must be named.
//
// The arguments of every ggml call are those llama.cpp passes for such a model (ggml-org/llama.cpp at the
// node-llama-cpp 3.22.1 bundle, commit de3ff815ea7d):
//   freq_scale = 1/factor, ext_factor = 1 for YaRN else 0        src/llama-context.cpp:165-176
//   attn_factor (YaRN: get_mscale ratio / (1 + 0.1 ln factor))   src/llama-context.cpp:178-214
//   freq_factors: rope_freqs.weight, else rope_factors_long when n_ctx > n_ctx_orig   src/llama-model.cpp:2259-2272
//   attn_factor *= rope.scaling.attn_factor, whatever the scaling                   src/llama-context.cpp:214
//   DeepSeek-2 q: the whole head with ggml_rope_set_offset(n_embd_head_qk_nope)    src/models/deepseek2.cpp:615-617
//   M-RoPE text tokens: positions (p, p, p, 0)                   src/llama-graph.cpp:131-140
//
// Usage: rope_ggml_rope_cases LIBDIR OUTDIR [VARIANT.so]
// Without VARIANT the registry loads the best CPU variant of LIBDIR (FMA on most machines); with it, that one
// (libggml-cpu-x64.so: the portable one without FMA, whose last bits differ).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml.h"
#include "gguf.h"
#include "ggml_rope_cases.hpp"
#include "harness.hpp"

namespace {

using namespace rope_conformance;

/// The input the kernel rotates: deterministic, float32, of order 1.
std::vector<float> input(int d, std::size_t tokens) {
  std::vector<float> x(tokens * kHeads * static_cast<std::size_t>(d));
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>(static_cast<int>((i * 37 + 11) % 101) - 50) / 37.0f;
  return x;
}

bool run(ggml_backend_t be, const Call& c, const std::vector<float>& x, std::vector<float>& y) {
  const int n = static_cast<int>(c.positions.size());
  const ggml_type type = c.f16 ? GGML_TYPE_F16 : GGML_TYPE_F32;
  const std::size_t es = ggml_type_size(type);
  ggml_context* ctx = ggml_init({64 * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true});
  // q itself, or (c.row) a view of the first kHeads·head_dim channels of rows c.row wide, as Phi-3's fused QKV.
  const int width = c.row > 0 ? c.row : kHeads * c.head_dim;
  ggml_tensor* whole = ggml_new_tensor_2d(ctx, type, width, n);
  ggml_tensor* in = ggml_view_3d(ctx, whole, c.head_dim, kHeads, n, static_cast<std::size_t>(c.head_dim) * es,
                                 static_cast<std::size_t>(width) * es, 0);
  const bool multi = !c.sections.empty();
  ggml_tensor* pos = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, multi ? 4 * n : n);
  ggml_tensor* ff = c.freq_factors.empty()
                        ? nullptr
                        : ggml_new_tensor_1d(ctx, GGML_TYPE_F32, static_cast<std::int64_t>(c.freq_factors.size()));
  ggml_tensor* out = nullptr;
  if (multi) {
    int s[4] = {c.sections[0], c.sections[1], c.sections[2], c.sections[3]};
    out = ggml_rope_multi(ctx, in, pos, ff, c.n_dims, s, c.mode, c.n_ctx_orig, c.base, c.freq_scale, c.ext_factor,
                          c.attn_factor, c.beta_fast, c.beta_slow);
  } else {
    out = ggml_rope_ext(ctx, in, pos, ff, c.n_dims, c.mode, c.n_ctx_orig, c.base, c.freq_scale, c.ext_factor,
                        c.attn_factor, c.beta_fast, c.beta_slow);
  }
  if (c.offset) out = ggml_rope_set_offset(out, c.offset);
  ggml_cgraph* gf = ggml_new_graph(ctx);
  ggml_build_forward_expand(gf, out);
  ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(ctx, be);
  std::vector<std::int32_t> p(static_cast<std::size_t>(multi ? 4 * n : n), 0);
  for (int t = 0; t < n; ++t) {
    const auto ut = static_cast<std::size_t>(t);
    for (int slot = 0; slot < (multi ? 3 : 1); ++slot) {
      p[static_cast<std::size_t>(slot * n + t)] =
          (c.axes.empty() ? c.positions[ut] : c.axes[ut][static_cast<std::size_t>(slot)]) + c.position_shift;
    }
    if (multi && c.e_slot) p[static_cast<std::size_t>(3 * n + t)] = c.positions[ut] + c.position_shift;
    if (!c.columns.empty()) {  // VISION (clip.cpp's Qwen2-VL tower): slots 0 and 1 are the row and the column
      p[static_cast<std::size_t>(n + t)] = p[static_cast<std::size_t>(3 * n + t)] = c.columns[ut];
    }
  }
  // The rows of q (x, [token, head, channel]) in their place; the rest of a fused row holds values that must not move.
  std::vector<float> rows(static_cast<std::size_t>(width) * static_cast<std::size_t>(n), 1000.0f);
  for (std::size_t t = 0; t < static_cast<std::size_t>(n); ++t)
    for (std::size_t i = 0; i < static_cast<std::size_t>(kHeads * c.head_dim); ++i)
      rows[t * static_cast<std::size_t>(width) + i] = x[t * static_cast<std::size_t>(kHeads * c.head_dim) + i];
  if (c.f16) {
    std::vector<ggml_fp16_t> h(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) h[i] = ggml_fp32_to_fp16(rows[i]);
    ggml_backend_tensor_set(whole, h.data(), 0, ggml_nbytes(whole));
  } else {
    ggml_backend_tensor_set(whole, rows.data(), 0, ggml_nbytes(whole));
  }
  ggml_backend_tensor_set(pos, p.data(), 0, ggml_nbytes(pos));
  if (ff) ggml_backend_tensor_set(ff, c.freq_factors.data(), 0, ggml_nbytes(ff));
  const bool ok = ggml_backend_graph_compute(be, gf) == GGML_STATUS_SUCCESS;
  y.resize(x.size());
  if (ok && c.f16) {
    std::vector<ggml_fp16_t> h(x.size());
    ggml_backend_tensor_get(out, h.data(), 0, ggml_nbytes(out));
    for (std::size_t i = 0; i < h.size(); ++i) y[i] = ggml_fp16_to_fp32(h[i]);
  } else if (ok) {
    ggml_backend_tensor_get(out, y.data(), 0, ggml_nbytes(out));
  }
  ggml_backend_buffer_free(buf);
  ggml_free(ctx);
  return ok;
}

/// .npy of float32 values, or float16 (`<f2`) when `f16`: the values are float16 numbers then.
void write_values(const std::string& path, const std::vector<float>& v, bool f16,
                  const std::vector<std::int64_t>& shape) {
  if (!f16) return write_npy(path, "<f4", v.data(), v.size() * 4, shape);
  std::vector<ggml_fp16_t> h(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) h[i] = ggml_fp32_to_fp16(v[i]);
  write_npy(path, "<f2", h.data(), h.size() * 2, shape);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) {
    std::fprintf(stderr, "usage: %s LIBDIR OUTDIR [VARIANT.so]\n", argv[0]);
    return 2;
  }
  const std::string lib = argv[1], dir = argv[2];
  ggml_log_set([](ggml_log_level, const char*, void*) {}, nullptr);
  if (!load_cpu_backend(lib, argc == 4 ? argv[3] : "")) return 1;
  ggml_backend_t be = ggml_backend_init_by_type(GGML_BACKEND_DEVICE_TYPE_CPU, nullptr);
  if (!be) {
    std::fprintf(stderr, "no CPU backend in %s\n", lib.c_str());
    return 1;
  }
  std::printf("ggml CPU backend: %s\n", ggml_backend_dev_description(ggml_backend_get_device(be)));
  std::ofstream table(dir + "/cases.tsv");
  int failures = 0;
  // name, call, gguf, extra rope check arguments, expected verdict
  const auto add = [&](const std::string& name, const Call& c, Gguf& g, const std::string& args,
                       const std::string& expected) {
    std::vector<float> x = input(c.head_dim, c.positions.size());
    if (c.f16) {
      for (float& v : x) v = ggml_fp16_to_fp32(ggml_fp32_to_fp16(v));  // q as float16 holds it
    }
    std::vector<float> y;
    const int n = static_cast<int>(c.positions.size());
    std::string positions;
    for (int p : c.positions) positions += (positions.empty() ? "" : ",") + std::to_string(p);
    if (!run(be, c, x, y) || !g.write(dir + "/" + name + ".gguf")) {
      std::fprintf(stderr, "%s: ggml failed\n", name.c_str());
      ++failures;
      return;
    }
    const std::vector<std::int64_t> shape{n, kHeads, c.head_dim};
    const std::vector<float>& before = c.before_is_after ? y : x;
    write_values(dir + "/" + name + ".before.npy", before, c.f16, shape);
    write_values(dir + "/" + name + ".after.npy", y, c.f16, shape);
    table << name << '\t' << positions << '\t' << args << '\t' << expected << '\n';
  };
  const std::vector<float> l3 = llama3_factors(128, 500000.0, 8.0, 1.0, 4.0, 8192.0);
  {  // Llama 3.1: NORM, freq_factors rope_freqs.weight
    Call c;
    c.mode = GGML_ROPE_TYPE_NORMAL, c.base = 500000, c.freq_factors = l3;
    Gguf g("llama");
    g.model(131072, 32, 128, 128, 500000).tensor("rope_freqs.weight", l3);
    add("llama3", c, g, "", "pass");
    Gguf g2("llama");
    g2.model(131072, 32, 128, 128, 500000).tensor("rope_freqs.weight", l3);
    Call shifted = c;
    shifted.position_shift = 1;
    add("llama3-positions-plus-one", shifted, g2, "", "positions-plus-one");
    Gguf g3("llama");
    g3.model(131072, 32, 128, 128, 500000).tensor("rope_freqs.weight", l3);
    Call neox = c;
    neox.mode = GGML_ROPE_TYPE_NEOX;
    add("llama3-neox", neox, g3, "", "layout-swapped");
  }
  {  // Qwen2.5: NEOX base 1e6; the planted bug: base 10000
    Call c;
    c.base = 1e6f;
    Gguf g("qwen2");
    g.model(32768, 28, 128, 128, 1e6f);
    add("qwen2", c, g, "", "pass");
    Call b = c;
    b.base = 10000;
    Gguf g2("qwen2");
    g2.model(32768, 28, 128, 128, 1e6f);
    add("qwen2-base-10000", b, g2, "", "base-10000");
  }
  {  // linear, factor 4
    Call c;
    c.base = 1e6f, c.freq_scale = 0.25f;
    Gguf g("qwen2");
    g.model(131072, 28, 128, 128, 1e6f).str("rope.scaling.type", "linear").f32("rope.scaling.factor", 4);
    add("qwen2-linear", c, g, "", "pass");
  }
  {  // YaRN factor 4 over 32768 (Qwen2.5's long-context recipe), ext_factor 1
    Call c;
    c.base = 1e6f, c.freq_scale = 0.25f, c.ext_factor = 1, c.n_ctx_orig = 32768,
    c.attn_factor = yarn_attn_factor(4, false);
    Gguf g("qwen2");
    g.model(131072, 28, 128, 128, 1e6f)
        .str("rope.scaling.type", "yarn")
        .f32("rope.scaling.factor", 4)
        .u32("rope.scaling.original_context_length", 32768);
    add("qwen2-yarn", c, g, "", "pass");
  }
  {  // Phi-2: partial rotary, NEOX, 32 of 80 channels
    Call c;
    c.head_dim = 80, c.n_dims = 32;
    Gguf g("phi2");
    g.model(2048, 32, 80, 32, 10000);
    add("phi2-partial", c, g, "", "pass");
  }
  {  // Qwen3-VL text tokens: IMROPE, positions (p, p, p, 0)
    Call c;
    c.mode = GGML_ROPE_TYPE_IMROPE, c.base = 5e6f, c.sections = {24, 20, 20, 0};
    Gguf g("qwen3vl");
    g.model(262144, 32, 128, 128, 5e6f).i32s("rope.dimension_sections", {24, 20, 20, 0});
    add("qwen3vl-text", c, g, "", "pass");
  }
  {  // Qwen2-VL text tokens: MROPE
    Call c;
    c.mode = GGML_ROPE_TYPE_MROPE, c.base = 1e6f, c.sections = {16, 24, 24, 0};
    Gguf g("qwen2vl");
    g.model(32768, 28, 128, 128, 1e6f).i32s("rope.dimension_sections", {16, 24, 24, 0});
    add("qwen2vl-text", c, g, "", "pass");
  }
  {  // DeepSeek-V3: NORM YaRN over the last 64 of 192 channels (the offset); and q_pe alone (MLA)
    Call c;
    c.mode = GGML_ROPE_TYPE_NORMAL, c.head_dim = 192, c.n_dims = 64, c.offset = 128, c.freq_scale = 1.0f / 40,
    c.ext_factor = 1, c.n_ctx_orig = 4096, c.attn_factor = yarn_attn_factor(40, true);
    const auto deepseek = [](Gguf& g, bool mla) {
      g.u32("context_length", 163840)
          .u32("embedding_length", 7168)
          .u32("block_count", 2)
          .u32("attention.head_count", 128)
          .u32("attention.head_count_kv", mla ? 1 : 128)
          .u32("attention.key_length", mla ? 576 : 192)
          .u32("rope.dimension_count", 64)
          .f32("rope.freq_base", 10000)
          .str("rope.scaling.type", "yarn")
          .f32("rope.scaling.factor", 40)
          .u32("rope.scaling.original_context_length", 4096)
          .f32("rope.scaling.yarn_log_multiplier", 0.1f);
      if (mla)
        g.u32("attention.key_length_mla", 192)
            .u32("attention.value_length_mla", 128)
            .u32("attention.value_length", 512);
    };
    Gguf g("deepseek2");
    deepseek(g, false);
    add("deepseek2", c, g, "", "pass");
    Call pe = c;
    pe.head_dim = 64, pe.offset = 0;
    Gguf g2("deepseek2");
    deepseek(g2, true);
    add("deepseek2-mla-q_pe", pe, g2, "", "pass");
  }
  {  // Gemma 3 4B: full layers linear 8 at 1e6, sliding layers 10000 unscaled
    const auto gemma = [](Gguf& g) {
      g.model(131072, 8, 256, 256, 1e6f, 34)
          .u32("attention.sliding_window", 1024)
          .f32("rope.freq_base_swa", 10000)
          .str("rope.scaling.type", "linear")
          .f32("rope.scaling.factor", 8);
    };
    Call full;
    full.head_dim = 256, full.n_dims = 256, full.base = 1e6f, full.freq_scale = 0.125f;
    Gguf g("gemma3");
    gemma(g);
    add("gemma3-full", full, g, "", "pass");
    Call sliding;
    sliding.head_dim = 256, sliding.n_dims = 256, sliding.base = 10000;
    Gguf g2("gemma3");
    gemma(g2);
    add("gemma3-sliding", sliding, g2, "--layer-type sliding_attention", "pass");
  }
  {  // Phi-3 mini 128k: LongRoPE factors as freq_factors and rope.scaling.attn_factor as the magnitude. llama.cpp
     // takes the long factors when the context exceeds the original one (src/llama-model.cpp:2259-2272), HF and rope
     // from position 4096 on: positions past it, where both agree.
    std::vector<float> lf, sf;
    for (int i = 0; i < 48; ++i)
      lf.push_back(1.0f + 0.25f * static_cast<float>(i)), sf.push_back(1.0f + 0.01f * static_cast<float>(i));
    const float attn = std::sqrt(1.0f + std::log(32.0f) / std::log(4096.0f));
    Call c;
    c.head_dim = 96, c.n_dims = 96, c.freq_factors = lf, c.attn_factor = attn;
    c.positions = {4096, 4097, 4100, 5000, 8192, 16384, 30000, 32767, 65535, 100000, 131071};
    Gguf g("phi3");
    g.model(131072, 32, 96, 96, 10000)
        .u32("rope.scaling.original_context_length", 4096)
        .f32("rope.scaling.attn_factor", attn)
        .tensor("rope_factors_long.weight", lf)
        .tensor("rope_factors_short.weight", sf);
    add("phi3-longrope", c, g, "", "pass");
    // llama.cpp with a context within the original one takes the short factors at any position (a planted
    // mismatch for rope, which takes the list from the positions): named.
    Call sc = c;
    sc.freq_factors = sf;
    Gguf g2("phi3");
    g2.model(131072, 32, 96, 96, 10000)
        .u32("rope.scaling.original_context_length", 4096)
        .f32("rope.scaling.attn_factor", attn)
        .tensor("rope_factors_long.weight", lf)
        .tensor("rope_factors_short.weight", sf);
    add("phi3-short-factors-past-the-original-context", sc, g2, "", "longrope-other-list");
  }
  {          // Planted bugs of docs/check.md's table the real kernel commits, each of which check must name.
    Call c;  // YaRN run without ext_factor: linear interpolation by 4 everywhere, no ramp, no magnitude
    c.base = 1e6f, c.freq_scale = 0.25f, c.ext_factor = 0, c.n_ctx_orig = 32768,
    c.attn_factor = yarn_attn_factor(4, false);
    Gguf g("qwen2");
    g.model(131072, 28, 128, 128, 1e6f)
        .str("rope.scaling.type", "yarn")
        .f32("rope.scaling.factor", 4)
        .u32("rope.scaling.original_context_length", 32768);
    add("qwen2-yarn-without-ext-factor", c, g, "", "yarn-without-ext-factor");
    Call h;  // a full-rotary model rotated with n_dims = d/2
    h.base = 1e6f, h.n_dims = 64;
    Gguf g2("qwen2");
    g2.model(32768, 28, 128, 128, 1e6f);
    add("qwen2-rotary-dim-halved", h, g2, "", "rotary-dim-halved");
    Call q;  // Qwen3-VL text through llama.cpp (p, p, p, 0), checked against Hugging Face's map (p, p, p)
    q.mode = GGML_ROPE_TYPE_IMROPE, q.base = 5e6f, q.sections = {24, 20, 20, 0};
    Gguf g3("qwen3vl");
    g3.model(262144, 32, 128, 128, 5e6f).i32s("rope.dimension_sections", {24, 20, 20, 0});
    add("qwen3vl-text-hf-config", q, g3, "--model qwen3-vl-8b --angles ggml", "e-slot-unrotated");
    Call b;  // Qwen3 / Gemma 3: RoPE in place after the q-norm, "before" read after it ran
    b.base = 1e6f, b.before_is_after = true;
    Gguf g4("qwen3");
    g4.model(40960, 32, 128, 128, 1e6f);
    add("qwen3-before-read-after-in-place-rope", b, g4, "", "before-equals-after");
  }
  {  // The VISION kernel (GGML_ROPE_TYPE_VISION: Qwen2-VL's and Qwen2.5-VL's vision towers in clip.cpp): head 80,
     // n_dims = d/2, sections [d/4, d/4, 0, 0], the ladder restarted at each section; against rope's --vision
     // llama.cpp.
    Call v;
    v.mode = GGML_ROPE_TYPE_VISION, v.head_dim = 80, v.n_dims = 40, v.sections = {20, 20, 0, 0};
    v.positions = {0, 0, 1, 5, 13, 27, 63, 100, 255, 511, 1023, 2047};
    v.columns = {0, 1, 0, 7, 13, 3, 63, 900, 1, 511, 17, 2047};
    std::ofstream rows(dir + "/vision-qwen2vl.axis-positions.csv");
    for (std::size_t t = 0; t < v.positions.size(); ++t) rows << v.positions[t] << ',' << v.columns[t] << '\n';
    rows.close();
    Gguf g("clip");
    add("vision-qwen2vl", v, g,
        "--vision llama.cpp --base 10000 --angles ggml --axis-positions " + dir + "/vision-qwen2vl.axis-positions.csv",
        "pass");
  }
  layer_cases(add, dir);
  ggml_backend_free(be);
  return failures == 0 ? 0 : 1;
}
