// partial-rotary-whole-head: RoPE over the whole head.
// Corpus rows (tests/cli/corpus_answers.json) that it matches: make_dumps/bug_partial_whole_head.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("partial-rotary-whole-head",
  R"md(`matches RoPE over the whole head (d = 64): the partial rotary dimension 32 is ignored`)md",
  R"md(every channel rotated)md",
  R"md(`partial_rotary_factor` / `rotary_pct` not read)md")
// clang-format on
#else
namespace rope::variants::partial_rotary_whole_head {

VariantRow row() {
  VariantRow r;
  r.name = "partial-rotary-whole-head";
  r.detection = VariantDetection::Compared;
  r.parameters = "";
  r.changes = [](E) { return msg("RoPE over the whole head"); };
  r.says = [](S c) {
    return msg("matches RoPE over the whole head (d = {0}): the partial rotary dimension {1} is ignored",
               c.expected.rope.head_dim, c.expected.rotary_dim());
  };
  r.from_expectation = {partial, [](F f, Out out) { put(out, at_zero(f.expected, f.expected.rope.head_dim)); }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::partial_rotary_whole_head
#endif
