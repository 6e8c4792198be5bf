// axis-scale-ignored: Kandinsky 5's scale_factor not applied.
// Kandinsky 5's rows and columns turned without the division by the pipeline's scale_factor (the image pipeline's
// (1, 1, 1) on a video, or a port that drops the argument; found "scale").
// Corpus rows (tests/cli/corpus_answers.json) that it matches: diffusers_2026/mistake_kandinsky5_scale_ignored_bf16.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("axis-scale-ignored",
  R"md(`matches rows and columns turned without Kandinsky 5's scale_factor 3.16: is the pipeline's scale_factor passed to the transformer?`)md",
  R"md(Kandinsky 5's h and w positions × scale_factor (2 or 3.16, the video pipeline's), where Kandinsky5RoPE3D divides the angles by it (grid_rope.hpp (G1) with s_h = s_w = the factor); the factor in `found.scale`)md",
  R"md(the transformer called with scale_factor (1, 1, 1), the image pipeline's, for a video, or a port of Kandinsky5RoPE3D.forward without its scale_factor argument (transformer_kandinsky.py:242-246))md")
// clang-format on
#else
namespace rope::variants::axis_scale_ignored {

VariantRow row() {
  VariantRow r;
  r.name = "axis-scale-ignored";
  r.detection = VariantDetection::Compared;
  r.parameters = "scale";
  r.changes = [](E) { return msg("Kandinsky 5's scale_factor not applied"); };
  r.says = [](S c) {
    return msg(
        "matches rows and columns turned without Kandinsky 5's scale_factor {0}: is the pipeline's scale_factor "
        "passed to the transformer?",
        fmt::format("{:g}", found_value(c)));
  };
  r.from_expectation = {[](F f) { return grid_of(f.expected, "Kandinsky5Transformer3DModel"); },
                        [](F f, Out out) {
                          // Kandinsky5T2VPipeline._get_scale_factor's two values (pipeline_kandinsky.py:222-224)
                          for (const double s : {2.0, 3.16}) {
                            RopeExpectation e = f.expected;
                            e.rope.axes->scale[1] = s;
                            e.rope.axes->scale[2] = s;
                            put(out, std::move(e)).found = {{"scale", s}};
                          }
                        }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::axis_scale_ignored
#endif
