// norm-scaled: the output's norm scaled.
// Corpus rows (tests/cli/corpus_answers.json) that it matches: buggy_kernels/norm_bf16, buggy_kernels/norm_f32,
// deepseek_v4/bug_attention_factor_not_forced_f32, yarn_variants/grok_yarn_log_mscale_applied,
// yarn_variants/telechat3_with_hf_mscale.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("norm-scaled",
  R"md(`the output's norm is scaled by 1.05: each rotated pair's norm is that many times a·‖x‖`)md",
  R"md(every rotated pair's norm s times a·‖x‖ (`found.factor` = s, the energy-weighted ratio √(Σ‖y‖²/Σ(a·‖x‖)²)), beyond the pair-norm bound (N1) 2·(ε_T + ε_A) of check.hpp (bf16 1.56 %, float16 0.2 %, float32 4.8e-7): a rotation keeps each pair's norm within its rounding, so the pairs are checked by their norm as well as element by element (bf16's element tolerance lets a norm off by up to 12 % through))md",
  R"md(an attention factor applied where none belongs (YaRN's mscale on a model without it), or a wrong one: multiply cos and sin by the model's attention factor only)md")
// clang-format on
#else
namespace rope::variants::norm_scaled {

Message norm_says(S c) {
  const double bound = check_norm_bound(c.expected, c.dtype);
  return msg(
      "the output's norm is scaled by {0}: each rotated pair's norm is that many times a·‖x‖ (attention factor a {1}), "
      "where a rotation keeps it within {2} (an attention factor applied where none belongs, or a wrong one)",
      fmt::format("{:.6g}", found_value(c)), fmt::format("{:.6g}", c.expected.attention_factor()),
      fmt::format("{:.3g} %", 100 * bound));
}

VariantRow row() {
  VariantRow r;
  r.kind = VariantKind::NormScaled;
  r.name = "norm-scaled";
  r.detection = VariantDetection::Screened;
  r.parameters = "factor";
  r.changes = [](E) { return msg("the output's norm scaled"); };
  r.says = norm_says;
  r.from_dump = {[](F f) { return dump_shown(f) && f.dump->norm_scale.has_value(); },
                 [](F f, Out out) {
                   Variant& v = put(out, f.expected);
                   v.spec.rope.params.attention_factor = f.expected.attention_factor() * *f.dump->norm_scale;
                   v.found = {{"factor", *f.dump->norm_scale}};
                 }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::norm_scaled
#endif
