// positions-scaled: every position multiplied by one constant.
// the dump's θ_j all the expected ones times one constant s (measured), which is positions m turned at s·m
// Corpus rows (tests/cli/corpus_answers.json) that it matches: buggy_kernels/departure,
// diagnosis_2026/positions_doubled.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("positions-scaled",
  R"md(`the dump turns position m at 2·m: every frequency is the expected one times 2 …`)md",
  R"md(the dump measured (identify's engine): every pair's θ_j the expected θ_j times one constant s, a simple fraction where one is within the measurement's error, confirmed over the whole dump (`found.scale`))md",
  R"md(a position scale (a linear factor, a stride) applied where none belongs, or the positions counted in the wrong unit)md")
// clang-format on
#else
namespace rope::variants::positions_scaled {

VariantRow row() {
  VariantRow r;
  r.name = "positions-scaled";
  r.detection = VariantDetection::Measured;
  r.parameters = "scale";
  r.changes = [](E) { return msg("every position multiplied by one constant"); };
  r.says = [](S c) {
    const std::string s = fmt::format("{:.7g}", found_value(c));
    return msg(
        "the dump turns position m at {0}·m: every frequency is the expected one times {0} (a position scale "
        "applied where none belongs, or a linear factor of 1/{0})",
        s);
  };
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::positions_scaled
#endif
