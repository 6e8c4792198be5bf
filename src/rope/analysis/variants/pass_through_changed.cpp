// pass-through-changed: pass-through channels changed.
// the rotated channels right, the pass-through channels (beyond rotary_dim) changed
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
  r.says_in_mode = [](S c) {
    const RopeExpectation& e = c.expected;
    if (e.mode == CheckMode::Grad) {
      return msg(
          "the rotated channels' gradient matches, but the gradient of pass-through channels changed "
          "({0}, the first: channel {1}): beyond the rotary dimension {2} the gradient passes through "
          "unchanged",
          static_cast<long>(found_or(c, "channels", 0)), static_cast<long>(found_or(c, "channel", 0)), e.rotary_dim());
    }
    if (e.mode == CheckMode::Shift || e.mode == CheckMode::ShiftMap) {
      return msg(
          "the shift is right on the rotated channels but changed pass-through channels ({0}, the "
          "first: channel {1}): the shift turned channels beyond the rotary dimension {2}, which no shift "
          "touches",
          static_cast<long>(found_or(c, "channels", 0)), static_cast<long>(found_or(c, "channel", 0)), e.rotary_dim());
    }
    return Message{};
  };
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::pass_through_changed
#endif
