// rope-applied-twice: RoPE applied twice.
// RoPE applied twice, every pair turned by 2·m·θ_i and scaled by a² (TensorRT-LLM PR #16378: with
// rope_fusion off, YaRN missing from is_rope(), so q and k were rotated by the fused path and the model's own).
// Corpus rows (tests/cli/corpus_answers.json) that it matches: qk_pairs/applied_twice_yarn.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("rope-applied-twice",
  R"md(`matches RoPE applied twice: every pair turned by 2·m·θ_i and scaled by a² = 1.2 (the magnitude 1.09543 applied twice), the rotation of a fused path and the model's own both applied`)md",
  R"md(every pair turned by 2·m·θ_i, the attention factor a applied twice (a²))md",
  R"md(q and k rotated by a fused kernel and again by the model's own RoPE (TensorRT-LLM PR #16378: with `rope_fusion=False`, YaRN was missing from `is_rope()`, so GPT-OSS's q and k were turned by 2m with YaRN's magnitude squared in the cached K))md")
// clang-format on
#else
namespace rope::variants::rope_applied_twice {

VariantRow row() {
  VariantRow r;
  r.name = "rope-applied-twice";
  r.detection = VariantDetection::Compared;
  r.parameters = "";
  r.changes = [](E) { return msg("RoPE applied twice"); };
  r.says = [](S c) {
    const double a = c.expected.attention_factor();
    return msg(
        "matches RoPE applied twice: every pair turned by 2·m·θ_i and scaled by a² = {0} (the magnitude {1} applied "
        "twice), the rotation of a fused path and the model's own both applied",
        fmt::format("{:.6g}", a * a), fmt::format("{:.6g}", a));
  };
  // The forward pass's (a shift applied twice is the shift's own sentence: positions-offset in the shift's words),
  // with a magnitude: a² tells it from a dump turned at positions 2m, which a = 1 cannot (that one keeps the
  // departure's sentence, "turns by 2 rad where RoPE turns 1").
  r.from_expectation = {
      [](F f) { return not_fope(f) && f.expected.mode == CheckMode::Forward && f.expected.attention_factor() != 1.0; },
      [](F f, Out out) {
        RopeExpectation twice = with_theta(f.expected, 2.0 * f.expected.theta());
        twice.rope.params.attention_factor = f.expected.attention_factor() * f.expected.attention_factor();
        put(out, std::move(twice));
      }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::rope_applied_twice
#endif
