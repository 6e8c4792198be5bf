// inv-freq-f16: inv_freq rounded to f16, m·θ in float32.
// Corpus rows (tests/cli/corpus_answers.json) that it matches: buggy_kernels/inv_freq_f16.
#ifdef ROPE_VARIANT_DOCS
#else
namespace rope::variants::inv_freq_f16 {

VariantRow row() {
  VariantRow r;
  r.name = "inv-freq-f16";
  r.detection = VariantDetection::Compared;
  r.parameters = "";
  r.changes = [](E) { return msg("inv_freq rounded to {0}, m·θ in float32", "f16"); };
  r.says = [](S) { return inv_freq_in("f16"); };
  r.from_expectation = {not_fope, [](F f, Out out) { inv_freq_rounded(f, out, DType::F16); }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::inv_freq_f16
#endif
