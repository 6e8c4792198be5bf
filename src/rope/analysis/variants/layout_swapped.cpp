// layout-swapped: the other pairing: (2j, 2j+1) against (j, j + d/2).
// Corpus rows (tests/cli/corpus_answers.json) that it matches: deepseek_v4/bug_half_pairs_f32,
// gemma4_vision/bug_interleaved_in_blocks_f64, make_dumps/bug_layout_swapped.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("layout-swapped",
  R"md(`matches the interleaved layout; the spec implies half` (or the reverse))md",
  R"md(the other pairing: (2j, 2j+1) against (j, j + d/2))md",
  R"md(a kernel hard-coding one pairing (vllm-ascend #12765); q/k not (un)permuted when converting between HF and GGUF (karpathy/llama2.c PR #286))md")
// follows layout-swapped: some heads in the other layout
ROPE_VARIANT_DOC("",
  R"md(`heads 2, 3 match the interleaved layout while the others match half`)md",
  R"md(some heads in the other pairing)md",
  R"md(the GQA permutation done with the wrong number of heads (llama.cpp #2376, #3018; transformers #31766))md")
// clang-format on
#else
namespace rope::variants::layout_swapped {

VariantRow row() {
  VariantRow r;
  r.name = "layout-swapped";
  r.detection = VariantDetection::Compared;
  r.parameters = "";
  r.changes = [](E e) {
    return e.rope.layout == Layout::Half ? msg("the interleaved layout") : msg("the half layout");
  };
  // The layouts by the glossary's names (po/glossary.md): one sentence per order, so that no layout is an English
  // word in a field of a Chinese sentence.
  r.says = [](S c) {
    return c.expected.rope.layout == Layout::Half ? msg("matches the interleaved layout; the spec implies half")
                                                  : msg("matches the half layout; the spec implies interleaved");
  };
  r.from_expectation = {always, [](F f, Out out) {
                          RopeExpectation s = f.expected;
                          s.rope.layout = f.expected.rope.layout == Layout::Half ? Layout::Interleaved : Layout::Half;
                          if (!f.expected.fope)
                            s.rope.deinterleaved_output = false;  // the other layout, read and written in place
                          put(out, s);
                        }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::layout_swapped
#endif
