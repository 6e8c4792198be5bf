// mrope-qwen3-order: mrope_section in Qwen3-VL's interleaved order.
// Corpus rows (tests/cli/corpus_answers.json) that it matches: openpangu_mrope/qwen3_16_24_24_as_openpangu,
// openpangu_mrope/qwen3_24_20_20_as_openpangu.
#ifdef ROPE_VARIANT_DOCS
#else
namespace rope::variants::mrope_qwen3_order {

VariantRow row() {
  VariantRow r;
  r.name = "mrope-qwen3-order";
  r.detection = VariantDetection::Compared;
  r.parameters = "pair";
  r.changes = [](E) { return msg("mrope_section in Qwen3-VL's interleaved order"); };
  r.says = [](S c) { return interleave_order_in(c, false); };
  r.from_expectation = {[](F f) { return interleave_applies(f, SectionOrder::PanguGreedy); },
                        [](F f, Out out) { order_other(f, out, SectionOrder::Interleaved); }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::mrope_qwen3_order
#endif
