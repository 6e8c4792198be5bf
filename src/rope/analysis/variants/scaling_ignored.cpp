// scaling-ignored: plain RoPE without the scaling and its attention factor.
// Corpus rows (tests/cli/corpus_answers.json) that it matches: make_dumps/bug_scaling_ignored,
// diagnosis_2026/mlxvlm_gemma3_global_unscaled.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("scaling-ignored",
  R"md(`matches plain RoPE with base … and no attention factor: the scaling is not applied`)md",
  R"md(unscaled frequencies (`found.factor` 1; the difference: the factor and attention factor expected, 1 found))md",
  R"md(`rope_scaling` ignored (Gemma-3's global factor 8: mlx-vlm PR #1709))md")
// clang-format on
#else
namespace rope::variants::scaling_ignored {

VariantRow row() {
  VariantRow r;
  r.name = "scaling-ignored";
  r.detection = VariantDetection::Compared;
  r.parameters = "factor";
  r.changes = [](E) { return msg("plain RoPE without the scaling and its attention factor"); };
  r.says = [](S c) {
    return msg("matches plain RoPE with base {0} and no attention factor: the scaling is not applied",
               base_of(c.expected));
  };
  r.from_expectation = {
      [](F f) { return not_fope(f) && (f.expected.scaled() || f.expected.attention_factor() != 1.0); },
      [](F f, Out out) {
        RopeExpectation s = with_theta(f.expected, ladder_theta(f.expected.base(), f.expected.rotary_dim()));
        s.rope.params.attention_factor = 1.0;
        Variant& v = put(out, s);
        // The scaling's factor and attention factor that the dump leaves out (1 each).
        const RopeExpectation& e = f.expected;
        v.found = {{"factor", 1}};
        if (e.scaled() && e.rope.config.factor) v.difference.push_back({"factor", *e.rope.config.factor, 1});
        if (e.attention_factor() != 1.0) v.difference.push_back({"attention_factor", e.attention_factor(), 1});
      }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::scaling_ignored
#endif
