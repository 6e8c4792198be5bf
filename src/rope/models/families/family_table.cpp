#include "rope/models/families/family_table.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>
#include <stdexcept>

#include "rope/core/error.hpp"

namespace rope {

namespace detail {
extern const char kFamiliesJson[];  // generated from data/families.json (src/CMakeLists.txt)
}  // namespace detail

namespace {

struct FamilyRows {
  std::vector<ModelFamily> rows;
  std::string commit;
};

std::optional<double> number(const nlohmann::json& row, const char* key) {
  if (!row.contains(key)) return std::nullopt;
  return row.at(key).get<double>();
}

std::optional<AttentionScaleRule> attention_scale_rule(const nlohmann::json& row, const std::string& model_type) {
  if (!row.contains("attention_scale")) return std::nullopt;
  const nlohmann::json& a = row.at("attention_scale");
  AttentionScaleRule r;
  r.rule = a.at("rule").get<std::string>();
  r.source = a.at("source").get<std::string>();
  if (r.rule == "inverse_sqrt_key" || r.rule == "key") {
    r.key = a.at("key").get<std::string>();
    r.default_value = a.at("default").get<double>();
  } else if (r.rule == "constant") {
    r.default_value = a.at("value").get<double>();
  } else if (r.rule == "qk_head_dim") {
    r.nope_default = a.at("nope_default").get<long>();
    r.rope_default = a.at("rope_default").get<long>();
  } else {
    throw std::logic_error("data/families.json: " + model_type + ": unknown attention_scale rule " + r.rule);
  }
  r.softcap_key = a.value("softcap_key", std::string());
  if (!r.softcap_key.empty()) r.softcap_default = a.at("softcap_default").get<double>();
  if (r.source.empty() || !(r.default_value > 0 || r.rule == "qk_head_dim")) {
    throw std::logic_error("data/families.json: " + model_type +
                           ": attention_scale needs a source and a positive value");
  }
  return r;
}

FusedQkvLayout fused_layout(const std::string& name, const std::string& model_type) {
  if (name == "stacked") return FusedQkvLayout::Stacked;
  if (name == "per_head") return FusedQkvLayout::PerHead;
  if (name == "kv_groups") return FusedQkvLayout::KvGroups;
  throw std::logic_error("data/families.json: " + model_type + ": unknown fused_qkv layout " + name);
}

std::optional<FusedQkv> fused_qkv_column(const nlohmann::json& row, const std::string& model_type) {
  if (!row.contains("fused_qkv")) return std::nullopt;
  const nlohmann::json& c = row.at("fused_qkv");
  FusedQkv f;
  f.tensor = c.at("tensor").get<std::string>();
  f.source = c.at("source").get<std::string>();
  f.gguf_source = c.at("gguf_source").get<std::string>();
  for (const nlohmann::json& r : c.at("rules")) {
    FusedQkvRule rule;
    rule.when = r.value("when", std::string());
    rule.layout = fused_layout(r.at("layout").get<std::string>(), model_type);
    if (r.contains("kv_heads")) rule.kv_heads = r.at("kv_heads").get<long>();
    rule.kv_heads_keys = r.value("kv_heads_keys", std::vector<std::string>{});
    if (r.contains("kv_heads_default")) rule.kv_heads_default = r.at("kv_heads_default").get<long>();
    f.rules.push_back(std::move(rule));
  }
  if (c.contains("defaults")) {
    for (const auto& [key, value] : c.at("defaults").items()) f.defaults.emplace_back(key, value.get<bool>());
  }
  // The last rule applies always, and every rule's key has its class default: no config falls through.
  if (f.tensor.empty() || f.source.empty() || f.rules.empty() || !f.rules.back().when.empty()) {
    throw std::logic_error("data/families.json: " + model_type +
                           ": fused_qkv needs a tensor, a source and a last rule "
                           "without a condition");
  }
  for (const FusedQkvRule& rule : f.rules) {
    const bool has_default =
        std::any_of(f.defaults.begin(), f.defaults.end(), [&](const auto& d) { return d.first == rule.when; });
    if (!rule.when.empty() && !has_default) {
      throw std::logic_error("data/families.json: " + model_type + ": fused_qkv rule on " + rule.when +
                             " without its class default");
    }
  }
  return f;
}

FamilyRows parse_table() {
  const nlohmann::json doc = nlohmann::json::parse(detail::kFamiliesJson);
  FamilyRows t;
  t.commit = doc.at("transformers_commit").get<std::string>();
  std::set<std::string> seen;
  for (const nlohmann::json& row : doc.at("families")) {
    ModelFamily f;
    f.model_type = row.at("model_type").get<std::string>();
    if (f.model_type.empty()) throw std::logic_error("data/families.json: a row with an empty model_type");
    if (!seen.insert(f.model_type).second) throw std::logic_error("data/families.json: " + f.model_type + " twice");
    if (row.contains("layout")) f.layout = parse_layout(row.at("layout").get<std::string>());
    f.default_theta = number(row, "default_theta");
    f.default_theta_v4 = number(row, "default_theta_v4");
    f.default_partial_rotary_factor = number(row, "default_partial_rotary_factor");
    if (row.contains("rope_interleave_default"))
      f.rope_interleave_default = row.at("rope_interleave_default").get<bool>();
    f.deinterleaved_output = row.value("deinterleaved_output", false);
    if (row.contains("layer_types")) {
      const nlohmann::json& l = row.at("layer_types");
      f.layer_pattern = LayerPattern{l.at("pattern_key").get<std::string>(), l.at("pattern_default").get<long>(),
                                     l.at("every").get<std::string>(), l.at("other").get<std::string>(),
                                     l.at("layers_default").get<long>()};
    }
    f.nope_layer_types = row.value("nope_layer_types", std::vector<std::string>{});
    f.unscaled_layer_types = row.value("unscaled_layer_types", std::vector<std::string>{});
    f.nope_unless_null = row.value("nope_unless_null", std::string());
    if (row.contains("no_rope_layers")) {
      const nlohmann::json& n = row.at("no_rope_layers");
      f.no_rope_layers = NoRopeLayers{n.at("interval_key").get<std::string>(), n.at("interval_default").get<long>(),
                                      n.at("layers_default").get<long>()};
    }
    f.layers_source = row.value("layers_source", std::string());
    if (row.contains("layer_type_aliases")) {
      for (const auto& [from, to] : row.at("layer_type_aliases").items())
        f.layer_type_aliases.emplace_back(from, to.get<std::string>());
      if (f.layers_source.empty())
        throw std::logic_error("data/families.json: " + f.model_type + ": layer_type_aliases without layers_source");
    }
    if (row.contains("unread_code")) {
      f.unread_code = row.at("unread_code").at("code").get<std::string>();
      f.unread_code_follows = row.at("unread_code").at("follows").get<std::string>();
    }
    if (row.contains("default_rope_parameters")) f.default_rope_parameters = row.at("default_rope_parameters").dump();
    if (row.contains("default_head_dim")) f.default_head_dim = row.at("default_head_dim").get<long>();
    if (row.contains("default_qk_rope_head_dim"))
      f.default_qk_rope_head_dim = row.at("default_qk_rope_head_dim").get<long>();
    if (row.contains("default_qk_nope_head_dim"))
      f.default_qk_nope_head_dim = row.at("default_qk_nope_head_dim").get<long>();
    if (row.contains("rope_type_aliases")) {
      for (const auto& [from, to] : row.at("rope_type_aliases").items())
        f.rope_type_aliases.emplace_back(from, to.get<std::string>());
    }
    f.rope_parameters_only = row.value("rope_parameters_only", false);
    f.accepted_rope_types = row.value("accepted_rope_types", std::vector<std::string>{});
    f.accepted_rope_types_source = row.value("accepted_rope_types_source", std::string());
    if (row.contains("accepted_rope_types") &&
        (f.accepted_rope_types.empty() || f.accepted_rope_types_source.empty())) {
      throw std::logic_error("data/families.json: " + f.model_type + ": accepted_rope_types needs types and a source");
    }
    if (row.contains("original_max_position_embeddings_attribute")) {
      f.original_max_position_embeddings_attribute = row.at("original_max_position_embeddings_attribute").get<long>();
    }
    f.partial_rotary_of = row.value("partial_rotary_of", std::string());
    if (!f.partial_rotary_of.empty() && f.partial_rotary_of != "qk_head_dim") {
      throw std::logic_error("data/families.json: " + f.model_type + ": unknown partial_rotary_of " +
                             f.partial_rotary_of);
    }
    if (row.contains("layer_head_dim")) {
      const nlohmann::json& h = row.at("layer_head_dim");
      f.layer_head_dim = LayerHeadDim{h.at("layer_type").get<std::string>(), h.at("key").get<std::string>(),
                                      h.at("default").get<long>()};
    }
    f.last_layer_full = row.value("last_layer_full", false);
    f.mrope_order = row.value("mrope_order", std::string());
    f.mrope_section_default = row.value("mrope_section_default", std::vector<int>{});
    if (!f.mrope_order.empty() && f.mrope_order != "ernie_3d" && f.mrope_order != "interleaved" &&
        f.mrope_order != "bailing" && f.mrope_order != "xdrope") {
      throw std::logic_error("data/families.json: " + f.model_type + ": unknown mrope_order " + f.mrope_order);
    }
    f.mrope_source = row.value("mrope_source", std::string());
    f.query_scaling = row.value("query_scaling", std::string());
    f.query_scaling_source = row.value("query_scaling_source", std::string());
    if (!f.query_scaling.empty() && f.query_scaling != "llama_4_scaling_beta") {
      throw std::logic_error("data/families.json: " + f.model_type + ": unknown query_scaling " + f.query_scaling);
    }
    f.softmax_scale = row.value("softmax_scale", std::string());
    f.softmax_scale_source = row.value("softmax_scale_source", std::string());
    if (!f.softmax_scale.empty() && f.softmax_scale != "yarn_mscale_all_dim") {
      throw std::logic_error("data/families.json: " + f.model_type + ": unknown softmax_scale " + f.softmax_scale);
    }
    if (!f.softmax_scale.empty() && f.softmax_scale_source.empty()) {
      throw std::logic_error("data/families.json: " + f.model_type + ": softmax_scale without softmax_scale_source");
    }
    f.attention_scale = attention_scale_rule(row, f.model_type);
    f.fused_qkv = fused_qkv_column(row, f.model_type);
    f.config_class = row.at("config_class").get<std::string>();
    f.source = row.at("source").get<std::string>();
    t.rows.push_back(std::move(f));
  }
  return t;
}

const FamilyRows& table() {
  static const FamilyRows t = [] {
    try {
      return parse_table();
    } catch (const nlohmann::json::exception& e) {
      throw std::logic_error(std::string("data/families.json does not parse: ") + e.what());
    }
  }();
  return t;
}

}  // namespace

const std::vector<ModelFamily>& model_families() { return table().rows; }

const char* fused_qkv_layout_name(FusedQkvLayout layout) {
  switch (layout) {
    case FusedQkvLayout::Stacked:
      return "stacked";
    case FusedQkvLayout::PerHead:
      return "per_head";
    case FusedQkvLayout::KvGroups:
      return "kv_groups";
  }
  return "stacked";
}

const std::string& model_families_commit() { return table().commit; }

void refuse_unaccepted_rope_type(const ModelFamily* family, const std::string& name, const std::string& path,
                                 const std::string& type) {
  if (!family || family->accepted_rope_types.empty()) return;
  const std::vector<std::string>& ok = family->accepted_rope_types;
  if (std::find(ok.begin(), ok.end(), type) != ok.end()) return;
  std::string list;
  for (const std::string& t : ok) list += (list.empty() ? "" : ", ") + t;
  throw InvalidArgument(
      error_msg("{0}: {1}: rope_type '{2}' is refused by HF's code for model_type {3}: its rotary "
                "class accepts only {4} and raises a ValueError for any other ({5})",
                name, path, type, family->model_type, list, family->accepted_rope_types_source));
}

const ModelFamily* find_model_family(std::string_view model_type) {
  if (model_type.empty()) return nullptr;  // no row has one (parse_table): plain RoPE parses no table
  for (const ModelFamily& f : model_families()) {
    if (f.model_type == model_type) return &f;
  }
  return nullptr;
}

}  // namespace rope
