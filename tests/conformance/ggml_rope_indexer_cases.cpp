// The conformance tier's kernel cases of the lightning indexers whose heads are [rope | nope] (ggml_rope_cases.hpp):
// the first rope.dimension_count channels of heads of attention.indexer.key_length turn, with a rope type of the
// indexer's own or the model's, and `rope check --layer-type indexer` reads that from the GGUF file. The calls follow
// ggml-org/llama.cpp at the node-llama-cpp 3.22.1 bundle (commit de3ff815ea7d): src/models/deepseek32.cpp:233-248,
// glm-dsa.cpp:271-286, dots3note.cpp:214-229, qwen4exp.cpp:626-642 with src/llama-memory-hybrid-idx.cpp:482-492.
// Planted bugs: the indexer turned with the model's rope type (rope's reading before it knew the indexer's own), and
// Qwen4-exp's block key turned one position late.
#include <fstream>

#include "ggml_rope_cases.hpp"

namespace rope_conformance {

namespace {
const std::string kIndexer = "--layer-type indexer";

/// DeepSeek-3.2 as convert_hf_to_gguf.py writes it: MLA (key_length 576, key_length_mla 192), the YaRN of DeepSeek-V3,
/// the indexer's heads of 128.
Gguf deepseek32() {
  Gguf g("deepseek32");
  g.u32("context_length", 163840)
      .u32("embedding_length", 7168)
      .u32("block_count", 2)
      .u32("attention.head_count", 128)
      .u32("attention.head_count_kv", 1)
      .u32("attention.key_length", 576)
      .u32("attention.key_length_mla", 192)
      .u32("attention.value_length_mla", 128)
      .u32("rope.dimension_count", 64)
      .f32("rope.freq_base", 10000)
      .str("rope.scaling.type", "yarn")
      .f32("rope.scaling.factor", 40)
      .u32("rope.scaling.original_context_length", 4096)
      .f32("rope.scaling.yarn_log_multiplier", 0.1f)
      .u32("attention.indexer.head_count", 64)
      .u32("attention.indexer.key_length", 128)
      .u32("attention.indexer.top_k", 2048);
  return g;
}

Gguf glm_dsa() {
  Gguf g("glm-dsa");
  g.model(202752, 64, 576, 64, 1e6f)
      .u32("attention.key_length_mla", 256)
      .u32("attention.value_length_mla", 256)
      .u32("attention.indexer.key_length", 128);
  return g;
}

Gguf dots3note() {
  Gguf g("dots3note");
  g.model(131072, 16, 576, 64, 5e6f, 4)
      .u32("attention.key_length_mla", 192)
      .u32("attention.key_length_mla_swa", 128)
      .f32("rope.freq_base_swa", 10000)
      .str("rope.scaling.type", "yarn")
      .f32("rope.scaling.factor", 4)
      .u32("rope.scaling.original_context_length", 32768)
      .bools("attention.sliding_window_pattern", {false, true, true, true})
      .u32("attention.indexer.key_length", 128);
  return g;
}

/// Qwen4-exp: IMROPE, heads of 256 turning 128 with Qwen3-VL's sections (pairs 61 and 62 read the fourth slot), linear
/// attention but every fourth layer, the indexer (heads of 128, all turning) on the full layers with a compress ratio.
Gguf qwen4exp() {
  Gguf g("qwen4exp");
  g.model(262144, 16, 256, 128, 1e7f, 8)
      .i32s("rope.dimension_sections", {24, 20, 20, 0})
      .u32("attention.indexer.key_length", 128)
      .i32s("attention.compress_ratios", {4, 4, 4, 4, 4, 4, 4, 4})
      .u32("full_attention_interval", 4);
  return g;
}

/// --axis-positions: a row per token, `slots` numbers, every one the token's position.
std::string same_in_every_slot(const std::string& dir, const std::string& name, const std::vector<int>& positions,
                               int slots) {
  const std::string path = dir + "/" + name + ".axis-positions.csv";
  std::ofstream f(path);
  for (int p : positions) {
    for (int i = 0; i < slots; ++i) f << (i ? "," : "") << p;
    f << '\n';
  }
  return path;
}
}  // namespace

void indexer_cases(const AddCase& add, const std::string& dir) {
  {  // DeepSeek-3.2: NEOX on the first 64 of 128, with the model's YaRN (q_pe's freq_scale, ext_factor, attn_factor)
    Call c;
    c.mode = GGML_ROPE_TYPE_NEOX, c.head_dim = 128, c.n_dims = 64, c.freq_scale = 1.0f / 40, c.ext_factor = 1;
    c.n_ctx_orig = 4096, c.attn_factor = yarn_attn_factor(40, true);
    Gguf a = deepseek32(), b = deepseek32();
    add("deepseek32-indexer", c, a, kIndexer, "pass");
    Call norm = c;  // planted: the model's NORM, as rope read the indexer before
    norm.mode = GGML_ROPE_TYPE_NORMAL;
    add("deepseek32-indexer-model-rope-type", norm, b, kIndexer, "layout-swapped");
  }
  {  // GLM-DSA: NORM on the first 64 of 128 (its MLA heads rotate their last 64)
    Call c;
    c.mode = GGML_ROPE_TYPE_NORMAL, c.head_dim = 128, c.n_dims = 64, c.base = 1e6f;
    Gguf a = glm_dsa(), b = glm_dsa();
    add("glm-dsa-indexer", c, a, kIndexer, "pass");
    Call neox = c;  // planted: NEOX, as docs/check.md once said
    neox.mode = GGML_ROPE_TYPE_NEOX;
    add("glm-dsa-indexer-neox", neox, b, kIndexer, "layout-swapped");
  }
  {  // dots3note: NEOX on the full layers, at rope.freq_base with the model's YaRN
    Call c;
    c.mode = GGML_ROPE_TYPE_NEOX, c.head_dim = 128, c.n_dims = 64, c.base = 5e6f, c.freq_scale = 0.25f,
    c.ext_factor = 1;
    c.n_ctx_orig = 32768, c.attn_factor = yarn_attn_factor(4, false);
    Gguf a = dots3note(), b = dots3note();
    add("dots3note-indexer", c, a, kIndexer, "pass");
    Call norm = c;
    norm.mode = GGML_ROPE_TYPE_NORMAL;
    add("dots3note-indexer-model-rope-type", norm, b, kIndexer, "layout-swapped");
  }
  {  // Qwen4-exp: IMROPE; q at a text token's (p, p, p, 0), k (a block's mean key) at (b, b, b, b), b its first
     // position
    Call q;
    q.mode = GGML_ROPE_TYPE_IMROPE, q.head_dim = 128, q.n_dims = 128, q.base = 1e7f, q.sections = {24, 20, 20, 0};
    Gguf a = qwen4exp(), b = qwen4exp(), d = qwen4exp();
    add("qwen4exp-indexer-q", q, a, kIndexer, "pass");
    Call k = q;
    k.e_slot = true;
    const std::string blocks = "--axis-positions " + same_in_every_slot(dir, "qwen4exp-indexer-k", k.positions, 4);
    add("qwen4exp-indexer-k", k, b, kIndexer + " " + blocks, "pass");
    Call late = k;  // planted: the block's key turned one position late (at its second token's position)
    late.position_shift = 1;
    const std::string blocks2 =
        "--axis-positions " + same_in_every_slot(dir, "qwen4exp-indexer-k-late", k.positions, 4);
    add("qwen4exp-indexer-k-late", late, d, kIndexer + " " + blocks2, "positions-plus-one");
  }
}

}  // namespace rope_conformance
