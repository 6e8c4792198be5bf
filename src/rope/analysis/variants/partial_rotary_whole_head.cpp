// partial-rotary-whole-head: RoPE over the whole head.
// Corpus rows (tests/cli/corpus_answers.json) that it matches: make_dumps/bug_partial_whole_head,
// diagnosis_2026/transformers_minimax_m2_rotary_dim_dropped.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("partial-rotary-whole-head",
  R"md(`matches RoPE over the whole head (d = 64): the partial rotary dimension 32 is ignored`)md",
  R"md(every channel rotated (`found.rotary_dim`, the head dimension))md",
  R"md(`partial_rotary_factor` / `rotary_pct` not read; transformers issue #48241: MiniMaxM2Config kept the checkpoints' legacy `rotary_dim` (64 of 128) as an opaque attribute, so the whole head turned at 5e6^(−2i/128) (seen on transformers 5.17.0 itself; fixed by PR #48486))md")
// clang-format on
#else
namespace rope::variants::partial_rotary_whole_head {

VariantRow row() {
  VariantRow r;
  r.name = "partial-rotary-whole-head";
  r.detection = VariantDetection::Compared;
  r.parameters = "rotary_dim";
  r.changes = [](E) { return msg("RoPE over the whole head"); };
  r.says = [](S c) {
    return msg("matches RoPE over the whole head (d = {0}): the partial rotary dimension {1} is ignored",
               c.expected.rope.head_dim, c.expected.rotary_dim());
  };
  r.from_expectation = {
      partial, [](F f, Out out) {
        const int d = f.expected.rope.head_dim;
        Variant& v = put(out, at_zero(f.expected, d));
        v.found = {{"rotary_dim", d}};
        v.difference = {{"rotary_dim", static_cast<double>(f.expected.rotary_dim()), static_cast<double>(d)}};
      }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::partial_rotary_whole_head
#endif
