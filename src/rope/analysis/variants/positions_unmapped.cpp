// positions-unmapped: LTX's fractional positions g turned as they are, not mapped to 2g − 1.
// LTX-Video's and LTX-2's angle is ω_k·(2g − 1), g the patch's place as a fraction of the base grid; the mistake
// turns by ω_k·g (models/grid_rope.hpp (G4), (G6)).
// Corpus rows (tests/cli/corpus_answers.json) that it matches: ltx2_rope/mistake_ltx2_positions_g_f32.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("positions-unmapped",
  R"md(`matches the fractions g = (p + 1)/2 turned as they are, where LTX-2 turns by 2g − 1 …`)md",
  R"md(LTX's positions taken as the fraction g of the base grid instead of 2g − 1 ∈ [−1, 1]: every component p read as (p + 1)/2)md",
  R"md(a port of LTX-Video's or LTX-2's RoPE that leaves out `grid * 2 - 1` (transformer_ltx.py:266, transformer_ltx2.py:1038))md")
// clang-format on
#else
namespace rope::variants::positions_unmapped {

VariantRow row() {
  VariantRow r;
  r.name = "positions-unmapped";
  r.detection = VariantDetection::Compared;
  r.parameters = "";
  r.changes = [](E) { return msg("the fractions g turned as they are, not 2g − 1"); };
  r.says = [](S c) {
    return msg(
        "matches the fractions g = (p + 1)/2 turned as they are, where {0} turns by 2g − 1 (the positions given): "
        "is `grid * 2 - 1` left out? (transformer_ltx.py:266, transformer_ltx2.py:1038)",
        c.expected.rope.name);
  };
  r.from_expectation = {[](F f) {
                          // LTX's per-frequency interleave (G4), (G6): its positions are 2g − 1
                          return has_axes(f) && f.expected.rope.axes->grid() && f.expected.rope.axes->per_frequency;
                        },
                        [](F f, Out out) {
                          // the map turns by θ · (s_a · p + o) (axis_angles); the mistake by half of that plus
                          // θ/2: θ · ((s_a · p + o) + 1)/2, = θ · g where s_a = 1 and o = 0
                          RopeExpectation s = f.expected;
                          for (double& a : s.rope.axes->scale) a *= 0.5;
                          s.rope.axes->position_offset = 0.5 * (s.rope.axes->position_offset + 1.0);
                          put(out, std::move(s));
                        }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::positions_unmapped
#endif
