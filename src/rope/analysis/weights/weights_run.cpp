// rope weights as one call (weights_run.hpp).
#include "rope/analysis/weights/weights_run.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "rope/core/error.hpp"
#include "rope/core/message.hpp"
#include "rope/io/tensor_file.hpp"
#include "rope/core/utf8.hpp"
#include "rope/io/weights_file.hpp"
#include "rope/models/gguf/gguf_config.hpp"
#include "rope/models/hf/hf_fused_qkv.hpp"
#include "rope/models/resolve.hpp"

namespace rope {

namespace {

/// A q/k tensor's role: the query, the key, DeepSeek's MLA q_b and kv_a_with_mqa (their own pairs of names).
enum class QkRole { Q, K, QB, KvaMqa };

/// Names of the attention's q and k per layer {bid}, as gguf-py's tensor_mapping.py (llama.cpp de3ff815ea7d)
/// lists them for MODEL_TENSOR.ATTN_Q, ATTN_K, ATTN_Q_B and ATTN_KV_A_MQA (the Hugging Face, Meta and
/// internlm2 spellings), and the GGUF names of gguf-py's constants.py (blk.{bid}.attn_q, …). A name ends in
/// ".weight" or ".bias".
struct NamePattern {
  const char* prefix;
  const char* suffix;
  QkRole role;
};
constexpr NamePattern kQkNames[] = {
    {"model.layers.", ".self_attn.q_proj", QkRole::Q},
    {"model.layers.", ".self_attn.k_proj", QkRole::K},
    {"model.layers.", ".attention.q_proj", QkRole::Q},
    {"model.layers.", ".attention.k_proj", QkRole::K},
    {"layers.", ".self_attn.q_proj", QkRole::Q},
    {"layers.", ".self_attn.k_proj", QkRole::K},
    {"layers.", ".attention.wq", QkRole::Q},
    {"layers.", ".attention.wk", QkRole::K},
    {"model.layers.", ".attention.wq", QkRole::Q},
    {"model.layers.", ".attention.wk", QkRole::K},
    {"model.layers.", ".self_attn.q_b_proj", QkRole::QB},
    {"model.layers.", ".self_attn.kv_a_proj_with_mqa", QkRole::KvaMqa},
    {"blk.", ".attn_q", QkRole::Q},
    {"blk.", ".attn_k", QkRole::K},
    {"blk.", ".attn_q_b", QkRole::QB},
    {"blk.", ".attn_kv_a_mqa", QkRole::KvaMqa},
};
/// Fused q, k and v whose rows are q's, then k's, then v's: Phi-3's qkv_proj (transformers
/// models/phi3/modeling_phi3.py @ 00d4b3d2142c, Phi3Attention.forward: query rows [0, H·d), key rows [H·d, H·d +
/// H_kv·d), value the rest) and every GGUF attn_qkv (llama.cpp src/llama-graph.cpp @ de3ff815ea7d,
/// llm_graph_context::build_qkv: the views of wqkv at 0, n_embd_head·n_head and after k). Split by the side's head
/// counts, q and k compared as their own tensors.
constexpr NamePattern kQkvSplit[] = {
    {"model.layers.", ".self_attn.qkv_proj", QkRole::Q},
    {"blk.", ".attn_qkv", QkRole::Q},
};
/// Other fused q, k and v (tensor_mapping.py MODEL_TENSOR.ATTN_QKV), whose row order is the family's own (per head
/// in GPT-NeoX, per KV group in Falcon's new decoder, …): split as the family table's fused_qkv column says
/// (models/hf/hf_fused_qkv.hpp), refused naming the tensor where the family has none. The Hugging Face names of
/// GPT-NeoX, Falcon, Bloom (`h.{bid}` as saved by BloomModel) and ChatGLM (`transformer.encoder.layers.{bid}`), and
/// those of tensor_mapping.py.
constexpr NamePattern kQkFused[] = {
    {"model.layers.", ".self_attn.query_key_value", QkRole::Q},
    {"model.layers.", ".attention.query_key_value", QkRole::Q},
    {"gpt_neox.layers.", ".attention.query_key_value", QkRole::Q},
    {"transformer.h.", ".attn.c_attn", QkRole::Q},
    {"transformer.h.", ".self_attention.query_key_value", QkRole::Q},
    {"h.", ".self_attention.query_key_value", QkRole::Q},
    {"transformer.encoder.layers.", ".self_attention.query_key_value", QkRole::Q},
    {"encoder.layers.", ".self_attention.query_key_value", QkRole::Q},
};

struct QkKey {
  long layer;
  QkRole role;
  bool bias;
  bool operator<(const QkKey& o) const { return std::tie(layer, role, bias) < std::tie(o.layer, o.role, o.bias); }
};

/// The layer, role and weight/bias of `name` under one of `patterns`.
std::optional<QkKey> match_name(const std::string& name, const NamePattern* patterns, std::size_t count) {
  bool bias = false;
  std::string_view base = name;
  if (base.size() > 7 && base.substr(base.size() - 7) == ".weight") {
    base.remove_suffix(7);
  } else if (base.size() > 5 && base.substr(base.size() - 5) == ".bias") {
    base.remove_suffix(5);
    bias = true;
  } else {
    return std::nullopt;
  }
  for (std::size_t i = 0; i < count; ++i) {
    const std::string_view prefix = patterns[i].prefix, suffix = patterns[i].suffix;
    if (base.size() <= prefix.size() + suffix.size() || base.substr(0, prefix.size()) != prefix ||
        base.substr(base.size() - suffix.size()) != suffix) {
      continue;
    }
    const std::string_view digits = base.substr(prefix.size(), base.size() - prefix.size() - suffix.size());
    if (digits.empty() || digits.size() > 6 ||
        !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      continue;
    }
    return QkKey{std::stol(std::string(digits)), patterns[i].role, bias};
  }
  return std::nullopt;
}

/// A q or k: a whole tensor (`fused` nullopt), or its rows of a fused q/k/v tensor.
struct QkRows {
  const WeightTensor* tensor = nullptr;
  std::optional<FusedRows> fused;
};

/// The q and k rows of fused tensor `t` of layer `key` split as `split` says (its head counts).
void split_fused(std::map<QkKey, QkRows>& out, const WeightFile& w, const WeightTensor& t, const QkKey& key,
                 const FusedQkvSplit& split) {
  const long rows = t.shape.empty() ? 1 : t.shape.front();
  const long heads = split.n_head + 2 * split.n_head_kv;
  if (heads < 1 || rows % heads != 0 || (rows / heads) % 2 != 0 || key.layer >= kMaxWeightLayers) {
    throw InvalidArgument(error_msg("{0}: tensor '{1}': {2} rows are not q, k and v of {3} + 2 × {4} heads", w.path,
                                    escape_controls(t.name, kQuotedBytes), rows, split.n_head, split.n_head_kv));
  }
  const long d = rows / heads;
  out[{key.layer, QkRole::Q, key.bias}] = {&t, fused_rows(split, d, false)};
  out[{key.layer, QkRole::K, key.bias}] = {&t, fused_rows(split, d, true)};
}

/// The q/k tensors of a checkpoint by key; every other tensor counted in `others`. A fused q/k/v tensor of
/// kQkvSplit gives its q and k rows by the side's head counts (`n_head`, `n_head_kv`), one of kQkFused as the
/// side's family says (`family_split`, nullopt: refused).
std::map<QkKey, QkRows> qk_tensors(const WeightFile& w, const WeightSide& side,
                                   const std::optional<FusedQkvSplit>& family_split, long& others) {
  std::map<QkKey, QkRows> out;
  others = 0;
  for (const WeightTensor& t : w.tensors) {
    if (const auto fused = match_name(t.name, kQkvSplit, std::size(kQkvSplit))) {
      FusedQkvSplit stacked;
      stacked.n_head = side.n_head;
      stacked.n_head_kv = side.n_head_kv;
      split_fused(out, w, t, *fused, stacked);
      continue;
    }
    if (const auto fused = match_name(t.name, kQkFused, std::size(kQkFused))) {
      if (!family_split || t.name.find("." + family_split->tensor + ".") == std::string::npos) {
        throw InvalidArgument(
            error_msg("{0}: tensor '{1}' holds q, k and v fused, and the family table has no order of its rows for "
                      "{2} (fused_qkv): rope splits it only as the family's modeling code does",
                      w.path, escape_controls(t.name, kQuotedBytes), escape_controls(side.model, kQuotedBytes)));
      }
      split_fused(out, w, t, *fused, *family_split);
      continue;
    }
    const auto key = match_name(t.name, kQkNames, std::size(kQkNames));
    if (!key) {
      ++others;
      continue;
    }
    if (key->layer >= kMaxWeightLayers) {
      throw InvalidArgument(error_msg("{0}: tensor '{1}': layer {2} is above the limit of {3} layers", w.path,
                                      escape_controls(t.name, kQuotedBytes), key->layer, kMaxWeightLayers));
    }
    out[*key] = {&t, std::nullopt};
  }
  return out;
}

/// The side's model: its own config, else the request's, else the other side's when both are safetensors.
void read_side(WeightSide& side, const WeightFile& w, const std::string& fallback, const WeightFile& other) {
  side.path = w.path;
  side.gguf = w.format == WeightFormat::Gguf;
  side.config = w.config;
  if (side.config.empty() && !fallback.empty()) {
    side.config = fallback;
    side.config_borrowed = true;
  }
  if (side.config.empty() && other.format == w.format && !other.config.empty()) {
    side.config = other.config;
    side.config_borrowed = true;
  }
  if (side.config.empty()) {
    throw InvalidArgument(error_msg("{0}: no config.json beside it says the model (heads, pairing): give one with {1}",
                                    w.path, option_name("config")));
  }
  RopeOverrides layout_only;
  layout_only.fope = FopeUse::Theta;  // the layout and the heads alone: FoPE's pairs are rotate_half's (fope.hpp (F4))
  const ModelRope rope = resolve_model_rope({"", side.config}, layout_only);
  const AttentionShape shape = read_attention_shape(side.config);
  side.model = shape.gguf ? shape.architecture : rope.spec.model_type;
  side.layout = rope.spec.layout;
  side.layout_reason = rope.spec.layout_reason;
  side.n_head = shape.n_head;
  side.n_head_kv = shape.n_head_kv;
  if (!shape.gguf) {
    // A family that fuses q, k and v says its KV heads by its own keys (Falcon: 1 under multi_query).
    side.fused = hf_fused_qkv_split(side.config, side.model, side.n_head);
    if (side.fused) side.n_head_kv = side.fused->n_head_kv;
  }
}

/// The map an engine pairing `to` needs on rows paired as `from`.
WeightMap pairing_map(Layout from, Layout to) {
  if (from == to) return WeightMap::Identity;
  return from == Layout::Half ? WeightMap::HfToGguf : WeightMap::GgufToHf;
}

/// A fused q/k/v tensor's q or k: its rows gathered in order (row-major, `cols` floats a row); a whole tensor as it is.
std::vector<float> fused_part(std::vector<float> values, const std::optional<FusedRows>& rows, long cols) {
  if (!rows) return values;
  std::vector<float> out(static_cast<std::size_t>(rows->groups * rows->rows * cols));
  for (long g = 0; g < rows->groups; ++g) {
    const auto first = values.begin() + (g * rows->group_rows + rows->offset) * cols;
    std::copy(first, first + rows->rows * cols, out.begin() + g * rows->rows * cols);
  }
  return out;
}

void note_dtype(WeightSide& side, const std::string& dtype) {
  if (std::find(side.dtypes.begin(), side.dtypes.end(), dtype) == side.dtypes.end()) side.dtypes.push_back(dtype);
}

}  // namespace

bool WeightsRun::passed() const {
  return std::all_of(tensors.begin(), tensors.end(), [](const WeightsTensor& t) { return t.ok(); });
}

WeightsRun run_weights(const WeightsRequest& request) {
  const WeightFile ref = open_weights(request.reference);
  const WeightFile cand = open_weights(request.candidate);
  WeightsRun run;
  read_side(run.reference, ref, request.config, cand);
  read_side(run.candidate, cand, request.config, ref);
  const auto uses_config = [&](const WeightSide& s) { return s.config_borrowed && s.config == request.config; };
  if (!request.config.empty() && !uses_config(run.reference) && !uses_config(run.candidate)) {
    throw InvalidArgument(error_msg(
        "{0} '{1}' would not be read: both sides say their model ({2}, {3}); it is for a "
        "side with no config.json beside it",
        option_name("config"), escape_controls(request.config, kQuotedBytes),
        escape_controls(run.reference.config, kQuotedBytes), escape_controls(run.candidate.config, kQuotedBytes)));
  }
  run.expected = pairing_map(run.reference.layout, run.candidate.layout);
  long ref_others = 0;
  const auto ref_qk = qk_tensors(ref, run.reference, run.reference.fused, ref_others);
  const auto cand_qk = qk_tensors(cand, run.candidate, run.candidate.fused, run.other_tensors);
  for (const auto& [key, t] : ref_qk) {
    if (!cand_qk.count(key)) {
      throw InvalidArgument(error_msg("{0}: tensor '{1}' has no counterpart in {2}", ref.path,
                                      escape_controls(t.tensor->name, kQuotedBytes), cand.path));
    }
  }
  for (const auto& [key, t] : cand_qk) {
    if (!ref_qk.count(key)) {
      throw InvalidArgument(error_msg("{0}: tensor '{1}' has no counterpart in {2}", cand.path,
                                      escape_controls(t.tensor->name, kQuotedBytes), ref.path));
    }
  }
  if (cand_qk.empty()) throw InvalidArgument(error_msg("{0}: no q or k tensor of an attention layer", cand.path));
  // Layer by layer: the layer's q and k of both sides read, compared and dropped before the next layer's.
  std::vector<float> r_values, c_values;
  for (const auto& [key, c_rows] : cand_qk) {
    const QkRows& r_rows = ref_qk.at(key);
    const WeightTensor* r = r_rows.tensor;
    const WeightTensor* c = c_rows.tensor;
    const long r_count = r_rows.fused ? r_rows.fused->groups * r_rows.fused->rows : 0;
    const long c_count = c_rows.fused ? c_rows.fused->groups * c_rows.fused->rows : 0;
    if (r->shape != c->shape || r_count != c_count) {
      throw InvalidArgument(error_msg("tensor '{0}' has shape {1} in {2}, tensor '{3}' {4} in {5}: the shapes differ",
                                      escape_controls(r->name, kQuotedBytes), shape_string(r->shape), ref.path,
                                      escape_controls(c->name, kQuotedBytes), shape_string(c->shape), cand.path));
    }
    WeightsTensor out;
    out.name = c->name;
    out.reference_name = r->name;
    out.layer = key.layer;
    out.kind = key.role == QkRole::Q || key.role == QkRole::QB ? 'q' : 'k';
    out.bias = key.bias;
    const long all_rows = c->shape.empty() ? 1 : c->shape.front();
    out.rows = c_rows.fused ? c_count : all_rows;
    out.cols = all_rows == 0 ? 0 : c->elements() / std::max(1L, all_rows);
    out.heads = key.role == QkRole::KvaMqa ? 1 : out.kind == 'q' ? run.candidate.n_head : run.candidate.n_head_kv;
    out.reference_dtype = r->dtype;
    out.candidate_dtype = c->dtype;
    note_dtype(run.reference, r->dtype);
    note_dtype(run.candidate, c->dtype);
    if (out.rows < 2 || out.heads < 1 || out.rows % out.heads != 0 || (out.rows / out.heads) % 2 != 0) {
      throw InvalidArgument(error_msg("tensor '{0}': {1} rows are not {2} heads of an even number of rows",
                                      escape_controls(c->name, kQuotedBytes), out.rows, out.heads));
    }
    r_values = fused_part(read_finite_weight(ref, *r), r_rows.fused, out.cols);
    c_values = fused_part(read_finite_weight(cand, *c), c_rows.fused, out.cols);
    const WeightRows rr{r_values.data(), out.rows, out.cols};
    const WeightRows cc{c_values.data(), out.rows, out.cols};
    const WeightShape shape{out.rows, out.heads, run.candidate.n_head, out.kind == 'k'};
    out.expected = run.expected;
    out.match = match_weights(rr, cc, shape, out.expected);
    if (request.heatmap_layer && *request.heatmap_layer == key.layer && !key.bias &&
        (out.kind == 'k') == request.heatmap_key && !run.heatmap) {
      if (request.heatmap_head < 0 || request.heatmap_head >= out.heads) {
        throw InvalidArgument(error_msg("head {0} of tensor '{1}': it has heads 0 … {2}", request.heatmap_head,
                                        escape_controls(c->name, kQuotedBytes), out.heads - 1));
      }
      run.heatmap = head_correlation(rr, cc, out.heads, request.heatmap_head);
      run.heatmap_tensor = c->name;
      run.heatmap_head = request.heatmap_head;
    }
    run.tensors.push_back(std::move(out));
  }
  if (request.heatmap_layer && !run.heatmap) {
    throw InvalidArgument(
        error_msg("layer {0} has no {1} tensor to draw", *request.heatmap_layer, request.heatmap_key ? "k" : "q"));
  }
  return run;
}

}  // namespace rope
