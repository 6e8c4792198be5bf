// rotation-reversed: the rotation reversed.
// every pair turned by −m·θ: sin's sign flipped, or the transpose R(m)ᵀ applied
// Corpus rows (tests/cli/corpus_answers.json) that it matches: buggy_kernels/reversed.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("rotation-reversed",
  R"md(`matches the rotation reversed, every pair turned by −m·θ`)md",
  R"md(R(−m·θ): sin's sign flipped)md",
  R"md(`q·cos − rotate_half(q)·sin`, or the transpose R(m)ᵀ applied: m − n and n − m written interchangeably; `rope identify` says "every pair turns clockwise" and exits 1)md")
// clang-format on
#else
namespace rope::variants::rotation_reversed {

VariantRow row() {
  VariantRow r;
  r.name = "rotation-reversed";
  r.detection = VariantDetection::Compared;
  r.parameters = "";
  r.changes = [](E) { return msg("the rotation reversed"); };
  r.says = [](S) {
    return msg(
        "matches the rotation reversed, every pair turned by −m·θ: sin's sign is flipped, or the transpose R(m)ᵀ "
        "is applied (rotate_half's sign, or m − n written as n − m)");
  };
  // The backward's transpose applied forward (G1); a shift turned the other way.
  r.says_in_mode = [](S c) {
    if (c.expected.mode == CheckMode::Grad) {
      return msg(
          "matches the forward rotation R(m) where the backward applies its transpose R(m)ᵀ = R(−m): "
          "every pair of the gradient turned by +m·θ instead of −m·θ (the conjugate rotation's sin sign "
          "misspelled)");
    }
    if (c.expected.mode == CheckMode::Shift) {
      return msg("matches the shift applied with the wrong sign: every key turned by {0} instead of δ = {1}",
                 fmt::format("{:g}", -c.expected.shift), fmt::format("{:g}", c.expected.shift));
    }
    return Message{};
  };
  r.from_expectation = {always, [](F f, Out out) { put(out, f.expected).reversed = true; }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::rotation_reversed
#endif
