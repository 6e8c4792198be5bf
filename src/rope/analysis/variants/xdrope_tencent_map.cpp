// xdrope-tencent-map: xdrope_section in Tencent's XD-RoPE map.
// Corpus rows (tests/cli/corpus_answers.json) that it matches: hunyuan_xdrope/tencent_as_default,
// hunyuan_xdrope/tencent_as_hf.
#ifdef ROPE_VARIANT_DOCS
#else
namespace rope::variants::xdrope_tencent_map {

VariantRow row() {
  VariantRow r;
  r.name = "xdrope-tencent-map";
  r.detection = VariantDetection::Compared;
  r.parameters = "pair";
  r.changes = [](E) { return msg("xdrope_section in Tencent's XD-RoPE map"); };
  r.says = [](S c) { return xdrope_map_in(c, false); };
  r.from_expectation = {
      [](F f) { return has_axes(f) && f.expected.rope.axes->xdrope() && axes_order(f, SectionOrder::XdropeHf); },
      [](F f, Out out) { order_other(f, out, SectionOrder::XdropeTencent); }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::xdrope_tencent_map
#endif
