#include <fmt/format.h>
#include <string>

#include "rope/models/scaling/scaling.hpp"
#include "rope/models/scaling/scaling_detail.hpp"
#include "rope/models/scaling/scaling_table.hpp"

// What Hugging Face only warns about (RotaryEmbeddingConfigMixin._validate_*_rope_parameters logs it
// and computes anyway) goes to RopeParameters::warnings: docs/scaling.md §8. The warnings that belong
// to one method's parameters (yarn's betas, llama3's bands) stay with its formulas.

namespace rope::detail {

void warn_unused(const RopeConfig& c, RopeParameters& p) {
  const auto& used = scaling_method(c.type).reads;
  auto is_used = [&](std::string_view key) {
    for (auto u : used) {
      if (u == key) return true;
    }
    return false;
  };
  std::string unused;
  for (std::string_view key : scaling_keys()) {
    if (scaling_key_given(c, key) && !is_used(key)) unused += fmt::format("{}{}", unused.empty() ? "" : ", ", key);
  }
  if (!unused.empty()) {
    p.warnings.push_back(
        {msg("rope_type {0} does not use: {1} (ignored; HF warns and ignores them too): harmless for "
             "the numbers, unless they were meant for another rope_type",
             to_string(c.type), unused)});
  }
  // YaRN's constants of another code base (rope's own setting, not a key of the config): YaRN's alone.
  if (c.type != ScalingType::Yarn && c.yarn_variant != YarnVariant::Hf) {
    p.warnings.push_back({msg("{0} {1} is a variant of YaRN: rope_type {2} ignores it; give it with yarn scaling",
                              option_name("yarn_variant"), to_string(c.yarn_variant), to_string(c.type))});
  }
}

void warn_small_factor(double f, RopeParameters& p) {
  if (f < 1.0) {
    p.warnings.push_back(
        {msg("factor {0} < 1 compresses the context instead of extending it (HF warns: factor must be >= 1); not "
             "harmless: HF computes with it, the frequencies grow",
             f)});
  }
}

void warn_factor_disagreement(const RopeConfig& c, RopeParameters& p) {
  if (!c.factor || !c.max_position_embeddings || !c.original_max_position_embeddings) return;
  const double implicit =
      static_cast<double>(*c.max_position_embeddings) / static_cast<double>(*c.original_max_position_embeddings);
  if (implicit == *c.factor) return;
  double a_explicit = p.attention_factor;
  double a_implicit = 0.0;
  Message older;
  if (c.type == ScalingType::Yarn) {
    a_implicit = yarn_attention(c, implicit).value;
    older = {msg("HF 4.51–4.55 and 5.0 dev builds before 347328108a")};
  } else {
    a_implicit = longrope_attention(c, implicit, *c.original_max_position_embeddings).first;
    older = {msg("HF 4.x, when original_max_position_embeddings is a top-level config attribute,")};
  }
  p.warnings.push_back(
      msg("max_position_embeddings / original_max_position_embeddings = {0} / {1} = {2} differs from factor {3}: "
          "rope uses factor {4} (attention factor {5:.6g}, as HF 4.56 and 5.x); {6} use {7} (attention factor "
          "{8:.6g}); not harmless: the numbers depend on the HF version",
          *c.max_position_embeddings, *c.original_max_position_embeddings, implicit, *c.factor, *c.factor, a_explicit,
          older, implicit, a_implicit));
}

}  // namespace rope::detail
