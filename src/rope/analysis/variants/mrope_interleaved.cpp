// mrope-interleaved: mrope_section interleaved.
// M-RoPE: the interleaved map (A3) where the model chunks (A2)
// Corpus rows (tests/cli/corpus_answers.json) that it matches: none.
#ifdef ROPE_VARIANT_DOCS
#else
namespace rope::variants::mrope_interleaved {

VariantRow row() {
  VariantRow r;
  r.name = "mrope-interleaved";
  r.detection = VariantDetection::Compared;
  r.parameters = "";
  r.changes = [](E) { return msg("mrope_section interleaved"); };
  r.says = [](S c) { return sections_in(c, false); };
  r.from_expectation = {[](F f) { return axes_order(f, SectionOrder::Chunked); },
                        [](F f, Out out) { sections_other(f, out, SectionOrder::Interleaved); }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::mrope_interleaved
#endif
