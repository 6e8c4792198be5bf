// mrope-batch-rows: batch rows read as t, h, w.
// M-RoPE position_ids [3, batch, seq] read as [batch, 3, seq]: batch rows taken as t, h, w
// Corpus rows (tests/cli/corpus_answers.json) that it matches: buggy_kernels/mrope_batch_rows.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("mrope-batch-rows",
  R"md(`matches position_ids [3, batch, seq] read as [batch, 3, seq]`)md",
  R"md(M-RoPE with batch row b's t, h, w taken from the flat rows 3b, 3b + 1, 3b + 2 of the positions (batch rows of equal length, positions `[3, batch, seq]`), `found.batch`)md",
  R"md(HF's `position_ids` `[3, batch, seq]` indexed as `[batch, 3, seq]`: invisible with one row, every row wrong with several; `rope identify` finds the sections at the positions so read (`mrope_batch_rows`, the rows))md")
// clang-format on
#else
namespace rope::variants::mrope_batch_rows {

VariantRow row() {
  VariantRow r;
  r.name = "mrope-batch-rows";
  r.detection = VariantDetection::FromDump;
  r.parameters = "batch";
  r.changes = [](E) { return msg("batch rows read as t, h, w"); };
  r.says = [](S c) {
    return msg(
        "matches position_ids [3, batch, seq] read as [batch, 3, seq]: each batch row takes its t, h and w from "
        "the flat rows 3b, 3b + 1, 3b + 2 of the {0} rows' positions (the batch and axis dimensions swapped)",
        c.expected.batch_rows);
  };
  r.from_dump = {[](F f) {
                   return mrope_rows(f) && multi_positions(f) && f.dump->positions.front().count >= 3 &&
                          f.expected.batch_rows > 1;
                 },
                 [](F f, Out out) {
                   Variant& v = put(out, f.expected);
                   v.batch_axes = true;
                   v.found = {{"batch", static_cast<double>(f.expected.batch_rows)}};
                 }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::mrope_batch_rows
#endif
