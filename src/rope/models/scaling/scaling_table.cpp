#include "rope/models/scaling/scaling_table.hpp"

#include <fmt/format.h>
#include <stdexcept>

#include "rope/core/error.hpp"
#include "rope/models/scaling/scaling.hpp"

// The names are Hugging Face's rope_type values (src/transformers/modeling_rope_utils.py,
// ROPE_INIT_FUNCTIONS) plus static NTK (docs/scaling.md §1); the keys read and required are those of
// HF's _compute_*_parameters and _validate_*_rope_parameters (docs/scaling.md §8).

namespace rope {

const std::vector<ScalingMethod>& scaling_methods() {
  static const std::vector<ScalingMethod> kMethods{
      {ScalingType::Default, "default", {}, {}},
      {ScalingType::Linear, "linear", {"factor"}, {"factor"}},
      {ScalingType::Ntk, "ntk", {"factor"}, {"factor"}},
      // Dynamic also needs max_position_embeddings, a key of the model rather than of its scaling block.
      {ScalingType::Dynamic, "dynamic", {"factor"}, {"factor"}},
      {ScalingType::Yarn,
       "yarn",
       {"factor", "original_max_position_embeddings", "beta_fast", "beta_slow", "truncate", "mscale", "mscale_all_dim",
        "attention_factor"},
       {}},
      {ScalingType::Llama3,
       "llama3",
       {"factor", "original_max_position_embeddings", "low_freq_factor", "high_freq_factor"},
       {"factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"}},
      {ScalingType::LongRope,
       "longrope",
       {"factor", "original_max_position_embeddings", "attention_factor", "short_factor", "long_factor"},
       {"short_factor", "long_factor"}},
      {ScalingType::Proportional, "proportional", {"factor"}, {}},
  };
  return kMethods;
}

const std::vector<ScalingAlias>& scaling_aliases() {
  static const std::vector<ScalingAlias> kAliases{
      {"su", ScalingType::LongRope, std::nullopt},  // HF's legacy name (Phi-3 configs of 2024)
      {"none", ScalingType::Default, std::nullopt},
      // Qwen2-VL's legacy name for M-RoPE. The frequencies are default's; the axes come from mrope_section
      // (hf_config_mrope.cpp), so the note is given only where there are none (the command line, or a config
      // without the key).
      {"mrope", ScalingType::Default,
       msg("rope_type mrope without mrope_section: no axis sections, so every pair turns with one position "
           "(treated as default); the sections come from a config's mrope_section ({0}, {1} qwen2-vl-7b)",
           option_name("config"), option_name("model"))},
  };
  return kAliases;
}

const std::vector<std::string_view>& scaling_keys() {
  static const std::vector<std::string_view> kKeys{"factor",          "original_max_position_embeddings",
                                                   "beta_fast",       "beta_slow",
                                                   "truncate",        "mscale",
                                                   "mscale_all_dim",  "attention_factor",
                                                   "low_freq_factor", "high_freq_factor",
                                                   "short_factor",    "long_factor"};
  return kKeys;
}

const ScalingMethod& scaling_method(ScalingType type) {
  for (const ScalingMethod& m : scaling_methods()) {
    if (m.type == type) return m;
  }
  throw std::logic_error("scaling_method: a ScalingType without a row in the table");
}

bool scaling_key_given(const RopeConfig& c, std::string_view key) {
  if (key == "factor") return c.factor.has_value();
  if (key == "original_max_position_embeddings") return c.original_max_position_embeddings.has_value();
  if (key == "beta_fast") return c.beta_fast.has_value();
  if (key == "beta_slow") return c.beta_slow.has_value();
  if (key == "truncate") return c.truncate.has_value();
  if (key == "mscale") return c.mscale.has_value();
  if (key == "mscale_all_dim") return c.mscale_all_dim.has_value();
  if (key == "attention_factor") return c.attention_factor.has_value();
  if (key == "low_freq_factor") return c.low_freq_factor.has_value();
  if (key == "high_freq_factor") return c.high_freq_factor.has_value();
  if (key == "short_factor") return !c.short_factor.empty();
  if (key == "long_factor") return !c.long_factor.empty();
  throw std::logic_error(fmt::format("scaling_key_given: '{}' is not a key of the scaling table", key));
}

std::string scaling_parameters(const RopeConfig& c) {
  const auto number = [](const std::optional<double>& v) { return fmt::format("{:g}", *v); };
  const auto list = [](const std::vector<double>& v) { return fmt::format("({} numbers)", v.size()); };
  std::string out(to_string(c.type));
  const char* separator = ": ";
  for (const std::string_view key : scaling_method(c.type).reads) {
    if (!scaling_key_given(c, key)) continue;
    std::string value;
    if (key == "factor")
      value = number(c.factor);
    else if (key == "original_max_position_embeddings")
      value = std::to_string(*c.original_max_position_embeddings);
    else if (key == "beta_fast")
      value = number(c.beta_fast);
    else if (key == "beta_slow")
      value = number(c.beta_slow);
    else if (key == "truncate")
      value = *c.truncate ? "true" : "false";
    else if (key == "mscale")
      value = number(c.mscale);
    else if (key == "mscale_all_dim")
      value = number(c.mscale_all_dim);
    else if (key == "attention_factor")
      value = number(c.attention_factor);
    else if (key == "low_freq_factor")
      value = number(c.low_freq_factor);
    else if (key == "high_freq_factor")
      value = number(c.high_freq_factor);
    else if (key == "short_factor")
      value = list(c.short_factor);
    else if (key == "long_factor")
      value = list(c.long_factor);
    out += fmt::format("{}{} {}", separator, key, value);
    separator = ", ";
  }
  return out;
}

std::optional<ScalingName> find_scaling_name(std::string_view text) {
  for (const ScalingMethod& m : scaling_methods()) {
    if (text == m.name) return ScalingName{m.type, std::nullopt};
  }
  for (const ScalingAlias& a : scaling_aliases()) {
    if (text == a.name) return ScalingName{a.type, a.note};
  }
  return std::nullopt;
}

ScalingName parse_scaling_name(std::string_view text) {
  if (auto name = find_scaling_name(text)) return *name;
  const auto& methods = scaling_methods();
  std::string expected;
  for (std::size_t i = 0; i < methods.size(); ++i) {
    expected += fmt::format("{}{}", i == 0 ? "" : i + 1 == methods.size() ? " or " : ", ", methods[i].name);
  }
  std::string also;
  for (const ScalingAlias& a : scaling_aliases()) {
    also += fmt::format("{}{} = {}", also.empty() ? "" : ", ", a.name, to_string(a.type));
  }
  throw InvalidArgument(error_msg("unknown scaling type '{0}': expected {1} (also {2})", text, expected, also));
}

std::string_view to_string(ScalingType type) {
  for (const ScalingMethod& m : scaling_methods()) {
    if (m.type == type) return m.name;
  }
  return "unknown";
}

ScalingType parse_scaling_type(std::string_view text) { return parse_scaling_name(text).type; }

std::string scaling_method_names() {
  std::string out;
  for (const ScalingMethod& m : scaling_methods()) out += fmt::format("{}{}", out.empty() ? "" : ", ", m.name);
  return out;
}

std::string scaling_alias_names() {
  std::string out;
  for (const ScalingAlias& a : scaling_aliases()) out += fmt::format("{}{}", out.empty() ? "" : ", ", a.name);
  return out;
}

}  // namespace rope
