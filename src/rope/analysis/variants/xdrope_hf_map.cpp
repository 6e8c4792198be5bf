// xdrope-hf-map: xdrope_section in HF's XD-RoPE map.
// HunyuanVL's two XD-RoPE maps of the same xdrope_section (docs/multi-axis.md (A11)), found "pair"
// (the first pair one of whose channels reads another stream): HF's doubled sections where the model's code repeats the
// list (Tencent's, mlx-vlm's), and the other way.
// Corpus rows (tests/cli/corpus_answers.json) that it matches: hunyuan_xdrope/hf_as_tencent.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("xdrope-tencent-map xdrope-hf-map",
  R"md(`matches xdrope_section [16, 16, 16, 16] in Tencent's XD-RoPE map (the list repeated: both channels of a pair on one stream, as mlx-vlm too), where the model doubles each section as HF's code does: the maps part at pair 0` (or the reverse))md",
  R"md(HunyuanVL's other XD-RoPE map, (A11) of docs/multi-axis.md (JSON `xdrope-tencent-map`, `xdrope-hf-map`, found `pair`: the first pair one of whose channels reads another stream, 0 for [16, 16, 16, 16]))md",
  R"md(a HunyuanVL dump written by Tencent's or mlx-vlm's code checked as HF's (the config's default), or the reverse: `--xdrope-map tencent` or `hf` passes it; tests/reference/hunyuan_xdrope.py ports both codes and tests/cli/check_hunyuan_xdrope.py checks each dump both ways; `rope identify` names the dump's map without the config, at the same pair (`xdrope.map`, `xdrope.parts_at`))md")
// clang-format on
#else
namespace rope::variants::xdrope_hf_map {

VariantRow row() {
  VariantRow r;
  r.name = "xdrope-hf-map";
  r.detection = VariantDetection::Compared;
  r.parameters = "pair";
  r.changes = [](E) { return msg("xdrope_section in HF's XD-RoPE map"); };
  r.says = [](S c) { return xdrope_map_in(c, true); };
  r.from_expectation = {
      [](F f) { return has_axes(f) && f.expected.rope.axes->xdrope() && !axes_order(f, SectionOrder::XdropeHf); },
      [](F f, Out out) { order_other(f, out, SectionOrder::XdropeHf); }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::xdrope_hf_map
#endif
