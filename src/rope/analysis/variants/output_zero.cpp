// output-zero: every element 0.
// every element of the dump after is 0 (a gradient that was never written)
// Corpus rows (tests/cli/corpus_answers.json) that it matches: none.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("output-zero",
  R"md(`every element of the gradient is 0: the backward never wrote it`)md",
  R"md(0 everywhere (a `--grad` check))md",
  R"md(no backward (candle #3568: fused `rope`, `rope_i`, `rope_thd`); [the modes](#modes-the-backward---grad-and-a-k-cache-shifted-in-place---shift) above)md")
// clang-format on
#else
namespace rope::variants::output_zero {

VariantRow row() {
  VariantRow r;
  r.name = "output-zero";
  r.detection = VariantDetection::Compared;
  r.parameters = "";
  r.changes = [](E) { return msg("every element 0"); };
  r.says = [](S) {
    return msg(
        "every element of the gradient is 0: the backward never wrote it (a fused RoPE without a backward, or "
        "its result dropped)");
  };
  r.from_expectation = {[](F f) { return not_fope(f) && f.expected.mode == CheckMode::Grad; },
                        [](F f, Out out) { put(out, f.expected).zero = true; }};
  // In a gradient: every head 0 (its mode's measurement, GradientParts), or the forward diagnosis's norm scaled by 0.
  r.in_mode = [](M m) {
    const GradientParts* p = m.gradient;
    if (p != nullptr && !p->failing.empty() && static_cast<long>(p->failing.size()) == p->groups && p->zero_passes)
      return name_in_mode(m, "output-zero", {});
    CheckDiagnosis& dg = m.report.diagnosis;
    if (m.report.expected.mode != CheckMode::Grad || !diagnosis_names(m, "norm-scaled") ||
        found_or(dg.found, "factor", 1.0) != 0)
      return false;
    dg.matches = known_variant("output-zero");
    dg.found.clear();
    return true;
  };
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::output_zero
#endif
