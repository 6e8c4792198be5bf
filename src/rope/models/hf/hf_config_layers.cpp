#include "rope/models/hf/hf_config.hpp"
#include "rope/models/hf/layer_scans.hpp"

#include <algorithm>
#include <atomic>
#include <fmt/format.h>
#include <unordered_map>

#include "rope/core/error.hpp"
#include "rope/models/families/family_table.hpp"
#include "rope/io/json_reader.hpp"

// Per-layer RoPE as Hugging Face transformers builds it:
//   Gemma 3 (configuration_gemma3.py, modeling_gemma3.py): layer_types, else sliding_window_pattern
//     (default 6): layer i slides unless (i + 1) % pattern == 0; num_hidden_layers default 26; sliding
//     layers use rope_local_base_freq (default 10000) without scaling, full layers rope_theta and
//     rope_scaling.
//   v5 rope_parameters keyed by layer type (modeling_rope_utils.py @ 347328108a, standardize_rope_params): one
//     entry per name of layer_types.
//   Llama 4 (configuration_llama4.py, modeling_llama4.py): no_rope_layers[i] = 1 means layer i uses RoPE;
//     empty: [int((i + 1) % no_rope_layer_interval != 0)], interval default 4, num_hidden_layers default 48;
//     NoPE layers scale the query by (S20) when attn_temperature_tuning (default true). SmolLM3 the same
//     (configuration_smollm3.py:89-104), without the temperature.
//   Families whose attention rotates some layer types only (data/families.json, its layers_source).

namespace rope {

namespace detail {

namespace {

constexpr long kMaxLayers = 4096;

std::atomic<long> g_layer_scans{0};

/// Parses a copy of the config whose RoPE keys were changed by `edit` (on the object holding them).
template <class Edit>
RopeConfig reparse(const json& doc, const std::string& name, bool text, Edit edit) {
  json copy = doc;
  edit(text ? copy["text_config"] : copy);
  return ConfigParser(copy, name).parse().rope;
}

}  // namespace

long layer_scans() { return g_layer_scans.load(); }

void read_layer_types(const json& doc, const std::string& name, ModelConfig& m) {
  if (!doc.is_object()) return;
  const Reader r(name);
  const bool text = doc.contains("text_config") && doc["text_config"].is_object();
  const json& c = text ? doc["text_config"] : doc;
  const std::string prefix = text ? "text_config" : "";
  const std::string& type = m.model_type;
  const auto count = [&](const char* key, long fallback) {
    const auto given = r.count(c, prefix, key);
    if (!given) {
      m.notes.push_back(msg("{0} not given: HF's default {1} for model_type {2} assumed", key, fallback, type));
    }
    const long n = given.value_or(fallback);
    if (n > kMaxLayers) r.fail(child(prefix, key), fmt::format("must be at most {}, got {}", kMaxLayers, n));
    return static_cast<int>(n);
  };
  // Names of layer_types, when given.
  std::vector<std::string> names;
  if (const json* lt = Reader::find(c, "layer_types")) {
    if (!lt->is_array()) r.fail(child(prefix, "layer_types"), "expected a list of strings");
    if (lt->size() > static_cast<std::size_t>(kMaxLayers)) r.fail(child(prefix, "layer_types"), "too many layers");
    for (const json& v : *lt) {
      if (!v.is_string()) r.fail(child(prefix, "layer_types"), "expected a list of strings");
      names.push_back(v.get<std::string>());
    }
  }
  // HF's PreTrainedConfig.validate_layer_type (configuration_utils.py @ 008e574391): num_hidden_layers must be the
  // number of layer_types.
  if (!names.empty() && !is_deepseek_v4(type)) {  // DeepSeek-V4's own reading cuts its list (deepseek_v4_layers)
    if (const auto n = r.count(c, prefix, "num_hidden_layers"); n && *n != static_cast<long>(names.size())) {
      r.fail(child(prefix, "layer_types"),
             fmt::format("has {} entries, num_hidden_layers is {}: HF refuses a config whose num_hidden_layers is not "
                         "the number of layer_types (PreTrainedConfig.validate_layer_type)",
                         names.size(), *n));
    }
  }
  // Legacy names the class renames first (Qwen3NextConfig: remap_legacy_layer_types, "mamba" -> "linear_attention").
  if (const ModelFamily* row = find_model_family(type); row && !row->layer_type_aliases.empty()) {
    for (const auto& [from, to] : row->layer_type_aliases) {
      if (std::find(names.begin(), names.end(), from) == names.end()) continue;
      std::replace(names.begin(), names.end(), from, to);
      m.notes.push_back(msg("layer type '{0}' is read as {1}: HF's {2} renames it ({3})", from, to, row->config_class,
                            row->layers_source));
    }
  }
  // The layers of each name, built in one pass over the list when first asked for (the names are final by then): a
  // scan per name was quadratic in the names (cohere2 keeps each name as a type, 4 096 of them allowed).
  std::unordered_map<std::string, std::vector<int>> by_name;
  bool mapped = false;
  const auto layers_named = [&](const std::string& n) {
    if (!mapped) {
      ++g_layer_scans;
      for (std::size_t i = 0; i < names.size(); ++i) by_name[names[i]].push_back(static_cast<int>(i));
      mapped = true;
    }
    const auto it = by_name.find(n);
    return it == by_name.end() ? std::vector<int>{} : it->second;
  };

  if (is_deepseek_v4(type)) {
    deepseek_v4_layers(doc, name, m);
    return;
  }
  if (type == "gemma3_text" || type == "gemma3") {
    if (names.empty()) {
      const int n = count("num_hidden_layers", 26);
      const int pattern = count("sliding_window_pattern", 6);
      for (int i = 0; i < n; ++i) names.push_back((i + 1) % pattern != 0 ? "sliding_attention" : "full_attention");
    }
    const double local = r.positive(c, prefix, "rope_local_base_freq").value_or(10000.0);
    LayerTypeRope sliding{"sliding_attention", layers_named("sliding_attention"), true, {}, {}};
    // HF v5 (Gemma3TextConfig.convert_rope_params_to_dict): rope_parameters keyed by layer type keep their
    // sliding_attention block, its rope_theta set by default from rope_local_base_freq (else 10000).
    const json* v5 = Reader::find(c, "rope_parameters");
    const json* block = v5 && v5->is_object() ? Reader::find(*v5, "sliding_attention") : nullptr;
    if (block && block->is_object()) {
      json own = *block;
      if (!own.contains("rope_theta")) own["rope_theta"] = local;
      sliding.config = reparse(doc, name, text, [&own](json& o) {
        o.erase("rope_scaling");
        o["rope_parameters"] = json{{"sliding_attention", own}};
      });
      sliding.from = block->contains("rope_theta")
                         ? Message::same(child(child(prefix, "rope_parameters"), "sliding_attention"))
                         : msg("{0}, rope_theta from rope_local_base_freq {1}",
                               child(child(prefix, "rope_parameters"), "sliding_attention"), num(local));
    } else {
      sliding.config = reparse(doc, name, text, [local](json& o) {
        o.erase("rope_scaling");
        o.erase("rope_parameters");
        o["rope_theta"] = local;
      });
      sliding.from = msg("rope_local_base_freq {0}, no scaling", num(local));
    }
    LayerTypeRope full{"full_attention", layers_named("full_attention"), true, m.rope,
                       msg("rope_theta and the scaling block")};
    m.layer_types = {sliding, full};
    m.layer_type = "full_attention";
    return;
  }
  // Llama 4 and SmolLM3: no_rope_layers[i] = 1 means layer i uses RoPE.
  const ModelFamily* family = find_model_family(type);
  const bool llama4 = type == "llama4_text" || type == "llama4";
  if (llama4 || (family && family->no_rope_layers)) {
    const NoRopeLayers rule = llama4 ? NoRopeLayers{"no_rope_layer_interval", 4, 48} : *family->no_rope_layers;
    const int n = count("num_hidden_layers", rule.layers_default);
    std::vector<int> uses;
    if (const json* nr = Reader::find(c, "no_rope_layers"); nr && nr->is_array() && !nr->empty()) {
      for (const json& v : *nr) {
        if (!v.is_number_integer() || (v.get<long>() != 0 && v.get<long>() != 1)) {
          r.fail(child(prefix, "no_rope_layers"), "expected a list of 0 and 1 (1: the layer uses RoPE)");
        }
        uses.push_back(v.get<int>());
      }
    } else {
      const int interval = count(rule.interval_key.c_str(), rule.interval_default);
      if (interval < 1) r.fail(child(prefix, rule.interval_key), "must be at least 1");
      for (int i = 0; i < n; ++i) uses.push_back((i + 1) % interval != 0 ? 1 : 0);
    }
    LayerTypeRope rope_layers{"rope", {}, true, m.rope, msg("rope_theta and the scaling block")};
    LayerTypeRope nope{"nope", {}, false, m.rope, Message::same("no_rope_layers")};
    for (std::size_t i = 0; i < uses.size(); ++i) (uses[i] ? rope_layers : nope).layers.push_back(static_cast<int>(i));
    m.layer_types = {rope_layers, nope};
    m.layer_type = "rope";
    if (llama4 && r.boolean(c, prefix, "attn_temperature_tuning").value_or(true)) {
      m.nope_temperature = NopeTemperature{r.positive(c, prefix, "floor_scale").value_or(8192.0),
                                           r.positive(c, prefix, "attn_scale").value_or(0.1)};
    }
    return;
  }
  // Families whose attention applies RoPE on some layer types only (data/families.json: Cohere2, AFMoE,
  // EXAONE 4 on the sliding layers; Qwen3-Next and Qwen3.5 on the full-attention layers), or the config's scaling
  // on some only (OLMo 3: its sliding layers rotate with rope_theta unscaled).
  if (family && family->layer_pattern && (!family->nope_layer_types.empty() || !family->unscaled_layer_types.empty())) {
    const LayerPattern& pattern = *family->layer_pattern;
    if (names.empty()) {
      const int n = count("num_hidden_layers", pattern.layers_default);
      // A class whose pattern is not a key (Olmo3Config: every 4th layer full) has none to read.
      const int interval = pattern.key.empty() ? static_cast<int>(pattern.interval_default)
                                               : count(pattern.key.c_str(), pattern.interval_default);
      if (interval < 1) r.fail(child(prefix, pattern.key), "must be at least 1");
      for (int i = 0; i < n; ++i) names.push_back((i + 1) % interval != 0 ? pattern.other : pattern.every);
    }
    // EXAONE 4: with sliding_window null every layer rotates.
    const auto unless = family->nope_unless_null.empty() ? c.end() : c.find(family->nope_unless_null);
    const bool all_rope = unless != c.end() && unless->is_null();
    std::vector<std::string> order;
    for (const std::string& n : names) {
      if (std::find(order.begin(), order.end(), n) == order.end()) order.push_back(n);
    }
    const auto listed = [](const std::vector<std::string>& list, const std::string& n) {
      return std::find(list.begin(), list.end(), n) != list.end();
    };
    for (const std::string& n : order) {
      const bool nope = !all_rope && listed(family->nope_layer_types, n);
      const bool unscaled = listed(family->unscaled_layer_types, n);
      LayerTypeRope lt{
          n, layers_named(n), !nope, m.rope,
          nope ? msg("no RoPE in these layers ({0})", family->layers_source) : msg("rope_theta and the scaling block")};
      if (unscaled && m.rope.type != ScalingType::Default) {
        // The default RoPE at the model's rope_theta (and partial rotation): the scaling block left out.
        const double theta = m.rope.base, partial = m.rope.partial_rotary_factor;
        lt.config = reparse(doc, name, text, [theta, partial](json& o) {
          o.erase("rope_scaling");
          o.erase("rope_parameters");
          o["rope_theta"] = theta;
          o["partial_rotary_factor"] = partial;
        });
        lt.from = msg("rope_theta {0} without scaling ({1})", num(theta), family->layers_source);
      }
      m.layer_types.push_back(std::move(lt));
    }
    // The model's main type: the first that rotates with the config's own RoPE, else the first that rotates.
    for (const LayerTypeRope& lt : m.layer_types) {
      if (lt.rope && !listed(family->unscaled_layer_types, lt.name) && m.layer_type.empty()) m.layer_type = lt.name;
    }
    for (const LayerTypeRope& lt : m.layer_types) {
      if (lt.rope && m.layer_type.empty()) m.layer_type = lt.name;
    }
    if (!family->unscaled_layer_types.empty() && m.rope.type != ScalingType::Default) {
      m.notes.push_back(msg("{0}: the scaling only in its {1} layers, the others rotate with rope_theta unscaled ({2})",
                            type, m.layer_type, family->layers_source));
    }
    if (m.layer_type.empty()) r.fail(child(prefix, "layer_types"), "no layer uses RoPE");
    if (!all_rope && !family->nope_layer_types.empty()) {
      m.notes.push_back(msg("{0}: RoPE only in its {1} layers ({2})", type, m.layer_type, family->layers_source));
    }
    return;
  }
  // v5: rope_parameters keyed by layer type; the class's own when the config has none (Gemma 4).
  const json* v5 = Reader::find(c, "rope_parameters");
  json class_parameters;
  // Gemma 4's class never reads rope_scaling (the family table's rope_parameters_only).
  const bool v4 = Reader::find(c, "rope_scaling") && !(family && family->rope_parameters_only);
  if ((!v5 || (v5->is_object() && v5->empty())) && !v4 && family && !family->default_rope_parameters.empty()) {
    class_parameters = json::parse(family->default_rope_parameters);
    v5 = &class_parameters;
  }
  if (v5 && v5->is_object() && !v5->empty() && !v4) {
    // The class's layer_types when the config has none (Gemma4TextConfig: every 6th layer full, the last forced full).
    if (names.empty() && family && family->layer_pattern) {
      const LayerPattern& pattern = *family->layer_pattern;
      const int n = count("num_hidden_layers", pattern.layers_default);
      const int interval = pattern.key.empty() ? static_cast<int>(pattern.interval_default)
                                               : count(pattern.key.c_str(), pattern.interval_default);
      for (int i = 0; i < n; ++i) names.push_back((i + 1) % interval != 0 ? pattern.other : pattern.every);
    }
    if (family && family->last_layer_full && !names.empty() && names.back() != "full_attention") {
      names.back() = "full_attention";
      m.notes.push_back(msg("the last layer is full_attention whatever layer_types says: HF's {0} forces it ({1})",
                            family->config_class, family->layers_source));
    }
    check_rope_block_size(r, *v5, child(prefix, "rope_parameters"));
    bool keyed = true;
    for (auto it = v5->begin(); it != v5->end(); ++it) keyed = keyed && it->is_object();
    if (!keyed) return;
    for (auto it = v5->begin(); it != v5->end(); ++it) {
      const std::string key = it.key();
      LayerTypeRope lt{key,
                       layers_named(key),
                       true,
                       {},
                       v5 == &class_parameters ? msg("HF {0} default rope_parameters.{1}", family->config_class, key)
                                               : Message::same(child(child(prefix, "rope_parameters"), key))};
      // The same document read with this entry as its RoPE block (a copy per entry was quadratic in the entries).
      lt.config = ConfigParser(doc, name, LayerEntry{key, &*it, "", ""}).parse().rope;
      m.layer_types.push_back(std::move(lt));
    }
    m.layer_type = v5->contains("full_attention") ? "full_attention" : m.layer_types.front().name;
  }
}

}  // namespace detail
}  // namespace rope
