// angles-f16: angles computed in f16.
// Corpus rows (tests/cli/corpus_answers.json) that it matches: none.
#ifdef ROPE_VARIANT_DOCS
#else
namespace rope::variants::angles_f16 {

VariantRow row() {
  VariantRow r;
  r.name = "angles-f16";
  r.detection = VariantDetection::Compared;
  r.parameters = "";
  r.changes = [](E) { return msg("angles computed in {0}", "f16"); };
  r.says = [](S c) { return angles_in(c, "f16"); };
  r.from_expectation = {not_fope, [](F f, Out out) { put(out, f.expected, 0.0, DType::F16); }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::angles_f16
#endif
