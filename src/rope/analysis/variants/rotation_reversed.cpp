// rotation-reversed: the rotation reversed.
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
  r.kind = VariantKind::RotationReversed;
  r.name = "rotation-reversed";
  r.detection = VariantDetection::Compared;
  r.parameters = "";
  r.changes = [](E) { return msg("the rotation reversed"); };
  r.says = [](S) {
    return msg(
        "matches the rotation reversed, every pair turned by −m·θ: sin's sign is flipped, or the transpose R(m)ᵀ "
        "is applied (rotate_half's sign, or m − n written as n − m)");
  };
  r.from_expectation = {always, [](F f, Out out) { put(out, f.expected).reversed = true; }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::rotation_reversed
#endif
