// partial-rotary-twice: the partial rotary factor applied twice.
// Corpus rows (tests/cli/corpus_answers.json) that it matches: make_dumps/bug_partial_twice.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("partial-rotary-twice",
  R"md(`matches a rotary dimension of 16 instead of 32: the partial rotary factor is applied twice`)md",
  R"md(a smaller rotary dimension)md",
  R"md(the factor multiplied in twice (vLLM PR #30384, lmdeploy PR #3861))md")
// clang-format on
#else
namespace rope::variants::partial_rotary_twice {

/// The partial rotary factor applied twice: r·r/d rotated (even), where that is a smaller rotary dimension.
int twice_dim(E e) {
  return 2 * static_cast<int>(static_cast<double>(e.rotary_dim()) * e.rotary_dim() / e.rope.head_dim / 2.0);
}

VariantRow row() {
  VariantRow r;
  r.name = "partial-rotary-twice";
  r.detection = VariantDetection::Compared;
  r.parameters = "";
  r.changes = [](E) { return msg("the partial rotary factor applied twice"); };
  r.says = [](S c) {
    const int r = c.expected.rotary_dim();
    return msg("matches a rotary dimension of {0} instead of {1}: the partial rotary factor is applied twice",
               2 * static_cast<int>(static_cast<double>(r) * r / c.expected.rope.head_dim / 2.0), r);
  };
  r.from_expectation = {
      [](F f) { return partial(f) && twice_dim(f.expected) >= 2 && twice_dim(f.expected) < f.expected.rotary_dim(); },
      [](F f, Out out) { put(out, at_zero(f.expected, twice_dim(f.expected))); }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::partial_rotary_twice
#endif
