// axis-positions-scaled: the time positions × 24/16 (Cosmos's fps modulation).
// A diffusion transformer's time positions scaled by base_fps / fps = 24 / 16, Cosmos's fps modulation
// applied where the released Predict2 checkpoints disable it (diffusers #14768; found "scale").
// Corpus rows (tests/cli/corpus_answers.json) that it matches: diffusers/mistake_cosmos_fps16_bf16,
// diffusers/mistake_cosmos_fps16_f32.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("axis-positions-scaled",
  R"md(`matches the time positions scaled by 1.5 (Cosmos's fps modulation, base_fps / fps = 24 / 16, diffusers #14768)`)md",
  R"md(a diffusion transformer's time positions × 24/16 (grid_rope.hpp (G1) with s_t = 1.5), the scale in `found.scale`)md",
  R"md(diffusers' Cosmos2VideoToWorldPipeline passes fps 16, so CosmosRotaryPosEmbed scales t by base_fps / fps, where the released Predict2 checkpoints disable the modulation (diffusers #14768))md")
// clang-format on
#else
namespace rope::variants::axis_positions_scaled {

VariantRow row() {
  VariantRow r;
  r.name = "axis-positions-scaled";
  r.detection = VariantDetection::Compared;
  r.parameters = "scale";
  r.changes = [](E) { return msg("the time positions × 24/16 (Cosmos's fps modulation)"); };
  r.says = [](S c) {
    return msg(
        "matches the time positions scaled by {0} (Cosmos's fps modulation, base_fps / fps = 24 / 16, "
        "diffusers #14768): does the pipeline pass fps to a checkpoint that disables the modulation?",
        fmt::format("{:g}", found_value(c)));
  };
  r.from_expectation = {[](F f) {
                          // models/grid_rope.hpp: CosmosRotaryPosEmbed.forward, t / fps · base_fps
                          // (transformer_cosmos.py:512), with the Video2World pipeline's fps 16
                          // (pipeline_cosmos2_video2world.py:498)
                          return f.expected.rope.model_type == "CosmosTransformer3DModel" && f.expected.rope.axes &&
                                 f.expected.rope.axes->grid();
                        },
                        [](F f, Out out) {
                          RopeExpectation s = f.expected;
                          s.rope.axes->scale[0] = 24.0 / 16.0;
                          put(out, std::move(s)).found = {{"scale", 24.0 / 16.0}};
                        }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::axis_positions_scaled
#endif
