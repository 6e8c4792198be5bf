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
  // The rotated channels all within tolerance and some pass-through channel not: the first changed channel and how
  // many.
  r.screen = [](M m) {
    const DumpComparison& e = m.report.comparison;
    const RopeExpectation& expected = m.report.expected;
    const int d = m.source.d();
    if (e.after_non_finite.count > 0 || e.channel_ratio.size() != d) return false;
    std::vector<char> rotated(static_cast<std::size_t>(d), 0);
    for (int i = 0; i < expected.rotary_dim() / 2; ++i) {
      const auto [a, b] = pair_channels(expected, i, true);
      if (!(e.channel_ratio[a] <= 1.0) || !(e.channel_ratio[b] <= 1.0)) return false;
      rotated[static_cast<std::size_t>(a)] = rotated[static_cast<std::size_t>(b)] = 1;
    }
    int first = -1, count = 0;
    for (int ch = 0; ch < d; ++ch) {
      if (rotated[static_cast<std::size_t>(ch)] || e.channel_ratio[ch] <= 1.0) continue;
      if (first < 0) first = ch;
      ++count;
    }
    if (count == 0) return false;
    m.report.diagnosis.matches = known_variant("pass-through-changed");
    m.report.diagnosis.found = {{"channel", first}, {"channels", count}};
    return true;
  };
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::pass_through_changed
#endif
