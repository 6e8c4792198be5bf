// text-positions-other: the text tokens from position 0.
// The text tokens of a joint sequence at positions from 0 where the model places them after the image's rows
// and columns (Qwen-Image: from max(H/2, W/2); found "text_start", "expected_start").
// Corpus rows (tests/cli/corpus_answers.json) that it matches: diffusers/mistake_qwenimage_text_start_f32.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("text-positions-other",
  R"md(`matches the text tokens at positions from 0 on every axis, where the model places them from 2, after the image's rows and columns (…)`)md",
  R"md(a joint sequence's text tokens from 0 on every axis (found `text_start` 0, `expected_start`))md",
  R"md(Qwen-Image's text ids started at 0 instead of after the image's centred rows and columns (`QwenEmbedRope.forward`'s `max_vid_index`))md")
// clang-format on
#else
namespace rope::variants::text_positions_other {

/// The text of a joint sequence from 0 on every axis instead of its place after the image (Qwen-Image: from
/// max(H/2, W/2)).
void text_from_zero_build(F f, Out out) {
  const std::vector<AxisPosition>& p = f.dump->positions;
  const long text = leading_text_rows(p);
  if (text == 0 || p.front()[0] == 0) return;
  Variant& v = put(out, f.expected);
  v.text_rows = text;
  v.text_offset = -p.front()[0];
  v.found = {{"text_start", 0.0}, {"expected_start", p.front()[0]}};
}

VariantRow row() {
  VariantRow r;
  r.name = "text-positions-other";
  r.detection = VariantDetection::FromDump;
  r.parameters = "text_start,expected_start";
  r.changes = [](E) { return msg("the text tokens from position 0"); };
  r.says = [](S c) {
    return msg(
        "matches the text tokens at positions from 0 on every axis, where the model places them from {0}, after "
        "the image's rows and columns (Qwen-Image's QwenEmbedRope: max(H/2, W/2) with scale_rope)",
        fmt::format("{:g}", found_value(c, 1)));
  };
  r.from_dump = {qwen_image_positions, text_from_zero_build};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::text_positions_other
#endif
