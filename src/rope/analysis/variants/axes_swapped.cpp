// axes-swapped: height and width exchanged.
// height and width exchanged: a patch's (row, column) read as (column, row), M-RoPE's h and w
// Corpus rows (tests/cli/corpus_answers.json) that it matches: gemma4_vision/bug_blocks_swapped_f64,
// make_dumps/bug_bailing_hw_swapped.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("axes-swapped",
  R"md(`matches each patch turned by (column, row) instead of (row, column)` (a vision tower), `matches the positions with h and w exchanged` (M-RoPE))md",
  R"md(the positions given with their height and width components exchanged (tried only where some position has h ≠ w))md",
  R"md(a patch grid flattened column by column where the model goes row by row (`x = idx % side` against `idx // side`), or `(h, w)` written as `(w, h)` into `position_ids`; the Python module takes a tower's `patches`)md")
// clang-format on
#else
namespace rope::variants::axes_swapped {

/// Height and width exchanged, where some position has h ≠ w (elsewhere the variant is the expectation).
bool axes_swapped_applies(F f) {
  if (!has_axes(f)) return false;
  const auto h_not_w = [](const AxisPosition& p) {
    return p.multi() && p.value[height_component(p)] != p.value[height_component(p) + 1];
  };
  return f.dump == nullptr || std::any_of(f.dump->positions.begin(), f.dump->positions.end(), h_not_w);
}

VariantRow row() {
  VariantRow r;
  r.name = "axes-swapped";
  r.detection = VariantDetection::Compared;
  r.parameters = "";
  r.changes = [](E) { return msg("height and width exchanged"); };
  r.says = [](S c) {
    return c.expected.rope.axes && c.expected.rope.axes->vision()
               ? msg("matches each patch turned by (column, row) instead of (row, column): the tower's height and "
                     "width indices are exchanged")
               : msg("matches the positions with h and w exchanged, (t, w, h) for (t, h, w): the height and width "
                     "indices are swapped");
  };
  r.from_expectation = {axes_swapped_applies, [](F f, Out out) { put(out, f.expected).swap_hw = true; }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::axes_swapped
#endif
