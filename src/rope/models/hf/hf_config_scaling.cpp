#include <algorithm>
#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <vector>

#include "rope/core/error.hpp"
#include "rope/models/families/family_table.hpp"
#include "rope/models/hf/hf_config.hpp"
#include "rope/models/scaling/scaling_table.hpp"

// The scaling block of a config.json as Hugging Face transformers reads it (modeling_rope_utils.py, v5 at
// 347328108a, the 5.0-dev revision of docs/scaling.md's table: rope_config_validation, standardize_rope_params and
// the _validate_*_rope_parameters functions);
// docs/scaling.md §2, §8 and "Reading a model's config".

namespace rope::detail {

namespace {

/// Keys that only make sense inside a scaling dict (scaling_keys()); their presence without a type is an error.
bool has_any_scaling_key(const json& dict) {
  const auto& keys = scaling_keys();
  return std::any_of(keys.begin(), keys.end(),
                     [&dict](std::string_view k) { return Reader::find(dict, k) != nullptr; });
}

/// v5 per-layer-type form: {"full_attention": {...}, "sliding_attention": {...}}.
bool is_per_layer_type(const json& dict) {
  if (dict.empty()) return false;
  if (Reader::find(dict, "rope_type") || Reader::find(dict, "type") || Reader::find(dict, "rope_theta") ||
      has_any_scaling_key(dict)) {
    return false;
  }
  return std::all_of(dict.begin(), dict.end(), [](const json& v) { return v.is_object(); });
}

}  // namespace

void check_rope_block_size(const Reader& r, const json& block, const std::string& path) {
  if (block.size() > kMaxRopeBlockKeys) {
    r.fail(path, fmt::format("has {} keys, more than the limit of {} (one entry per layer type, or the method's "
                             "parameters)",
                             block.size(), kMaxRopeBlockKeys));
  }
}

void ConfigParser::select_scaling_dict() {
  const json* v4 = r_.object(*cfg_, prefix_, "rope_scaling");
  const json* v5 = r_.object(*cfg_, prefix_, "rope_parameters");
  // Bounded before anything walks their entries (the per-layer-type loops here and in read_layer_types).
  if (v4) check_rope_block_size(r_, *v4, child(prefix_, "rope_scaling"));
  if (v5) check_rope_block_size(r_, *v5, child(prefix_, "rope_parameters"));
  if (entry_) {  // one entry of rope_parameters keyed by layer type (read_layer_types)
    scaling_ = {entry_->dict,
                entry_->path.empty() ? child(child(prefix_, "rope_parameters"), entry_->name) : entry_->path};
    layer_type_ = entry_->name;
    theta_from_ = entry_->theta_from;
    return;
  }
  if (is_deepseek_v4(m_.model_type)) {  // the model's values: the main block (hf_config_deepseek_v4.cpp)
    deepseek_v4_ = deepseek_v4_blocks(r_, *cfg_, prefix_);
    scaling_ = {&deepseek_v4_.main, deepseek_v4_.main_path};
    layer_type_ = "main";
    theta_from_ = deepseek_v4_.main_theta_from;
    return;
  }
  if (v4 && v4->empty()) v4 = nullptr;  // HF: `rope_scaling or rope_parameters`; {} is falsy
  if (v5 && v5->empty()) v5 = nullptr;
  const ModelFamily* family = find_model_family(m_.model_type);
  if (v4 && family && family->rope_parameters_only) {
    // Gemma4TextConfig.convert_rope_params_to_dict returns the keys untouched: rope_scaling is never read.
    note(msg("{0} is ignored: HF's {1} reads rope_parameters only ({2})", child(prefix_, "rope_scaling"),
             family->config_class, family->source));
    v4 = nullptr;
  }
  if (v4 && v5) {
    note(
        msg("rope_scaling and rope_parameters are both given: rope_scaling is used, as HF v5 does "
            "(rope_parameters = rope_scaling or rope_parameters)"));
  }
  if (v4) {
    scaling_ = {v4, child(prefix_, "rope_scaling")};
  } else if (v5) {
    scaling_ = {v5, child(prefix_, "rope_parameters")};
  } else if (family && !family->default_rope_parameters.empty()) {
    // HF v5: the class's own rope_parameters when the config has none (Gemma4TextConfig.__post_init__).
    class_parameters_ = json::parse(family->default_rope_parameters);
    scaling_ = {&class_parameters_, family->config_class + " default rope_parameters"};
    note(msg("rope_parameters not given: HF's {0} default {1} ({2})", family->config_class, class_parameters_.dump(),
             family->layers_source.empty() ? family->source : family->layers_source));
  }
  if (scaling_.dict && is_per_layer_type(*scaling_.dict)) {
    const json& layers = *scaling_.dict;
    std::vector<std::string> names;
    for (auto it = layers.begin(); it != layers.end(); ++it) names.push_back(it.key());
    std::string chosen;
    if (layers.contains("full_attention")) {
      chosen = "full_attention";
    } else if (names.size() == 1) {
      chosen = names.front();
    } else {
      r_.fail(scaling_.path, fmt::format("per-layer-type entries without full_attention (got {})", join_names(names)));
    }
    std::vector<std::string> others;
    for (auto it = layers.begin(); it != layers.end(); ++it) {
      if (it.key() == chosen) continue;
      const std::string p = child(scaling_.path, it.key());
      const auto type = r_.string(*it, p, "rope_type");
      const auto theta = r_.number(*it, p, "rope_theta");
      others.push_back(fmt::format("{}: rope_type {}{}", shown_name(it.key()), shown_name(type.value_or("default")),
                                   theta ? ", rope_theta " + num(*theta) : ""));
    }
    note(msg("{0}: per-layer-type entries ({1}); the {2} entry is used{3}", scaling_.path, join_names(names), chosen,
             others.empty() ? Message::same("") : msg("; other layers: {0}", join_names(others, 160))));
    scaling_.path = child(scaling_.path, chosen);
    scaling_.dict = &layers[chosen];
    layer_type_ = chosen;
  }
}

namespace {

/// Levenshtein distance, for suggesting a spelling (keys are short: O(n·m) is nothing).
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::string without_underscores(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c != '_') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

/// Control characters of a key as \xNN, so a warning prints on one line.
std::string printable(std::string_view s) {
  std::string out;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    out += u < 0x20 || u == 0x7f ? fmt::format("\\x{:02x}", u) : std::string(1, c);
  }
  return out;
}

}  // namespace

/// Keys of the RoPE block that no method reads and HF does not know: a warning, with the known key the
/// spelling is closest to (docs/scaling.md §8).
void ConfigParser::lint_scaling_keys() {
  if (!scaling_.dict) return;
  std::vector<std::string_view> known = scaling_keys();
  for (std::string_view k : {"rope_type", "type", "rope_theta", "partial_rotary_factor",
                             "original_max_position_embeddings", "mrope_section", "mrope_interleaved",
                             // FoPE (hf_config_fope.cpp), and vLLM's use_fope and num_kv_heads beside them
                             "fope_init_factor", "fope_sep_head", "num_inv_freq", "use_fope", "num_kv_heads"}) {
    known.push_back(k);
  }
  if (is_hunyuan()) known.push_back("alpha");  // NTK-α (read_ntk_alpha)
  const ModelFamily* xd = find_model_family(m_.model_type);
  if (xd && xd->mrope_order == "xdrope") known.push_back("xdrope_section");  // HunyuanVL (read_xdrope)
  const ModelFamily* family = find_model_family(m_.model_type);
  if (family && !family->query_scaling.empty()) known.push_back(family->query_scaling);  // read_query_scaling
  static const std::vector<std::pair<std::string_view, std::string_view>> aliases{
      {"attn_factor", "attention_factor"}, {"scaling_factor", "factor"}, {"rope_scaling_type", "rope_type"}};
  for (auto it = scaling_.dict->begin(); it != scaling_.dict->end(); ++it) {
    const std::string& key = it.key();
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string_view suggestion;
    for (const auto& [wrong, right] : aliases) {
      if (key == wrong) suggestion = right;
    }
    std::size_t best = 3;  // at most 2 edits, or the same letters without underscores
    for (std::string_view k : known) {
      if (!suggestion.empty()) break;
      const std::size_t d = without_underscores(key) == without_underscores(k) ? 0 : edit_distance(key, k);
      if (d < best) {
        best = d;
        suggestion = k;
      }
    }
    const std::string path = printable(child(scaling_.path, key));
    // HF's common validation warns ("Unrecognized keys in rope_scaling"), but a family's own code may read the
    // key (HunYuan's alpha is NTK-α): nothing is called harmless that rope does not know to be.
    if (suggestion.empty()) {
      m_.warnings.push_back(
          msg("{0}: not understood: rope ignores it, and the numbers may differ if this model's code "
              "reads it",
              path));
    } else {
      m_.warnings.push_back(msg("{0}: not understood; did you mean {1}? rope ignores its value", path, suggestion));
    }
  }
}

bool ConfigParser::is_hunyuan() const {
  return m_.model_type == "hunyuan_v1_dense" || m_.model_type == "hunyuan_v1_moe" || m_.model_type == "hunyuan_vl" ||
         m_.model_type == "hunyuan_vl_text";
}

// HunYuan's NTK-α (transformers 357f414c, models/hunyuan_v1_dense/modeling_hunyuan_v1_dense.py:324-331, and
// hunyuan_v1_moe the same): rope_type dynamic with alpha builds inv_freq from base θ·α^(d/(d−2)), d = head_dim,
// over the whole head, attention factor 1. Its forward keeps @dynamic_rope_update: a sequence longer than
// max_position_embeddings recomputes inv_freq with ROPE_INIT_FUNCTIONS["dynamic"] (_compute_dynamic_ntk_parameters:
// rope_theta and factor, no α) (modeling_rope_utils.py dynamic_rope_update, dynamic_frequency_update).
void ConfigParser::read_ntk_alpha(double alpha) {
  RopeConfig& rope = m_.rope;
  const double theta = rope.base;
  const double d = static_cast<double>(head_dim_);
  rope.ntk_alpha = alpha;
  origin("alpha", num(alpha), child(scaling_.path, "alpha"));
  note(msg(
      "HunYuan's NTK-α ({0} {1}): base = θ·α^(d/(d−2)) = {2} over head_dim {3}, attention factor 1 "
      "(modeling_hunyuan_v1_dense.py:324-331), for sequences up to max_position_embeddings; a longer one makes HF's "
      "dynamic update (modeling_rope_utils.py dynamic_rope_update) recompute θ·(f·L/M − (f−1))^(d/(d−2)) without α, "
      "L = max(position) + 1",
      child(scaling_.path, "alpha"), num(alpha), num(theta * std::pow(alpha, d / (d - 2))), head_dim_));
}

/// Ministral 3 and Mistral 4 (the family table's query_scaling): the query scaled by (S21) on every layer, β and
/// L0 read from the RoPE block as get_llama_4_attn_scale's callers read them (rope_parameters.get(...)).
void ConfigParser::read_query_scaling() {
  const ModelFamily* family = find_model_family(m_.model_type);
  if (!family || family->query_scaling.empty() || !scaling_.dict) return;
  const json& s = *scaling_.dict;
  const std::string& p = scaling_.path;
  const auto beta = r_.non_negative(s, p, family->query_scaling);
  if (!beta) {
    // HF multiplies by 1 + None·…, a TypeError: such a config does not run in HF.
    warn_missing_query_scaling(child(p, family->query_scaling), family->query_scaling_source);
    return;
  }
  const auto l0 = r_.count(s, p, "original_max_position_embeddings");
  if (!l0)
    r_.fail(child(p, "original_max_position_embeddings"), "missing (required with " + family->query_scaling + ")");
  // Where β and L0 were read: the origin lines; `from` names HF's code that applies them.
  m_.query_scaling = QueryScaling{*beta, static_cast<double>(*l0), Message::same(family->query_scaling_source)};
  origin(family->query_scaling, num(*beta), child(p, family->query_scaling));
}

void ConfigParser::warn_missing_query_scaling(const std::string& path, const std::string& source) {
  m_.warnings.push_back(
      msg("{0} not given: {1} multiplies the query by 1 + β·ln(1 + ⌊p / L0⌋) with β from it, and "
          "fails without it; rope scales nothing",
          path, source));
}

/// DeepSeek-V3, Kimi K2 and Mistral 4 (the family table's softmax_scale): the softmax scale × mscale², said in a note.
void ConfigParser::read_softmax_scale() {
  m_.softmax_scale = family_softmax_scale(m_.model_type, m_.rope);
  if (m_.softmax_scale) note(softmax_scale_note(*m_.softmax_scale));
}

void ConfigParser::read_scaling() {
  RopeConfig& rope = m_.rope;
  lint_scaling_keys();
  read_query_scaling();
  const ModelFamily* family = find_model_family(m_.model_type);
  if (!scaling_.dict) {
    refuse_unaccepted_rope_type(family, name_, child(prefix_, "rope_parameters"), "default");
    origin("rope_type", "default", msg("no rope_scaling"));
    return;
  }
  const json& s = *scaling_.dict;
  const std::string& p = scaling_.path;
  const auto rope_type = r_.string(s, p, "rope_type");
  const auto legacy = r_.string(s, p, "type");
  std::string type_path = child(p, rope_type ? "rope_type" : "type");
  if (rope_type && legacy && *rope_type != *legacy) {
    note(msg("{0}.type '{1}' is ignored: rope_type '{2}' wins (HF)", p, *legacy, *rope_type));
  }
  auto text = rope_type ? rope_type : legacy;
  if (family && text) {
    // Phi3Config.convert_rope_params_to_dict: "su" and "yarn" are read as longrope.
    for (const auto& [from, to] : family->rope_type_aliases) {
      if (*text != from) continue;
      note(msg("{0} '{1}' is read as {2}: HF's {3} renames it ({4})", type_path, from, to, family->config_class,
               family->source));
      text = to;
      break;
    }
  }
  // The rotary class sees the type after the class's renames, before rope's own names (it refuses an unknown one too).
  refuse_unaccepted_rope_type(family, name_, text ? type_path : p, text.value_or("default"));
  if (!text && family && family->mrope_order == "xdrope") {
    // HunYuanVLTextConfig._normalize_rope_parameters (modular_hunyuan_vl.py @ 17963211f4): rope_parameters.get(
    // "rope_type", rope_parameters.get("type", "default")): no key is default, whose inv_freq takes no alpha.
    origin("rope_type", "default", msg("{0} has no rope_type: HF's {1} reads it as default", p, family->config_class));
    if (Reader::find(s, "alpha")) {
      note(msg("{0}: unused, rope_type default builds plain inv_freq (HF reads alpha for rope_type dynamic or xdrope)",
               child(p, "alpha")));
    }
    return;
  }
  if (!text) {
    if (has_any_scaling_key(s)) r_.fail(p, "missing rope_type (or the legacy type)");
    origin("rope_type", "default", msg("{0} has no rope_type", p));
    return;
  }
  if (*text == "openpangu") {
    // vLLM's get_rope (rotary_embedding/__init__.py, read at 07b12f1b16): rope_type openpangu builds
    // MRotaryEmbeddingInterleaved from rope_theta, mrope_section and mrope_interleaved alone: default frequencies,
    // the axes of (A10) (hf_config_mrope.cpp).
    rope.type = ScalingType::Default;
    origin("rope_type", "default",
           msg("{0} openpangu: vLLM's interleaved M-RoPE of openPangu-VL, no scaling", type_path));
    return;
  }
  const auto type = find_scaling_name(*text);
  if (!type) {
    r_.fail(type_path, fmt::format("unknown type '{}' (known: {}; legacy {})", *text, scaling_method_names(),
                                   scaling_alias_names()));
  }
  rope.type = type->type;
  origin("rope_type", std::string(to_string(type->type)), type_path);
  if (*text == "su") {
    note(msg("{0}: 'su' is the legacy name of longrope", type_path));
  }
  if (*text == "ntk") {
    note(msg("rope_type ntk (static NTK-aware) is not a mainline HF type (docs/scaling.md §1, (S3))"));
  }
  // mrope: the same note as `--scaling mrope`, unless the sections are given (hf_config_mrope.cpp models them)
  if (type->note && !Reader::find(s, "mrope_section")) note(*type->note);
  if (!rope_type) {
    note(msg("{0}: legacy key 'type' read as rope_type", type_path));
  }
  if (rope.type == ScalingType::Dynamic && is_hunyuan()) {
    if (const auto alpha = r_.positive(s, p, "alpha")) read_ntk_alpha(*alpha);
  }
  if (rope.type == ScalingType::Default) return;

  const auto set = [&](std::optional<double>& field, std::string_view key, std::optional<double> value) {
    if (!value) return;
    field = value;
    origin(key, num(*value), child(p, key));
  };
  set(rope.factor, "factor", r_.positive(s, p, "factor"));
  set(rope.beta_fast, "beta_fast", r_.non_negative(s, p, "beta_fast"));
  set(rope.beta_slow, "beta_slow", r_.non_negative(s, p, "beta_slow"));
  set(rope.mscale, "mscale", r_.non_negative(s, p, "mscale"));
  set(rope.mscale_all_dim, "mscale_all_dim", r_.non_negative(s, p, "mscale_all_dim"));
  // HF only warns about a negative attention_factor (and then uses it): scaling_warnings.cpp does too.
  set(rope.attention_factor, "attention_factor", r_.number(s, p, "attention_factor"));
  set(rope.low_freq_factor, "low_freq_factor", r_.positive(s, p, "low_freq_factor"));
  set(rope.high_freq_factor, "high_freq_factor", r_.positive(s, p, "high_freq_factor"));
  if (const auto t = r_.boolean(s, p, "truncate")) {
    rope.truncate = t;
    origin("truncate", *t ? "true" : "false", child(p, "truncate"));
  }
  // HF v5's standardize_rope_params, run again when the RoPE is computed (modeling_rope_utils.py @ 347328108a,
  // _compute_yarn_parameters, _compute_longrope_parameters, _compute_llama3_parameters), puts the config's
  // original_max_position_embeddings attribute into a llama3, yarn or longrope block over the block's own: the
  // top-level key of any config, else the class's declared default (Phi3Config: 4096).
  const bool l0_types =
      rope.type == ScalingType::Llama3 || rope.type == ScalingType::Yarn || rope.type == ScalingType::LongRope;
  const std::optional<long> attribute = top_l0_  ? top_l0_
                                        : family ? family->original_max_position_embeddings_attribute
                                                 : std::nullopt;
  if (l0_types && attribute) {
    const long l0 = *attribute;
    rope.original_max_position_embeddings = l0;
    const Message from = top_l0_ ? Message::same(child(prefix_, "original_max_position_embeddings"))
                                 : msg("HF {0} default", family->config_class);
    origin("original_max_position_embeddings", std::to_string(l0), from);
    if (top_l0_) {
      note(
          msg("original_max_position_embeddings {0} read from the top level (Phi-3 style), as HF v5's "
              "standardize_rope_params does",
              l0));
    }
    if (const auto in_block = r_.count(s, p, "original_max_position_embeddings"); in_block && *in_block != l0) {
      note(
          msg("{0} {1} is ignored: HF v5's standardize_rope_params puts original_max_position_embeddings {2} ({3}) "
              "in the block",
              child(p, "original_max_position_embeddings"), *in_block, l0, from));
    }
  } else if (const auto l0 = r_.count(s, p, "original_max_position_embeddings")) {
    rope.original_max_position_embeddings = *l0;
    origin("original_max_position_embeddings", std::to_string(*l0), child(p, "original_max_position_embeddings"));
  } else if (top_l0_) {
    rope.original_max_position_embeddings = *top_l0_;
    origin("original_max_position_embeddings", std::to_string(*top_l0_),
           child(prefix_, "original_max_position_embeddings"));
    note(
        msg("original_max_position_embeddings {0} read from the top level (Phi-3 style), as HF v5's "
            "standardize_rope_params does",
            *top_l0_));
  }
  const auto list = [&](std::vector<double>& field, std::string_view key) {
    auto values = r_.factors(s, p, key);
    if (!values) return;
    const std::size_t want = static_cast<std::size_t>(d_ / 2);
    if (values->size() != want) {
      r_.fail(child(p, key), fmt::format("expected {} numbers, got {}", want, values->size()));
    }
    field = std::move(*values);
    m_.origin.push_back(msg("{0}: {1} numbers, {2} … {3} ({4})", key, field.size(), num(field.front()),
                            num(field.back()), child(p, key)));
  };
  list(rope.short_factor, "short_factor");
  list(rope.long_factor, "long_factor");
  require_parameters();
  explain_defaults();
}

/// Parameters HF requires per type: the `required` keys of the method's row in scaling_table.cpp (docs/scaling.md §8).
void ConfigParser::require_parameters() {
  const RopeConfig& rope = m_.rope;
  const std::string& p = scaling_.path;
  for (std::string_view key : scaling_method(rope.type).required) {
    if (!scaling_key_given(rope, key)) {
      r_.fail(child(p, key), fmt::format("missing (required for rope_type {})", to_string(rope.type)));
    }
  }
  // high_freq_factor <= low_freq_factor is only a warning in HF (Llama-4-Scout ships 1 and 1): the
  // llama3 method warns (scaling_llama3.cpp).
}

/// Notes for the HF defaults and conventions the scaling code will apply (docs/scaling.md §2, §3).
void ConfigParser::explain_defaults() {
  const RopeConfig& rope = m_.rope;
  const bool uses_l0 = rope.type == ScalingType::Yarn || rope.type == ScalingType::LongRope;
  if (uses_l0 && !rope.original_max_position_embeddings) {
    if (rope.max_position_embeddings) {
      note(msg("original_max_position_embeddings not given: L0 = max_position_embeddings {0} (HF)",
               *rope.max_position_embeddings));
    } else {
      note(msg(
          "original_max_position_embeddings and max_position_embeddings not given: L0 must come from the command line"));
    }
  }
  if (uses_l0 && !rope.factor) {
    const long l0 = rope.original_max_position_embeddings.value_or(rope.max_position_embeddings.value_or(0));
    if (rope.max_position_embeddings && l0 > 0) {
      const std::string f = num(static_cast<double>(*rope.max_position_embeddings) / static_cast<double>(l0));
      note(msg("factor not given: f = max_position_embeddings / original = {0} / {1} = {2} (current HF)",
               *rope.max_position_embeddings, l0, f));
    } else {
      note(msg("factor not given: f = max_position_embeddings / original (current HF)"));
    }
  }
  if (rope.type == ScalingType::Yarn) {
    if (!rope.beta_fast) note(msg("beta_fast not given: HF default 32"));
    if (!rope.beta_slow) note(msg("beta_slow not given: HF default 1"));
    if (!rope.truncate) note(msg("truncate not given: HF default true (round the ramp to whole pairs)"));
  }
}

}  // namespace rope::detail
