// mrope-ignored: plain RoPE at each token's index in the sequence.
// M-RoPE never applied: plain RoPE at the sequence index (1-D positions)
// Corpus rows (tests/cli/corpus_answers.json) that it matches: make_dumps/bug_mrope_ignored.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("mrope-ignored",
  R"md(`matches plain RoPE at each token's index in the sequence: the M-RoPE branch is never reached`)md",
  R"md(1-D positions for every token)md",
  R"md(a config with `rope_type: default` beside `mrope_section` taking the text path (ml-explore/mlx-lm PR #1768))md")
// clang-format on
#else
namespace rope::variants::mrope_ignored {

VariantRow row() {
  VariantRow r;
  r.name = "mrope-ignored";
  r.detection = VariantDetection::Compared;
  r.parameters = "";
  r.changes = [](E) { return msg("plain RoPE at each token's index in the sequence"); };
  r.says = [](S) {
    return msg(
        "matches plain RoPE at each token's index in the sequence: the M-RoPE branch is never reached (1-D "
        "positions; a config whose rope_type is default beside mrope_section?)");
  };
  r.from_expectation = {[](F f) { return has_axes(f) && !f.expected.rope.axes->vision(); },
                        [](F f, Out out) {
                          RopeExpectation s = f.expected;
                          s.rope.axes.reset();
                          put(out, s).sequence_index = true;
                        }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::mrope_ignored
#endif
