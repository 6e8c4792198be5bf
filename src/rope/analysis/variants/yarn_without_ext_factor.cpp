// yarn-without-ext-factor: YaRN without ext_factor (linear interpolation, no ramp, no magnitude).
// YaRN run without ext_factor: θ/f at every pair, no ramp, no magnitude (llama.cpp ext_factor 0)
// Corpus rows (tests/cli/corpus_answers.json) that it matches: none.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("yarn-without-ext-factor",
  R"md(`matches linear interpolation by 4 at every pair, without YaRN's ramp and magnitude`)md",
  R"md(θ_i/f at every pair, attention factor 1)md",
  R"md(YaRN run without `ext_factor` (llama.cpp's `yarn_ext_factor` 0: ggml's `rope_yarn` then skips the ramp and the magnitude 1 + 0.1·ln f))md")
// clang-format on
#else
namespace rope::variants::yarn_without_ext_factor {

VariantRow row() {
  VariantRow r;
  r.name = "yarn-without-ext-factor";
  r.detection = VariantDetection::Compared;
  r.parameters = "";
  r.changes = [](E) { return msg("YaRN without ext_factor (linear interpolation, no ramp, no magnitude)"); };
  r.says = [](S c) {
    return msg(
        "matches linear interpolation by {0} at every pair, without YaRN's ramp and magnitude: YaRN run without "
        "ext_factor (llama.cpp: yarn_ext_factor 0)",
        fmt::format("{:g}", c.expected.yarn_factor));
  };
  r.from_expectation = {[](F f) { return not_fope(f) && f.expected.yarn_factor > 1; },
                        // ggml's rope_yarn with ext_factor 0 interpolates every pair linearly, θ_i/f, and leaves out
                        // its magnitude 1 + 0.1·ln f (ggml/src/ggml-cpu/ops.cpp rope_yarn).
                        [](F f, Out out) {
                          const RopeExpectation& e = f.expected;
                          RopeExpectation s = with_theta(e, ladder_theta(e.base(), e.rotary_dim()) / e.yarn_factor);
                          s.rope.params.attention_factor = 1.0;
                          put(out, s);
                        }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::yarn_without_ext_factor
#endif
