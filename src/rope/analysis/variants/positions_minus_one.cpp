// positions-minus-one: positions shifted by -1.
// Corpus rows (tests/cli/corpus_answers.json) that it matches: make_dumps/bug_vision_zero_based.
#ifdef ROPE_VARIANT_DOCS
#else
namespace rope::variants::positions_minus_one {

VariantRow row() {
  VariantRow r;
  r.name = "positions-minus-one";
  r.detection = VariantDetection::Compared;
  r.parameters = "";
  r.changes = [](E) { return msg("positions shifted by {0}", "-1"); };
  r.says = [](S c) {
    return c.expected.mode == CheckMode::Shift ? shift_off_says(c, -1.0)
                                               : msg("matches positions shifted by {0}: positions off by one", "-1");
  };
  r.from_expectation = {always, [](F f, Out out) { put(out, f.expected, -1.0); }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::positions_minus_one
#endif
