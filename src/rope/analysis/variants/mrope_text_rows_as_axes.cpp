// mrope-text-rows-as-axes: text positions' batch rows read as t, h, w.
// M-RoPE with text positions of a batch, position_ids [batch, seq], read as [3, seq]: every batch row turned at (t, h,
// w) = rows 0, 1, 2 of the positions at its index (found "batch": the batch rows, at least 3).
// Corpus rows (tests/cli/corpus_answers.json) that it matches: buggy_kernels/mrope_text_rows.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("mrope-text-rows-as-axes",
  R"md(`matches text position_ids [batch, seq] read as M-RoPE's [3, seq]: every one of the 3 batch rows is turned at the t, h and w of rows 0, 1 and 2 of the positions`)md",
  R"md(M-RoPE with text positions of a batch of at least 3 equal rows (`[batch, seq]`), every row's index i turned at (t, h, w) = (row 0, row 1, row 2 at i), `found.batch` (JSON `mrope-text-rows-as-axes`))md",
  R"md(a kernel that takes text `position_ids` `[batch, seq]` where the model's code expands them to `[3, batch, seq]`, and indexes `position_ids[0]`, `[1]`, `[2]` as t, h, w: right for one row of (p, p, p) text, wrong wherever the rows' positions differ (left padding, per-row decode offsets))md")
// clang-format on
#else
namespace rope::variants::mrope_text_rows_as_axes {

VariantRow row() {
  VariantRow r;
  r.name = "mrope-text-rows-as-axes";
  r.detection = VariantDetection::FromDump;
  r.parameters = "batch";
  r.changes = [](E) { return msg("text positions' batch rows read as t, h, w"); };
  r.says = [](S c) {
    return msg(
        "matches text position_ids [batch, seq] read as M-RoPE's [3, seq]: every one of the {0} batch rows is "
        "turned at the t, h and w of rows 0, 1 and 2 of the positions (HF expands text positions to [3, batch, "
        "seq] before the M-RoPE code indexes them)",
        c.expected.batch_rows);
  };
  r.from_dump = {[](F f) { return mrope_rows(f) && !multi_positions(f) && f.expected.batch_rows >= 3; },
                 [](F f, Out out) {
                   Variant& v = put(out, f.expected);
                   v.text_rows_as_axes = true;
                   v.found = {{"batch", static_cast<double>(f.expected.batch_rows)}};
                 }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::mrope_text_rows_as_axes
#endif
