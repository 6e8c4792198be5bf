// sin-dropped: the sin term dropped, out = x·cos.
// every failing rotated element a·x_c·cos(mθ): the rotate_half(x)·sin term never added
// Corpus rows (tests/cli/corpus_answers.json) that it matches: diagnosis_2026/sin_dropped.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("sin-dropped",
  R"md(`every rotated element is x·cos(m·θ): the sin term (rotate_half(x)·sin) is never added`)md",
  R"md(each failing element classified over the whole dump (its input, x·cos, 0, within 8·ε_T + 4·ε_f32·(1 + |mθ|) of a·‖x‖): every one a·x·cos(mθ) (`found.channels`, the rotated channels))md",
  R"md(a kernel that returns `q * cos` (the second term lost in an edit, a fused add that never runs))md")
// clang-format on
#else
namespace rope::variants::sin_dropped {

VariantRow row() {
  VariantRow r;
  r.name = "sin-dropped";
  r.detection = VariantDetection::Measured;
  r.parameters = "channels";
  r.changes = [](E) { return msg("the sin term dropped"); };
  r.says = [](S c) {
    return msg(
        "every rotated element is x·cos(m·θ) on its {0} rotated channels: the sin term (rotate_half(x)·sin) is "
        "never added",
        fmt::format("{:g}", found_value(c)));
  };
  // Every failing element is a·x_c·cos(mθ) (the failing elements classified, ElementClasses), not all of them its
  // input.
  r.classified = [](M m) {
    const ElementClasses* k = m.elements;
    if (!elements_fail(m) || k->cos_only != k->failing || k->unrotated >= k->failing) return false;
    const double channels = m.report.expected.rotary_dim();
    return explain_elements(m, "sin-dropped", {{"channels", channels}}, {{"sin_term", 1, 0}});
  };
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::sin_dropped
#endif
