// mrope-openpangu-order: mrope_section in openPangu-VL's greedy order.
// The two interleaved M-RoPE orders of the same sections, found "pair" (the first pair where they
// part): openPangu-VL's greedy order (A10) where the model interleaves as Qwen3-VL (A3), and the other way.
// Corpus rows (tests/cli/corpus_answers.json) that it matches: openpangu_mrope/pangu_16_24_24_as_default,
// openpangu_mrope/pangu_24_20_20_as_default.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("mrope-openpangu-order mrope-qwen3-order",
  R"md(`matches mrope_section [24, 20, 20] in openPangu-VL's greedy order (vLLM rope_type openpangu), where the model interleaves them as Qwen3-VL does: the two orders agree on pairs 0 … 22 and part at pair 23` (or the reverse))md",
  R"md(the other interleave of the same sections, (A10) against (A3) (JSON `mrope-openpangu-order`, `mrope-qwen3-order`, found `pair`: the first pair where they part, 23 for [24, 20, 20], 3 for [16, 24, 24]; not tried where the two orders are one, as with [22, 21, 21]))md",
  R"md(an openPangu-VL checkpoint served through Qwen3-VL's M-RoPE (`rope_type` default with `mrope_interleaved`), or a Qwen3-VL config given `rope_type` openpangu; tests/reference/openpangu_mrope.py ports both codes and tests/cli/check_openpangu_mrope.py checks each dump both ways)md")
// clang-format on
#else
namespace rope::variants::mrope_openpangu_order {

VariantRow row() {
  VariantRow r;
  r.name = "mrope-openpangu-order";
  r.detection = VariantDetection::Compared;
  r.parameters = "pair";
  r.changes = [](E) { return msg("mrope_section in openPangu-VL's greedy order"); };
  r.says = [](S c) { return interleave_order_in(c, true); };
  r.from_expectation = {[](F f) { return interleave_applies(f, SectionOrder::Interleaved); },
                        [](F f, Out out) { order_other(f, out, SectionOrder::PanguGreedy); }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::mrope_openpangu_order
#endif
