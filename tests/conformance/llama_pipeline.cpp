// The conformance tier's pipeline harness (docs/check.md "From llama.cpp"): tiny random-weight models run by
// the real libllama of the prebuilt llama.cpp (scripts/install-deps.sh llama), with q and k captured around
// every RoPE node by the eval callback, exactly as docs/check.md tells users to do it.
//
// Per case: the model's metadata is written with ggml's gguf API; libllama builds the model from it
// (llama_model_init_from_user, random weights except the RoPE factor tensors, which carry the case's values),
// saves it (llama_model_save_to_file), loads that file again (llama_model_load_from_file; an architecture the saver
// does not support runs as built, its CASE.gguf written here) and runs one forward
// pass: one token per sequence, each sequence at its own position (positions up to 65535, no long prefill).
// The callback answers "yes" for every node, so the scheduler computes one node at a time; when it asks about a
// GGML_OP_ROPE node, the node's src[0] (q or k before RoPE, computed, not yet overwritten by the RoPE that
// ggml may run in place) and src[1] (the positions) are copied; when the node is done, the node itself (after).
// Views (Phi-3's fused QKV, DeepSeek's q_pe and k_pe) are read through their strides nb[]. Llama 4's NoPE layers'
// query temperature (a ggml_mul node) is captured the same way, with mode -1.
//
// The scales of the attention's scores are read off the graph's nodes as they are asked about (op parameters: the
// soft_max's or flash attention's scale and cap, a ggml_scale on q or on the scores) into OUTDIR/kq_scale.tsv: case,
// layer, kind, the float32 value, the node's name (kq_scale_check.py compares them with rope inspect's softmax scale).
//
// Out: OUTDIR/CASE.gguf (the file libllama loaded), OUTDIR/CASE.NODE.{before,after,pos}.npy (and
// CASE.NODE.axis-positions.csv when a token's fourth position slot is not 0: Qwen4-exp's block keys) and a table
// OUTDIR/pipeline.tsv: case, dump prefix, node name, layer, the node's n_dims, mode, freq_base, freq_scale,
// ext_factor, attn_factor, its positions, the fourth slot of token 0 (-1 for 1-D positions), then what libllama
// reports it loaded (n_ctx_train, rope type, freq_scale_train, the values of the keys rope.freq_base,
// rope.scaling.type, rope.scaling.factor, rope.freq_base_swa as strings), and whether the RoPE ran in place
// (then CASE.NODE.naive-before.npy holds what a callback reading src[0] after the node gets).
//
// Usage: rope_llama_pipeline OUTDIR LIBDIR [VARIANT.so | CASE]: without VARIANT the best CPU variant of LIBDIR;
// with CASE that model only, its rows appended to OUTDIR/pipeline.tsv.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "ggml-backend.h"
#include "ggml.h"
#include "gguf.h"
#include "llama.h"
#include "llama_pipeline.hpp"

namespace {

using namespace rope_conformance;

const std::vector<int> kPositions{0,     1,     2,     3,     7,     100,   1000,  3808,  8700,
                                  16384, 29999, 30000, 30001, 31337, 32767, 40000, 50000, 65535};

/// A tensor's values as float32 in the order of its dimensions (ne0 fastest), read through its strides.
std::vector<float> read_f32(const ggml_tensor* t) {
  std::vector<float> out;
  if (t->type != GGML_TYPE_F32) return out;
  out.resize(static_cast<std::size_t>(ggml_nelements(t)));
  std::vector<float> row(static_cast<std::size_t>(t->ne[0]));
  std::size_t k = 0;
  for (std::int64_t i3 = 0; i3 < t->ne[3]; ++i3)
    for (std::int64_t i2 = 0; i2 < t->ne[2]; ++i2)
      for (std::int64_t i1 = 0; i1 < t->ne[1]; ++i1) {
        const std::size_t off = static_cast<std::size_t>(i1 * t->nb[1] + i2 * t->nb[2] + i3 * t->nb[3]);
        if (t->nb[0] == sizeof(float)) {
          ggml_backend_tensor_get(const_cast<ggml_tensor*>(t), row.data(), off, row.size() * sizeof(float));
        } else {
          for (std::int64_t i0 = 0; i0 < t->ne[0]; ++i0)
            ggml_backend_tensor_get(const_cast<ggml_tensor*>(t), &row[static_cast<std::size_t>(i0)],
                                    off + static_cast<std::size_t>(i0 * t->nb[0]), sizeof(float));
        }
        for (float v : row) out[k++] = v;
      }
  return out;
}

struct Captured {
  std::string name;
  std::vector<float> before, after;
  std::vector<float> naive;  ///< src[0] read after the node ran: the rotated values when ggml ran RoPE in place
  std::vector<std::int32_t> pos;
  std::int64_t d = 0, heads = 0, tokens = 0;
  int n_dims = 0, mode = 0;
  bool shift = false;  ///< a node of the K-shift graph: before and after are the cache, pos each cell's shift
  float freq_base = 0, freq_scale = 0, ext_factor = 0, attn_factor = 0;
};

/// A scale of the attention's scores in the graph: the soft_max's of the scores or flash attention's (kind "softmax",
/// op_params[0]), flash attention's logit cap ("fa_softcap", op_params[2]), a ggml_scale on q ("q": src[0] named
/// Qcur-*) or on the scores ("kq": src[0] named kq*, Gemma 2's and Grok's cap and Grok's attention.output_scale,
/// llama-graph.cpp:2678-2697).
struct ScaleOp {
  std::string layer, kind, node;
  float value = 0;
};

struct Capture {
  std::vector<Captured> nodes;
  std::vector<ScaleOp> scales;
  bool shifting = false;  ///< the decode that applies a context shift (Meta::shift): its K-shift graph's nodes marked
};

/// The digits at the start of `c`, or "-1".
std::string digits(const char* c) {
  std::string il;
  for (; c && *c >= '0' && *c <= '9'; ++c) il += *c;
  return il.empty() ? "-1" : il;
}

/// The layer of a node named NAME-IL (or "NAME-IL (permuted)", a view's name), or "-1".
std::string layer_of(const char* name) {
  const char* dash = std::strrchr(name, '-');
  return digits(dash ? dash + 1 : nullptr);
}

/// The layer of an attention node: its own name's, else its q's (flash attention's result keeps ggml's node_N), else
/// that of the KV cache its k views (cache_k_lIL, llama-kv-cache.cpp).
std::string attention_layer(const ggml_tensor* t) {
  std::string il = layer_of(t->name);
  for (int i = 0; i < 2 && il == "-1" && t->src[i]; ++i) il = layer_of(t->src[i]->name);
  const char* cache = t->src[1] ? std::strstr(t->src[1]->name, "cache_k_l") : nullptr;
  return il == "-1" && cache ? digits(cache + 9) : il;
}

/// The scales of the scores (ScaleOp), read from the op's parameters when the scheduler asks about the node.
void capture_scale(const ggml_tensor* t, std::vector<ScaleOp>& scales) {
  float p[3];
  std::memcpy(p, t->op_params, sizeof p);
  const char* src = t->src[0] ? t->src[0]->name : "";
  // the soft_max of the scores (kq-IL, kq_scaled-IL, ...: llama-graph.cpp:2671-2705), not a router's (ffn_moe_probs)
  if ((t->op == GGML_OP_SOFT_MAX && std::strncmp(src, "kq", 2) == 0) || t->op == GGML_OP_FLASH_ATTN_EXT) {
    scales.push_back({attention_layer(t), "softmax", t->name, p[0]});
    if (t->op == GGML_OP_FLASH_ATTN_EXT && p[2] != 0.0f)
      scales.push_back({attention_layer(t), "fa_softcap", t->name, p[2]});
  } else if (t->op == GGML_OP_SCALE && std::strncmp(src, "Qcur", 4) == 0) {
    scales.push_back({layer_of(src), "q", t->name, p[0]});
  } else if (t->op == GGML_OP_SCALE && std::strncmp(src, "kq", 2) == 0) {
    scales.push_back({layer_of(src), "kq", t->name, p[0]});
  }
}

/// The eval callback of docs/check.md: every node computed alone; a RoPE node's input copied when it is asked
/// about (before it runs), its output when it is done.
bool capture(ggml_tensor* t, bool ask, void* user) {
  auto& cap = *static_cast<Capture*>(user);
  auto& nodes = cap.nodes;
  if (ask) capture_scale(t, cap.scales);
  // Llama 4's NoPE layers: q times the temperature, ggml_mul(Qcur, inp_attn_scale) of shape [1, 1, tokens], named
  // Qcur-N (src/models/llama4.cpp:173-176, src/llama-graph.cpp:157-170), at the positions of the RoPE nodes before it.
  const ggml_tensor* s1 = t->src[1];
  const bool temperature = t->op == GGML_OP_MUL && std::strncmp(t->name, "Qcur-", 5) == 0 && s1 && s1->ne[0] == 1 &&
                           s1->ne[1] == 1 && s1->ne[2] == t->ne[2] && !nodes.empty();
  if (t->op != GGML_OP_ROPE && !temperature) return true;
  if (ask && temperature) {
    Captured c;
    c.name = t->name;
    c.before = read_f32(t->src[0]);
    c.d = t->ne[0], c.heads = t->ne[1], c.tokens = t->ne[2];
    c.pos = nodes.back().pos;
    c.mode = -1;  // not a RoPE: the query temperature
    nodes.push_back(std::move(c));
    return true;
  }
  if (ask) {
    Captured c;
    c.name = t->name;
    c.before = read_f32(t->src[0]);
    c.d = t->ne[0], c.heads = t->ne[1], c.tokens = t->ne[2];
    const ggml_tensor* p = t->src[1];
    c.pos.resize(static_cast<std::size_t>(ggml_nelements(p)));
    ggml_backend_tensor_get(const_cast<ggml_tensor*>(p), c.pos.data(), 0, c.pos.size() * sizeof(std::int32_t));
    const auto* op = reinterpret_cast<const std::int32_t*>(t->op_params);
    c.n_dims = op[1], c.mode = op[2];
    // The K-shift graph's RoPE: on a view of the cache, one shift per cell (k_shift, as many as the cache's cells).
    c.shift = cap.shifting && std::strstr(t->src[0]->name, "cache_k_l") != nullptr;
    std::memcpy(&c.freq_base, op + 5, 4), std::memcpy(&c.freq_scale, op + 6, 4);
    std::memcpy(&c.ext_factor, op + 7, 4), std::memcpy(&c.attn_factor, op + 8, 4);
    nodes.push_back(std::move(c));
    return true;
  }
  if (!nodes.empty() && nodes.back().after.empty()) {
    nodes.back().name = t->name;  // the name the graph gave the result (Qcur-0, q_pe-0, ...)
    nodes.back().after = read_f32(t);
    nodes.back().naive = read_f32(t->src[0]);
  }
  return true;
}

void fill(ggml_tensor* t, void* user) {
  const auto& factors = static_cast<const Meta*>(user)->factors;
  std::vector<float> v(static_cast<std::size_t>(ggml_nelements(t)));
  const auto it = factors.find(t->name);
  if (it != factors.end() && it->second.size() == v.size()) {
    v = it->second;
  } else {
    std::mt19937 gen(static_cast<std::uint32_t>(std::hash<std::string>{}(t->name)));
    std::normal_distribution<float> dist(0.0f, 0.2f);
    for (float& x : v) x = dist(gen);
  }
  if (t->type == GGML_TYPE_F32) {
    ggml_backend_tensor_set(t, v.data(), 0, ggml_nbytes(t));
  } else if (t->type == GGML_TYPE_F16) {
    std::vector<ggml_fp16_t> h(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) h[i] = ggml_fp32_to_fp16(v[i]);
    ggml_backend_tensor_set(t, h.data(), 0, ggml_nbytes(t));
  }
}

std::string meta_str(const llama_model* m, const std::string& key) {
  char buf[256];
  return llama_model_meta_val_str(m, key.c_str(), buf, sizeof buf) < 0 ? "-" : buf;
}

/// A float32 exactly, in decimal (9 significant digits read back to the same float).
std::string fmt_float(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
  return buf;
}

/// The last "too many tensors created; expected E, got N" of libllama's log: N.
int g_tensors_created = 0;

bool run(const std::string& dir, const std::string& name, Meta& meta, std::ofstream& table) {
  llama_model_params mp = llama_model_default_params();
  mp.n_gpu_layers = 0;
  // libllama builds a model from metadata only when the metadata lists as many tensors as the architecture
  // creates (llama_model_loader::done_getting_tensors): the first attempt says how many; placeholders (never
  // created, never saved) make up the count.
  g_tensors_created = 0;
  llama_model* built = llama_model_init_from_user(meta.g, fill, &meta, mp);
  if (!built && g_tensors_created > 0) {
    const int listed = static_cast<int>(gguf_get_n_tensors(meta.g));
    for (int i = listed; i < g_tensors_created; ++i) {
      ggml_tensor t;
      std::memset(&t, 0, sizeof t);
      t.type = GGML_TYPE_F32, t.ne[0] = t.ne[1] = t.ne[2] = t.ne[3] = 1, t.nb[0] = t.nb[1] = t.nb[2] = t.nb[3] = 4;
      ggml_format_name(&t, "placeholder.%d", i);
      gguf_add_tensor(meta.g, &t);
    }
    built = llama_model_init_from_user(meta.g, fill, &meta, mp);
  }
  if (!built) return std::fprintf(stderr, "%s: libllama refused the metadata\n", name.c_str()), false;
  const std::string path = dir + "/" + name + ".gguf";
  llama_model* model = built;
  if (meta.no_save) {
    gguf_context* out = gguf_init_empty();
    gguf_set_kv(out, meta.g);
    ggml_context* data = ggml_init({1 << 20, nullptr, false});
    for (const auto& [tname, v] : meta.factors) {
      ggml_tensor* t = ggml_new_tensor_1d(data, GGML_TYPE_F32, static_cast<std::int64_t>(v.size()));
      ggml_set_name(t, tname.c_str());
      std::memcpy(t->data, v.data(), v.size() * sizeof(float));
      gguf_add_tensor(out, t);
    }
    gguf_write_to_file(out, path.c_str(), false);
    gguf_free(out), ggml_free(data), gguf_free(meta.g);
  } else {
    llama_model_save_to_file(built, path.c_str());
    llama_model_free(built);
    gguf_free(meta.g);
    model = llama_model_load_from_file(path.c_str(), mp);
  }
  if (!model) return std::fprintf(stderr, "%s: libllama cannot load %s\n", name.c_str(), path.c_str()), false;
  Capture cap;
  std::vector<Captured>& nodes = cap.nodes;
  llama_context_params cp = llama_context_default_params();
  const int n = static_cast<int>(kPositions.size());
  const bool one_seq = !meta.one_token_decodes.empty() || !meta.prefill.empty();
  const std::size_t batch = !meta.prefill.empty() ? meta.prefill.size() : one_seq ? 1 : static_cast<std::size_t>(n);
  cp.n_ctx = meta.n_ctx, cp.n_batch = cp.n_ubatch = static_cast<std::uint32_t>(batch);
  cp.n_seq_max = one_seq ? 1 : static_cast<std::uint32_t>(n);
  cp.kv_unified = true, cp.n_threads = cp.n_threads_batch = 1;
  if (meta.shift != 0) cp.type_k = GGML_TYPE_F32;  // the cache read back as it is (F16 by default)
  cp.cb_eval = capture, cp.cb_eval_user_data = &cap;
  llama_context* ctx = llama_init_from_model(model, cp);
  if (!ctx) return std::fprintf(stderr, "%s: no context\n", name.c_str()), llama_model_free(model), false;
  llama_batch b = llama_batch_init(std::max(n, static_cast<int>(meta.prefill.size())), 0, 1);
  int rc = 0;
  if (meta.one_token_decodes.empty() && meta.prefill.empty()) {
    for (int i = 0; i < n; ++i) {
      b.token[i] = (i * 7 + 3) % kVocab, b.pos[i] = kPositions[static_cast<std::size_t>(i)];
      b.n_seq_id[i] = 1, b.seq_id[i][0] = i, b.logits[i] = i == n - 1;
    }
    b.n_tokens = n;
    rc = llama_decode(ctx, b);
  }
  for (std::size_t i = 0; i < meta.one_token_decodes.size() && rc == 0; ++i) {  // one llama_decode per token, in order
    b.token[0] = static_cast<llama_token>((i * 7 + 3) % kVocab), b.pos[0] = meta.one_token_decodes[i];
    b.n_seq_id[0] = 1, b.seq_id[0][0] = 0, b.logits[0] = true, b.n_tokens = 1;  // one sequence, positions increasing
    rc = llama_decode(ctx, b);
    llama_memory_clear(llama_get_memory(ctx), true);  // the next token alone again
  }
  if (!meta.prefill.empty()) {  // one sequence of consecutive positions in one batch
    for (std::size_t i = 0; i < meta.prefill.size(); ++i) {
      b.token[i] = static_cast<llama_token>((i * 7 + 3) % kVocab), b.pos[i] = meta.prefill[i];
      b.n_seq_id[i] = 1, b.seq_id[i][0] = 0, b.logits[i] = i + 1 == meta.prefill.size();
    }
    b.n_tokens = static_cast<std::int32_t>(meta.prefill.size());
    rc = llama_decode(ctx, b);
  }
  if (meta.shift != 0 && rc == 0) {  // the context shift of Meta::shift, applied by the next decode
    llama_memory_t mem = llama_get_memory(ctx);
    const int keep = kShiftKeep, discard = -meta.shift;
    const bool removed = llama_memory_seq_rm(mem, 0, keep, keep + discard);
    llama_memory_seq_add(mem, 0, keep + discard, -1, meta.shift);
    const int next = static_cast<int>(meta.prefill.size()) + meta.shift;
    b.token[0] = 5, b.pos[0] = next, b.n_seq_id[0] = 1, b.seq_id[0][0] = 0, b.logits[0] = true, b.n_tokens = 1;
    cap.shifting = true;
    rc = removed ? llama_decode(ctx, b) : -1;
    cap.shifting = false;
  }
  llama_batch_free(b);
  bool ok = rc == 0 && nodes.empty() == meta.no_rope;
  if (ok && meta.no_rope) std::ofstream(dir + "/norope.tsv", std::ios::app) << name << '\n';
  if (!ok) std::fprintf(stderr, "%s: llama_decode %d, %zu RoPE nodes\n", name.c_str(), rc, nodes.size());
  const std::string a = meta.arch;
  const std::string loaded =
      std::to_string(llama_model_n_ctx_train(model)) + "\t" + std::to_string(llama_model_rope_type(model)) + "\t" +
      std::to_string(llama_model_rope_freq_scale_train(model)) + "\t" + meta_str(model, a + ".rope.freq_base") + "\t" +
      meta_str(model, a + ".rope.scaling.type") + "\t" + meta_str(model, a + ".rope.scaling.factor") + "\t" +
      meta_str(model, a + ".rope.freq_base_swa");
  int k = 0;
  for (const Captured& c : nodes) {
    if (c.after.size() != c.before.size() || c.before.empty()) {
      std::fprintf(stderr, "%s: node %s not captured\n", name.c_str(), c.name.c_str());
      ok = false;
      continue;
    }
    const std::string base = dir + "/" + name + "." + std::to_string(k++) + "." + c.name;
    const std::vector<std::int64_t> shape{c.tokens, c.heads, c.d};
    write_npy(base + ".before.npy", "<f4", c.before.data(), c.before.size() * 4, shape);
    write_npy(base + ".after.npy", "<f4", c.after.data(), c.after.size() * 4, shape);
    // What a callback that reads src[0] only once the node is done gets: when ggml ran this RoPE in place (after a
    // q-norm, the graph allocator gives the result src[0]'s memory), the rotated values (docs/check.md).
    const bool in_place = c.naive == c.after;
    if (in_place) write_npy(base + ".naive-before.npy", "<f4", c.naive.data(), c.naive.size() * 4, shape);
    std::string pos;
    for (std::int64_t t = 0; t < c.tokens; ++t)
      pos += (t ? "," : "") + std::to_string(c.pos[static_cast<std::size_t>(t)]);
    // Four slots per token whose fourth is not a text token's 0 (Qwen4-exp's block keys at (b, b, b, b)): every slot, a
    // row per token, for `rope check --axis-positions`.
    bool e_slot = false;
    const auto tokens = static_cast<std::size_t>(c.tokens);
    for (std::size_t t = 0; c.pos.size() == 4 * tokens && t < tokens; ++t)
      e_slot = e_slot || c.pos[3 * tokens + t] != 0;
    if (e_slot) {
      std::ofstream f(base + ".axis-positions.csv");
      for (std::size_t t = 0; t < tokens; ++t) {
        f << c.pos[t] << ',' << c.pos[tokens + t] << ',' << c.pos[2 * tokens + t] << ',' << c.pos[3 * tokens + t]
          << '\n';
      }
    }
    const auto dash = c.name.rfind('-');
    const std::string layer = dash == std::string::npos ? "-1" : c.name.substr(dash + 1);
    table << name << '\t' << base << '\t' << c.name << '\t' << layer << '\t' << c.n_dims << '\t' << c.mode << '\t'
          << c.freq_base << '\t' << c.freq_scale << '\t' << c.ext_factor << '\t' << c.attn_factor << '\t' << pos << '\t'
          << (c.pos.size() > static_cast<std::size_t>(c.tokens) ? c.pos[static_cast<std::size_t>(3 * c.tokens)] : -1)
          << '\t' << loaded << '\t' << (in_place ? "in-place" : "separate") << '\t' << (c.shift ? "shift" : "forward")
          << '\n';
  }
  std::ofstream scales(dir + "/kq_scale.tsv", std::ios::app);
  for (const ScaleOp& x : cap.scales)
    scales << name << '\t' << x.layer << '\t' << x.kind << '\t' << fmt_float(x.value) << '\t' << x.node << '\n';
  llama_free(ctx);
  llama_model_free(model);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) return std::fprintf(stderr, "usage: %s OUTDIR LIBDIR [VARIANT.so | CASE]\n", argv[0]), 2;
  const std::string dir = argv[1], extra = argc == 4 ? argv[3] : "";
  const bool variant = extra.size() > 3 && extra.compare(extra.size() - 3, 3, ".so") == 0;
  const std::string only = variant ? "" : extra;
  llama_log_set(
      [](ggml_log_level level, const char* text, void*) {
        const char* k = std::strstr(text, "too many tensors created; expected ");
        if (k && std::strstr(k, ", got "))
          g_tensors_created = std::atoi(std::strstr(k, ", got ") + 6);
        else if (level == GGML_LOG_LEVEL_ERROR)
          std::fputs(text, stderr);
      },
      nullptr);
  if (!load_cpu_backend(argv[2], variant ? extra : "")) return 1;
  llama_backend_init();
  std::ofstream table(dir + "/pipeline.tsv", only.empty() ? std::ios::out : std::ios::app);
  if (only.empty()) std::ofstream(dir + "/kq_scale.tsv", std::ios::out);
  int failures = 0;
  for (PipelineCase& c : pipeline_cases()) {
    if (!only.empty() && c.name != only) continue;
    Meta m(c.arch);
    c.build(m);
    if (!run(dir, c.name, m, table))
      ++failures;
    else
      std::printf("%s: ran\n", c.name.c_str());
  }
  llama_backend_free();
  return failures ? 1 : 0;
}
