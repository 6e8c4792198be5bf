// yarn-truncated: YaRN's correction range truncated.
// YaRN's correction range rounded to whole pairs where the config says truncate: false
// Corpus rows (tests/cli/corpus_answers.json) that it matches: buggy_kernels/yarn_truncated.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("yarn-truncated",
  R"md(`matches YaRN's correction range rounded to whole pairs: the config says truncate: false`)md",
  R"md(YaRN with the ramp's ends floored and ceiled)md",
  R"md(an engine that truncates the correction range whatever `truncate` says (vLLM #27722; gpt-oss has `truncate: false`))md")
// clang-format on
#else
namespace rope::variants::yarn_truncated {

VariantRow row() {
  VariantRow r;
  r.name = "yarn-truncated";
  r.detection = VariantDetection::Compared;
  r.parameters = "";
  r.changes = [](E) { return msg("YaRN's correction range truncated"); };
  r.says = [](S) {
    return msg(
        "matches YaRN's correction range rounded to whole pairs: the config says truncate: false, the code "
        "truncates anyway");
  };
  r.from_expectation = {
      [](F f) { return not_fope(f) && f.expected.yarn_truncated_theta.size() == f.expected.theta().size(); },
      [](F f, Out out) { put(out, with_theta(f.expected, f.expected.yarn_truncated_theta)); }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::yarn_truncated
#endif
