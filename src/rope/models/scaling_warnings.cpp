#include <fmt/format.h>
#include <string>

#include "rope/models/scaling.hpp"
#include "rope/models/scaling_detail.hpp"
#include "rope/models/scaling_table.hpp"

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
    p.warnings.push_back({fmt::format("rope_type {} does not use: {} (ignored; HF warns and ignores them too): harmless for "
                                      "the numbers, unless they were meant for another rope_type",
                                      to_string(c.type), unused),
                          fmt::format("rope_type {} 不使用:{}(已忽略;HF 也会警告并忽略):对数值无害,除非它们本是给"
                                      "另一种 rope_type 的",
                                      to_string(c.type), unused)});
  }
}

void warn_small_factor(double f, RopeParameters& p) {
  if (f < 1.0) {
    p.warnings.push_back(
        {fmt::format("factor {} < 1 compresses the context instead of extending it (HF warns: factor must be >= 1); not "
                     "harmless: HF computes with it, the frequencies grow",
                     f),
         fmt::format("factor {} < 1 是压缩上下文而不是扩展(HF 警告:factor 必须 >= 1);并非无害:HF 照样用它计算,频率变大",
                     f)});
  }
}

void warn_factor_disagreement(const RopeConfig& c, RopeParameters& p) {
  if (!c.factor || !c.max_position_embeddings || !c.original_max_position_embeddings) return;
  const double implicit = static_cast<double>(*c.max_position_embeddings) / static_cast<double>(*c.original_max_position_embeddings);
  if (implicit == *c.factor) return;
  double a_explicit = p.attention_factor;
  double a_implicit = 0.0;
  Message older;
  if (c.type == ScalingType::Yarn) {
    a_implicit = yarn_attention(c, implicit).value;
    older = {"HF 4.51–4.55 and 5.0 dev builds before 347328108a", "HF 4.51–4.55 以及 347328108a 之前的 5.0 开发版"};
  } else {
    a_implicit = longrope_attention(c, implicit, *c.original_max_position_embeddings).first;
    older = {"HF 4.x, when original_max_position_embeddings is a top-level config attribute,",
             "HF 4.x(当 original_max_position_embeddings 是配置的顶层属性时)"};
  }
  p.warnings.push_back(
      {fmt::format("max_position_embeddings / original_max_position_embeddings = {} / {} = {} differs from factor {}: rope uses "
                   "factor {} (attention factor {:.6g}, as HF 4.56 and 5.x); {} use {} (attention factor {:.6g}); not harmless: "
                   "the numbers depend on the HF version",
                   *c.max_position_embeddings, *c.original_max_position_embeddings, implicit, *c.factor, *c.factor, a_explicit,
                   older.en, implicit, a_implicit),
       fmt::format("max_position_embeddings / original_max_position_embeddings = {} / {} = {} 与 factor {} 不同:rope 使用 "
                   "factor {}(注意力因子 {:.6g},与 HF 4.56 和 5.x 相同);{} 使用 {}(注意力因子 {:.6g});并非无害:数值取决于 HF 版本",
                   *c.max_position_embeddings, *c.original_max_position_embeddings, implicit, *c.factor, *c.factor, a_explicit,
                   older.zh, implicit, a_implicit)});
}

}  // namespace rope::detail
