// channels-zeroed: a channel range 0.
// a channel range 0 in every vector, the others right (found "channel", "channels")
// Corpus rows (tests/cli/corpus_answers.json) that it matches: none.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("channels-zeroed",
  R"md(`the gradient is 0 on channels 8–15 (8 channels) of every vector and right on the others`)md",
  R"md(one channel range 0 in every vector (a `--grad` check, `found.channel`, `found.channels`))md",
  R"md(a kernel writing part of the head; [the modes](#modes-the-backward---grad-and-a-k-cache-shifted-in-place---shift) above)md")
// clang-format on
#else
namespace rope::variants::channels_zeroed {

VariantRow row() {
  VariantRow r;
  r.name = "channels-zeroed";
  r.detection = VariantDetection::InMode;
  r.parameters = "channel,channels";
  r.changes = [](E) { return msg("a channel range 0"); };
  r.says = [](S c) {
    const int first = static_cast<int>(found_value(c, 0)), count = static_cast<int>(found_value(c, 1));
    return msg(
        "the gradient is 0 on channels {0}–{1} ({2} channels) of every vector and right on the others: "
        "that part of the head was never written",
        first, first + count - 1, count);
  };
  // Every head fails on one channel range alone, 0 there (its mode's measurement, GradientParts).
  r.in_mode = [](M m) {
    if (!every_head_fails_on_channels(m) || !m.gradient->channels_zero) return false;
    return name_in_mode(m, "channels-zeroed", {{"channel", m.gradient->channel}, {"channels", m.gradient->channels}});
  };
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::channels_zeroed
#endif
