// axis-not-centred: rows and columns from 0, not centred.
// Rows and columns counted from 0 where the model centres them (Qwen-Image's scale_rope; found the centred
// start of each, "h_start", "w_start").
// Corpus rows (tests/cli/corpus_answers.json) that it matches: diffusers/mistake_qwenimage_not_centred_f32.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("axis-not-centred",
  R"md(`matches rows and columns counted from 0 where the model centres them, the rows from -3 and the columns from -2, and its text after them: is scale_rope read? (Qwen-Image's QwenEmbedRope)`)md",
  R"md(the image's rows and columns from 0 and the text from max(H, W), where `scale_rope` centres them (found `h_start`, `w_start`: the centred first row and column))md",
  R"md(a port of Qwen-Image's `QwenEmbedRope` without `scale_rope` (transformer_qwenimage.py), or positions built as Flux's)md")
// clang-format on
#else
namespace rope::variants::axis_not_centred {

/// Qwen-Image without scale_rope (transformer_qwenimage.py QwenEmbedRope.forward, the port's centred=False): the rows
/// and columns from 0 instead of from −(H − H/2) and −(W − W/2), and the text from max(H, W) instead of
/// max(H/2, W/2).
void not_centred_build(F f, Out out) {
  const std::vector<AxisPosition>& p = f.dump->positions;
  const long text = leading_text_rows(p);
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (std::size_t s = static_cast<std::size_t>(text); s < p.size(); ++s) {
    for (int k = 1; k < 3; ++k) lo[k] = std::min(lo[k], p[s][k]), hi[k] = std::max(hi[k], p[s][k]);
  }
  if (!(lo[1] < 0 || lo[2] < 0)) return;  // nothing centred
  Variant& v = put(out, f.expected);
  v.axis_offset = {0.0, -lo[1], -lo[2], 0.0};
  if (text > 0) {
    const double h = hi[1] - lo[1] + 1, w = hi[2] - lo[2] + 1;
    v.text_rows = text;
    v.text_offset = std::max(h, w) - std::max(std::floor(h / 2), std::floor(w / 2));
  }
  v.found = {{"h_start", lo[1]}, {"w_start", lo[2]}};
}

VariantRow row() {
  VariantRow r;
  r.name = "axis-not-centred";
  r.detection = VariantDetection::FromDump;
  r.parameters = "h_start,w_start";
  r.changes = [](E) { return msg("rows and columns from 0, not centred"); };
  r.says = [](S c) {
    return msg(
        "matches rows and columns counted from 0 where the model centres them, the rows from {0} and the columns "
        "from {1}, and its text after them: is scale_rope read? (Qwen-Image's QwenEmbedRope)",
        fmt::format("{:g}", found_value(c, 0)), fmt::format("{:g}", found_value(c, 1)));
  };
  r.from_dump = {qwen_image_positions, not_centred_build};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::axis_not_centred
#endif
