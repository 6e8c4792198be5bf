// DeepSeek-V4 as Hugging Face transformers reads its config.json (model_type deepseek_v4), read at
//   src/transformers/models/deepseek_v4/configuration_deepseek_v4.py @ 015c078164151a049126942989817713e83a8f3e
//     DeepseekV4Config: head_dim 512, rope_theta 10000, compress_rope_theta 160000, num_hidden_layers 43,
//     default_partial_rotary_factor 64 / 512, compress_rates {compressed_sparse_attention: 4,
//     heavily_compressed_attention: 128}; __post_init__: partial_rotary_factor = the config's, else the legacy
//     qk_rope_head_dim / head_dim, else 64 / 512; layer_types = the config's, else the legacy compress_ratios mapped
//     0 → sliding_attention, 4 → compressed_sparse_attention, 128 → heavily_compressed_attention, else 2 ×
//     heavily_compressed_attention then compressed_sparse_attention (odd i) / heavily_compressed_attention (even i);
//     rope_parameters: kept when it holds the dicts "main" and "compress", else built from the flat block (the legacy
//     rope_scaling, which PreTrainedConfig's convert_rope_params_to_dict makes rope_parameters): main = default RoPE
//     at rope_theta; compress = the flat block's keys with rope_theta = compress_rope_theta, and
//     setdefault("attention_factor", 1.0) when its rope_type is yarn;
//   src/transformers/models/deepseek_v4/modular_deepseek_v4.py @ 02356fecf28001ff562e25a05cfc43f31ed5f892
//     apply_rotary_pos_emb: cos, sin repeat_interleave(2) on the LAST rope_dim channels (x[..., -rope_dim:]) with
//     GLM's rotate_half (pairs (2i, 2i+1)), in float32; DeepseekV4Model.forward turns every layer's queries and
//     sliding-window keys with rotary_emb(layer_type="main"); the compressors (DeepseekV4HCACompressor,
//     DeepseekV4CSACompressor) and the CSA layers' DeepseekV4Indexer turn with "compress": a pooled entry at the block
//     position i · compress_rate + first_pool_position (_rope_pool), the indexer's queries at the tokens' positions.
#include <algorithm>
#include <fmt/format.h>

#include "rope/core/error.hpp"
#include "rope/io/csv.hpp"
#include "rope/models/hf/hf_config.hpp"
#include "rope/models/layer_types.hpp"
#include "rope/models/scaling/scaling_table.hpp"

namespace rope::detail {

namespace {

constexpr const char* kConfigSource = "models/deepseek_v4/configuration_deepseek_v4.py @ 015c078164";
constexpr double kMainTheta = 10000.0;       // DeepseekV4Config.rope_theta
constexpr double kCompressTheta = 160000.0;  // DeepseekV4Config.compress_rope_theta
constexpr long kHeadDim = 512;               // DeepseekV4Config.head_dim
constexpr long kRopeDim = 64;                // default_partial_rotary_factor = 64 / 512
constexpr long kLayers = 43;                 // DeepseekV4Config.num_hidden_layers
constexpr long kMaxPositions = 1048576;      // DeepseekV4Config.max_position_embeddings

}  // namespace

bool is_deepseek_v4(const std::string& model_type) { return model_type == "deepseek_v4"; }

DeepseekV4Head deepseek_v4_head(const Reader& r, const json& c, const std::string& prefix) {
  DeepseekV4Head h;
  const auto given_head = r.count(c, prefix, "head_dim");
  h.head_dim = given_head.value_or(kHeadDim);
  h.head_from =
      given_head ? Message::same(child(prefix, "head_dim")) : msg("HF {0} default", std::string("DeepseekV4Config"));
  if (h.head_dim < 2 || h.head_dim > kMaxDim) {
    r.fail(child(prefix, "head_dim"), fmt::format("must be between 2 and {}, got {}", kMaxDim, h.head_dim));
  }
  // __post_init__: the config's partial_rotary_factor, else the legacy qk_rope_head_dim / head_dim, else 64 / 512;
  // qk_rope_head_dim = int(head_dim × partial_rotary_factor).
  std::string width_key = "head_dim";  // the key that gave the rotary width: a refusal names it
  if (const auto p = r.positive(c, prefix, "partial_rotary_factor")) {
    width_key = "partial_rotary_factor";
    if (*p > 1) r.fail(child(prefix, "partial_rotary_factor"), fmt::format("must be at most 1, got {}", num(*p)));
    h.rope_dim = static_cast<long>(static_cast<double>(h.head_dim) * *p);
    h.rope_from = Message::same(fmt::format("int({} {} × {} {})", child(prefix, "head_dim"), h.head_dim,
                                            child(prefix, "partial_rotary_factor"), num(*p)));
  } else if (const auto q = r.count(c, prefix, "qk_rope_head_dim")) {
    if (*q > h.head_dim) {
      r.fail(child(prefix, "qk_rope_head_dim"), fmt::format("must not exceed head_dim {}, got {}", h.head_dim, *q));
    }
    h.rope_dim = *q;
    h.rope_from = Message::same(child(prefix, "qk_rope_head_dim"));
    width_key = "qk_rope_head_dim";
  } else {
    h.rope_dim = static_cast<long>(static_cast<double>(h.head_dim) * (static_cast<double>(kRopeDim) / kHeadDim));
    h.rope_from = msg("int(head_dim {0} × HF {1} default_partial_rotary_factor 64 / 512)", h.head_dim,
                      std::string("DeepseekV4Config"));
  }
  if (h.rope_dim < 2 || h.rope_dim % 2 != 0) {
    r.fail(child(prefix, width_key),
           width_key == "qk_rope_head_dim"
               ? fmt::format("the rotary channels qk_rope_head_dim = {} must be even and at least 2", h.rope_dim)
               : fmt::format("the rotary channels int(head_dim × partial_rotary_factor) = {} must be even and at "
                             "least 2",
                             h.rope_dim));
  }
  return h;
}

DeepseekV4Blocks deepseek_v4_blocks(const Reader& r, const json& c, const std::string& prefix) {
  DeepseekV4Blocks b;
  const json* v4 = r.object(c, prefix, "rope_scaling");
  const json* v5 = r.object(c, prefix, "rope_parameters");
  if (v4 && v4->empty()) v4 = nullptr;  // `rope_scaling or rope_parameters`: {} is falsy
  const json* flat = v4 ? v4 : v5;
  const std::string flat_path = child(prefix, v4 ? "rope_scaling" : "rope_parameters");
  const auto top_theta = r.number(c, prefix, "rope_theta");
  const double theta = top_theta.value_or(kMainTheta);
  const auto given_compress = r.number(c, prefix, "compress_rope_theta");
  const double compress_theta = given_compress.value_or(kCompressTheta);
  const std::string theta_from = top_theta ? child(prefix, "rope_theta") : "HF DeepseekV4Config default rope_theta";
  const json* main = flat ? Reader::find(*flat, "main") : nullptr;
  const json* compress = flat ? Reader::find(*flat, "compress") : nullptr;
  if (main && compress && main->is_object() && compress->is_object()) {
    // Already nested (a config HF v5 wrote): kept as it is; convert_rope_params_to_dict gives a block without
    // rope_theta the top-level rope_theta (RotaryEmbeddingConfigMixin, nested by _rope_type_labels).
    b.nested = true;
    b.main = *main;
    b.compress = *compress;
    b.main_path = child(flat_path, "main");
    b.compress_path = child(flat_path, "compress");
    for (json* block : {&b.main, &b.compress}) {
      if (!block->contains("rope_theta")) (*block)["rope_theta"] = theta;
    }
    b.main_theta_from = main->contains("rope_theta") ? child(b.main_path, "rope_theta") : theta_from;
    b.compress_theta_from = compress->contains("rope_theta") ? child(b.compress_path, "rope_theta") : theta_from;
  } else {
    b.main = json{{"rope_type", "default"}, {"rope_theta", theta}};
    b.main_path = "DeepseekV4Config rope_parameters.main";
    b.main_theta_from = theta_from;
    b.compress = json::object();
    if (flat) {
      for (auto it = flat->begin(); it != flat->end(); ++it) {
        if (it.key() != "main" && it.key() != "compress") b.compress[it.key()] = *it;
      }
    }
    b.compress_path = flat ? flat_path : std::string("DeepseekV4Config rope_parameters.compress");
    b.compress["rope_theta"] = compress_theta;
    b.compress_theta_from =
        given_compress ? child(prefix, "compress_rope_theta") : "HF DeepseekV4Config default compress_rope_theta";
    // standardize_rope_params: rope_type from the legacy type, else default.
    if (!b.compress.contains("rope_type")) {
      const json* t = Reader::find(b.compress, "type");
      b.compress["rope_type"] = t && t->is_string() ? t->get<std::string>() : std::string("default");
    }
    const json& type = b.compress["rope_type"];
    const bool yarn = type.is_string() && type.get<std::string>() == "yarn";
    if (yarn && !Reader::find(b.compress, "attention_factor")) {
      b.compress["attention_factor"] = 1.0;
      b.attention_factor_set = true;
    }
    // standardize_rope_params (a flat block of llama3, yarn or longrope): original_max_position_embeddings defaults to
    // max_position_embeddings (DeepseekV4Config 1048576).
    if (yarn && !Reader::find(b.compress, "original_max_position_embeddings")) {
      b.compress["original_max_position_embeddings"] =
          r.count(c, prefix, "max_position_embeddings").value_or(kMaxPositions);
    }
  }
  // The rotary width is the model's (deepseek_v4_head): a block's partial_rotary_factor is not read again.
  b.main.erase("partial_rotary_factor");
  b.compress.erase("partial_rotary_factor");
  return b;
}

void deepseek_v4_layers(const json& doc, const std::string& name, ModelConfig& m) {
  const Reader r(name);
  const bool text = doc.contains("text_config") && doc["text_config"].is_object();
  const json& c = text ? doc["text_config"] : doc;
  const std::string prefix = text ? "text_config" : "";
  const long n = r.count(c, prefix, "num_hidden_layers").value_or(kLayers);
  if (n > 4096) r.fail(child(prefix, "num_hidden_layers"), fmt::format("must be at most {}, got {}", 4096, n));
  // layer_types: the config's, else the legacy compress_ratios, else the class's pattern; cut to num_hidden_layers.
  std::vector<std::string> names;
  Message names_from;
  static const char* const kTypes[] = {"sliding_attention", "compressed_sparse_attention",
                                       "heavily_compressed_attention"};
  if (const json* lt = Reader::find(c, "layer_types")) {
    if (!lt->is_array() || lt->size() > 4096) {
      r.fail(child(prefix, "layer_types"), "expected a list of at most 4096 layer types");
    }
    for (const json& v : *lt) {
      const std::string t = v.is_string() ? v.get<std::string>() : "";
      if (std::find(std::begin(kTypes), std::end(kTypes), t) == std::end(kTypes)) {
        r.fail(child(prefix, "layer_types"),
               fmt::format("expected sliding_attention, compressed_sparse_attention or heavily_compressed_attention "
                           "(DeepseekV4Config.validate_layer_type), got {}",
                           v.dump().substr(0, 64)));
      }
      names.push_back(t);
    }
    names_from = Message::same(child(prefix, "layer_types"));
  } else if (const json* cr = Reader::find(c, "compress_ratios")) {
    if (!cr->is_array() || cr->size() > 4096) {
      r.fail(child(prefix, "compress_ratios"), "expected a list of at most 4096 compress ratios (0, 4 or 128)");
    }
    for (std::size_t i = 0; i < cr->size(); ++i) {
      const json& v = (*cr)[i];
      const long x = v.is_number_integer() ? v.get<long>() : -1;
      if (x != 0 && x != 4 && x != 128) {
        r.fail(
            fmt::format("{}[{}]", child(prefix, "compress_ratios"), i),
            fmt::format("expected 0, 4 or 128 (HF's _COMPRESS_RATIO_TO_LAYER_TYPE), got {}", v.dump().substr(0, 64)));
      }
      names.push_back(kTypes[x == 0 ? 0 : x == 4 ? 1 : 2]);
    }
    names_from = msg("{0}: 0 sliding_attention, 4 compressed_sparse_attention, 128 heavily_compressed_attention",
                     child(prefix, "compress_ratios"));
  } else {
    for (long i = 0; i < n; ++i) names.push_back(i < 2 || i % 2 == 0 ? kTypes[2] : kTypes[1]);
    names_from =
        msg("HF {0} default: 2 × heavily_compressed_attention, then compressed_sparse_attention (odd) and "
            "heavily_compressed_attention (even)",
            std::string("DeepseekV4Config"));
  }
  // compress_ratios holds one entry per layer and then one per MTP layer (the official inference's MTPBlock, layer_id
  // n_layers + k, reads compress_ratios[layer_id]); HF cuts the list to num_hidden_layers and runs no MTP layer. The
  // entries past n stay as the MTP layers n, n + 1, …, outside main.
  const bool mtp = Reader::find(c, "layer_types") == nullptr && Reader::find(c, "compress_ratios") != nullptr;
  if (!mtp && static_cast<long>(names.size()) > n) names.resize(static_cast<std::size_t>(n));
  // compress_rates: the config's dict, the legacy compress_rate_csa / compress_rate_hca over it, else 4 and 128.
  long rate[3] = {0, 4, 128};
  if (const json* cr = r.object(c, prefix, "compress_rates")) {
    for (int k = 1; k < 3; ++k) {
      if (const auto v = r.count(*cr, child(prefix, "compress_rates"), kTypes[k])) rate[k] = *v;
    }
  }
  if (const auto v = r.count(c, prefix, "compress_rate_csa")) rate[1] = *v;
  if (const auto v = r.count(c, prefix, "compress_rate_hca")) rate[2] = *v;

  const DeepseekV4Blocks b = deepseek_v4_blocks(r, c, prefix);
  const RopeConfig main =
      ConfigParser(doc, name, LayerEntry{"main", &b.main, b.main_path, b.main_theta_from}).parse().rope;
  const RopeConfig compress =
      ConfigParser(doc, name, LayerEntry{"compress", &b.compress, b.compress_path, b.compress_theta_from}).parse().rope;
  std::vector<int> all, compressed, draft;
  for (std::size_t i = 0; i < names.size(); ++i) {
    (static_cast<long>(i) < n ? all : draft).push_back(static_cast<int>(i));
    if (names[i] != kTypes[0]) compressed.push_back(static_cast<int>(i));
  }
  const auto layers_of = [&](const char* t) {
    std::vector<int> out;
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (names[i] == t) out.push_back(static_cast<int>(i));
    }
    return out;
  };
  // main first: every layer's queries and keys turn with it, so a layer index names it; then HF's layer types (the
  // compressed ones' entries turn with compress), then compress.
  m.layer_types.emplace_back("main", all, true, main,
                             msg("rope_parameters.main: every layer's queries and sliding-window keys"));
  m.layer_types.back().hf_index_only = true;  // the official inference turns a compressed layer's with compress
  if (const auto s = layers_of(kTypes[0]); !s.empty()) {
    m.layer_types.emplace_back(kTypes[0], s, true, main, msg("rope_parameters.main: queries and sliding-window keys"));
  }
  for (int k = 1; k < 3; ++k) {
    if (const auto s = layers_of(kTypes[k]); !s.empty()) {
      m.layer_types.emplace_back(
          kTypes[k], s, true, compress,
          msg("rope_parameters.compress: the compressed entries, block i at position i × {0} + first_pool_position{1}; "
              "these layers' queries and sliding-window keys turn with main",
              rate[k], k == 1 ? msg(", and the indexer's queries") : Message::same("")));
    }
  }
  if (!compressed.empty()) {
    m.layer_types.emplace_back(
        "compress", compressed, true, compress,
        msg("rope_parameters.compress: the compressed entries of layers {0}", describe_layers(compressed)));
  }
  m.layer_type = "main";
  m.origin.push_back(origin_line(
      Message::same("layer_types"),
      fmt::format("{} sliding, {} compressed", names.size() - compressed.size(), compressed.size()), names_from));
  if (!draft.empty()) {
    m.notes.push_back(
        msg("layers {0}: the MTP (draft) layers, compress_ratios' entries past num_hidden_layers {1}, "
            "which the official inference runs and HF's port does not: their queries turn as the "
            "official inference turns them",
            describe_layers(draft), n));
  }
  m.notes.push_back(
      msg("DeepSeek-V4 by engine: HF's port turns every layer's queries with main; the official inference "
          "(inference/model.py), vLLM, SGLang and llama.cpp turn a compressed layer's queries, window keys, "
          "compressor and indexer with compress; {0} chooses the reading of a layer index (hf unless given)",
          option_name("engine")));
  m.notes.push_back(msg(
      "DeepSeek-V4 (HF): every layer turns its queries and sliding-window keys with rope_parameters.main (base {0}, "
      "{1}); the compressed layers' pooled entries turn with rope_parameters.compress (base {2}, {3} f = {4}, "
      "attention factor {5}) at the block positions i × compress_rate + first_pool_position: {6} "
      "compress, and docs/check.md for the positions",
      num(main.base), std::string(to_string(main.type)), num(compress.base), std::string(to_string(compress.type)),
      num(compress.factor.value_or(1.0)), num(compress.attention_factor.value_or(1.0)), option_name("layer_type")));
  if (b.attention_factor_set) {
    m.notes.push_back(
        msg("rope_parameters.compress: attention_factor 1.0 set by HF's DeepseekV4Config (the reference does not "
            "multiply cos and sin by YaRN's 0.1·ln f + 1)"));
  }
}

}  // namespace rope::detail
