// A family's fused q/k/v split from config.json (hf_fused_qkv.hpp).
#include "rope/models/hf/hf_fused_qkv.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "rope/core/error.hpp"
#include "rope/core/message.hpp"
#include "rope/io/text_file.hpp"
#include "rope/models/model_config.hpp"

namespace rope {

namespace {

/// The config's boolean `key` (true, false, or 0 and 1 as some configs write them), else the class default.
bool fused_rule_flag(const nlohmann::json& c, const std::string& path, const FusedQkv& f, const std::string& key) {
  if (c.contains(key) && !c[key].is_null()) {
    const nlohmann::json& v = c[key];
    if (v.is_boolean()) return v.get<bool>();
    if (v.is_number_integer() && (v.get<long>() == 0 || v.get<long>() == 1)) return v.get<long>() == 1;
    throw InvalidArgument(error_msg("{0}: {1}: expected true or false", path, key));
  }
  const auto it = std::find_if(f.defaults.begin(), f.defaults.end(), [&](const auto& d) { return d.first == key; });
  return it != f.defaults.end() && it->second;
}

/// The KV heads of `rule`: its constant, else its first key the config has, else its default, else n_head.
long fused_rule_kv_heads(const nlohmann::json& c, const std::string& path, const FusedQkvRule& rule, long n_head) {
  if (rule.kv_heads) return *rule.kv_heads;
  for (const std::string& key : rule.kv_heads_keys) {
    if (!c.contains(key) || c[key].is_null()) continue;
    const nlohmann::json& v = c[key];
    if (!v.is_number_integer() || v.get<long>() < 1 || n_head % v.get<long>() != 0) {
      throw InvalidArgument(
          error_msg("{0}: {1}: expected a whole number >= 1 that divides the {2} query heads", path, key, n_head));
    }
    return v.get<long>();
  }
  return rule.kv_heads_default ? *rule.kv_heads_default : n_head;
}

}  // namespace

FusedRows fused_rows(const FusedQkvSplit& split, long head_rows, bool key) {
  const long h = split.n_head, g = split.n_head_kv;
  FusedRows r;
  switch (split.layout) {
    case FusedQkvLayout::Stacked:  // [all q; all k; all v]
      r.groups = 1;
      r.group_rows = (h + 2 * g) * head_rows;
      r.offset = key ? h * head_rows : 0;
      r.rows = (key ? g : h) * head_rows;
      break;
    case FusedQkvLayout::PerHead:  // [q_h; k_h; v_h] per head
      r.groups = h;
      r.group_rows = 3 * head_rows;
      r.offset = key ? head_rows : 0;
      r.rows = head_rows;
      break;
    case FusedQkvLayout::KvGroups:  // [q of the group's H/H_kv heads; its k; its v] per KV group
      r.groups = g;
      r.group_rows = (h / g + 2) * head_rows;
      r.offset = key ? h / g * head_rows : 0;
      r.rows = (key ? 1 : h / g) * head_rows;
      break;
  }
  return r;
}

std::optional<FusedQkvSplit> hf_fused_qkv_split(const std::string& config_path, const std::string& model_type,
                                                long n_head) {
  const ModelFamily* family = find_model_family(model_type);
  if (!family || !family->fused_qkv) return std::nullopt;
  const FusedQkv& f = *family->fused_qkv;
  const nlohmann::json doc =
      nlohmann::json::parse(read_file_bounded(config_path, kMaxConfigBytes).text, nullptr, false);
  static const nlohmann::json kEmpty = nlohmann::json::object();
  const nlohmann::json& c = !doc.is_object()                                                ? kEmpty
                            : doc.contains("text_config") && doc["text_config"].is_object() ? doc["text_config"]
                                                                                            : doc;
  for (const FusedQkvRule& rule : f.rules) {
    if (!rule.when.empty() && !fused_rule_flag(c, config_path, f, rule.when)) continue;
    FusedQkvSplit s;
    s.tensor = f.tensor;
    s.layout = rule.layout;
    s.n_head = n_head;
    s.n_head_kv = rule.layout == FusedQkvLayout::PerHead ? n_head : fused_rule_kv_heads(c, config_path, rule, n_head);
    s.rule = rule.when;
    s.source = f.source;
    return s;
  }
  return std::nullopt;  // unreachable: the table's last rule has no condition (family_table.cpp checks it)
}

}  // namespace rope
