// expected: RoPE as specified.
// Corpus rows (tests/cli/corpus_answers.json) that it matches: none.
#ifdef ROPE_VARIANT_DOCS
#else
namespace rope::variants::expected {

VariantRow row() {
  VariantRow r;
  r.name = "expected";
  r.detection = VariantDetection::Compared;
  r.parameters = "";
  r.changes = [](E) { return msg("RoPE as specified"); };
  r.says = [](S) { return Message{}; };
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::expected
#endif
