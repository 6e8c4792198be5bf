// positions-plus-one: positions shifted by +1.
// Corpus rows (tests/cli/corpus_answers.json) that it matches: hf_families/bug_llama31_plus_one_f64,
// make_dumps/bug_positions_off_by_one.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("positions-plus-one positions-minus-one",
  R"md(`matches positions shifted by +1` (or −1))md",
  R"md(positions off by one)md",
  R"md(a position counter started at 1, a BOS token counted twice, a KV-cache offset)md")
// clang-format on
#else
namespace rope::variants::positions_plus_one {

VariantRow row() {
  VariantRow r;
  r.name = "positions-plus-one";
  r.detection = VariantDetection::Compared;
  r.parameters = "";
  r.changes = [](E) { return msg("positions shifted by {0}", "+1"); };
  r.says = [](S c) {
    return c.expected.mode == CheckMode::Shift ? shift_off_says(c, 1.0)
                                               : msg("matches positions shifted by {0}: positions off by one", "+1");
  };
  r.from_expectation = {always, [](F f, Out out) { put(out, f.expected, 1.0); }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::positions_plus_one
#endif
