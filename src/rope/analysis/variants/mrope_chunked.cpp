// mrope-chunked: mrope_section in chunks.
// M-RoPE: HF's chunked map (A2) where the model interleaves (A3) or alternates as Bailing (A9)
// Corpus rows (tests/cli/corpus_answers.json) that it matches: make_dumps/bug_mrope_chunked,
// make_dumps/bug_bailing_chunked.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("mrope-chunked mrope-interleaved",
  R"md(`matches mrope_section [24, 20, 20] in chunks, the model's code interleaves them` (or the reverse))md",
  R"md(HF's other M-RoPE map, (A2) against (A3); the chunks (A2) against Bailing's map (A9) too)md",
  R"md(a Qwen3-VL port reusing Qwen2-VL's `apply_multimodal_rotary_pos_emb`, or the reverse; a Ling/Ming port that chunks the sections as Qwen2-VL does)md")
// clang-format on
#else
namespace rope::variants::mrope_chunked {

VariantRow row() {
  VariantRow r;
  r.name = "mrope-chunked";
  r.detection = VariantDetection::Compared;
  r.parameters = "";
  r.changes = [](E) { return msg("mrope_section in chunks"); };
  r.says = [](S c) { return sections_in(c, true); };
  r.from_expectation = {
      [](F f) { return axes_order(f, SectionOrder::Interleaved) || axes_order(f, SectionOrder::Bailing); },
      [](F f, Out out) { sections_other(f, out, SectionOrder::Chunked); }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::mrope_chunked
#endif
