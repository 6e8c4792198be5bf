// mrope-axes-shifted: the axis slots shifted.
// M-RoPE: the axis slots cyclically shifted, (t, h, w) read as (h, w, t) or (w, t, h)
// Corpus rows (tests/cli/corpus_answers.json) that it matches: buggy_kernels/mrope_shifted.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("mrope-axes-shifted",
  R"md(`matches the axis slots shifted by one, (h, w, t) read for (t, h, w)` (or by two))md",
  R"md(the position's components cyclically shifted, `found.shift`)md",
  R"md(the sections' slots out of step with the positions' rows (vLLM PR #40680, under torch.compile))md")
// clang-format on
#else
namespace rope::variants::mrope_axes_shifted {

VariantRow row() {
  VariantRow r;
  r.name = "mrope-axes-shifted";
  r.detection = VariantDetection::Compared;
  r.parameters = "shift";
  r.changes = [](E) { return msg("the axis slots shifted"); };
  r.says = [](S c) {
    return found_value(c) == 1 ? msg("matches the axis slots shifted by one, (h, w, t) read for (t, h, w): the "
                                     "positions' rows and the sections are out of step")
                               : msg("matches the axis slots shifted by two, (w, t, h) read for (t, h, w): the "
                                     "positions' rows and the sections are out of step");
  };
  r.from_expectation = {mrope_axes, [](F f, Out out) {
                          for (const int k : {1, 2}) {  // (t, h, w) read as (h, w, t) or (w, t, h) (vLLM PR #40680)
                            Variant& x = put(out, f.expected);
                            x.axis_shift = k;
                            x.found = {{"shift", k}};
                          }
                        }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::mrope_axes_shifted
#endif
