// mrope-t-for-all: the t position on every axis.
// M-RoPE: the t row used for every axis
// Corpus rows (tests/cli/corpus_answers.json) that it matches: buggy_kernels/mrope_t_for_all.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("mrope-t-for-all",
  R"md(`matches the t position on every axis: the M-RoPE kernel reads the t row for h and w too`)md",
  R"md(M-RoPE with (t, t, t) for every token)md",
  R"md(an M-RoPE kernel indexing the positions' first row (`position_ids[0]`) for every section: right on text, whose ids are (p, p, p), wrong on every image and video token (`rope.testing.cases`' `mrope-image-video` case))md")
// clang-format on
#else
namespace rope::variants::mrope_t_for_all {

VariantRow row() {
  VariantRow r;
  r.name = "mrope-t-for-all";
  r.detection = VariantDetection::Compared;
  r.parameters = "";
  r.changes = [](E) { return msg("the t position on every axis"); };
  r.says = [](S) {
    return msg("matches the t position on every axis: the M-RoPE kernel reads the t row for h and w too");
  };
  r.from_expectation = {mrope_axes, [](F f, Out out) { put(out, f.expected).t_for_all = true; }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::mrope_t_for_all
#endif
