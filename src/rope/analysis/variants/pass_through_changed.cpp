// pass-through-changed: pass-through channels changed.
// Corpus rows (tests/cli/corpus_answers.json) that it matches: buggy_kernels/pass_through.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("pass-through-changed",
  R"md(`the rotated channels match, but pass-through channels changed (1, the first: channel 37)`)md",
  R"md(the expected RoPE on the rotated channels, the pass-through channels not as they were (`found.channel`, `found.channels`))md",
  R"md(a fused kernel that ignores `rotary_dim`, rotating or writing beyond it (vLLM PR #43676, GLM-4.7 with partial 0.5))md")
// clang-format on
#else
namespace rope::variants::pass_through_changed {

VariantRow row() {
  VariantRow r;
  r.kind = VariantKind::PassThroughChanged;
  r.name = "pass-through-changed";
  r.detection = VariantDetection::Screened;
  r.parameters = "channel,channels";
  r.changes = [](E) { return msg("pass-through channels changed"); };
  r.says = [](S c) {
    return msg(
        "the rotated channels match, but pass-through channels changed ({0}, the first: channel {1}), which RoPE "
        "leaves as they are: the kernel writes beyond the rotary dimension {2} (a fused kernel that ignores "
        "rotary_dim)",
        static_cast<int>(found_value(c, 1)), static_cast<int>(found_value(c)), c.expected.rotary_dim());
  };
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::pass_through_changed
#endif
