// rotary-offset-other: the rotated channels at another offset.
// The rotated block at another offset in the head: rotary channels [o, o + r) where the spec has them elsewhere
// (DeepSeek's q = cat(q_nope, q_pe) rotates the last r; a kernel rotating the first r): found "offset".
// Corpus rows (tests/cli/corpus_answers.json) that it matches: buggy_kernels/deepseek2_first,
// buggy_kernels/deepseek2_middle, buggy_kernels/rotary_block_overlapping, deepseek_v4/bug_first_channels_f32,
// deepseek_v4/bug_main_first_channels_f32.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("rotary-offset-other",
  R"md(`matches the 64 rotated channels at 0–63 (offset 0) instead of 128–191`)md",
  R"md(the rotated block elsewhere in the head: at its end where the spec has it first, first where the spec has it after pass-through channels, or from the first channel outside the spec's block that the dump changed (`found.offset`))md",
  R"md(the rope part taken from the wrong place: DeepSeek's q = cat(q_nope, q_pe) rotates its last `qk_rope_head_dim` channels (`rope identify` on such a dump: "interleaved pairs on the last 64 channels (offset 128)"), a partial rotary head its first)md")
// clang-format on
#else
namespace rope::variants::rotary_offset_other {

Message offset_says(S c) {
  const int r = c.expected.rotary_dim(), off = static_cast<int>(found_value(c));
  return msg(
      "matches the {0} rotated channels at {1}–{2} (offset {3}) instead of {4}–{5}: the rotary part is taken from the "
      "wrong place in the head (DeepSeek's q = cat(q_nope, q_pe) rotates its last {0} channels, a partial rotary head "
      "its first {0})",
      r, off, off + r - 1, off, c.expected.rope.rotary_offset, c.expected.rope.rotary_offset + r - 1);
}

/// The rotated block where the dump has it, as identify finds it (the channels that change, identify.hpp step 1):
/// where the dump's changed channels begin, read from the channels outside the spec's block that the dump changed
/// (those the expectation copies and the dump does not): the first of them when they lie before the spec's block,
/// else the block of the rotary dimension that ends at the last of them (a block overlapping the spec's, channels
/// 8…23 for a spec of 0…15, changes 16…23 outside it), when it fits and the row's from_expectation does not try that
/// offset already (the head's end, or 0).
bool offset_shown_applies(F f) {
  const RopeExpectation& e = f.expected;
  return dump_shown(f) && !e.rope.axes && !e.rope.axis_blocks && e.rotary_dim() < f.dump->d &&
         f.dump->comparison.channel_ratio.size() == f.dump->d;
}

void offset_shown_build(F f, Out out) {
  const RopeExpectation& e = f.expected;
  const int r = e.rotary_dim(), off = e.rope.rotary_offset, d = f.dump->d;
  const Eigen::VectorXd& ratio = f.dump->comparison.channel_ratio;
  int lowest = -1, highest = -1;
  for (int ch = 0; ch < d; ++ch) {
    if ((ch >= off && ch < off + r) || ratio[ch] <= 1.0) continue;
    if (lowest < 0) lowest = ch;
    highest = ch;
  }
  if (lowest < 0) return;
  const int first = lowest < off ? lowest : highest + 1 - r;
  if (first < 0 || first == off || first + r > d || first == (off == 0 ? d - r : 0)) return;
  Variant& v = put(out, e);
  v.spec.rope.rotary_offset = first;
  v.found = {{"offset", first}};
}

VariantRow row() {
  VariantRow r;
  r.name = "rotary-offset-other";
  r.detection = VariantDetection::Compared;
  r.parameters = "offset";
  r.changes = [](E) { return msg("the rotated channels at another offset"); };
  r.says = offset_says;
  r.from_expectation = {[](F f) { return partial(f) && !f.expected.rope.axis_blocks; },
                        // At its end where the spec has it first (DeepSeek's q = cat(q_nope, q_pe) rotates the last r
                        // channels), or first where the spec has it at an offset.
                        [](F f, Out out) {
                          RopeExpectation s = f.expected;
                          s.rope.rotary_offset = f.expected.rope.rotary_offset == 0
                                                     ? f.expected.rope.head_dim - f.expected.rotary_dim()
                                                     : 0;
                          put(out, s).found = {{"offset", s.rope.rotary_offset}};
                        }};
  r.from_dump = {offset_shown_applies, offset_shown_build};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::rotary_offset_other
#endif
