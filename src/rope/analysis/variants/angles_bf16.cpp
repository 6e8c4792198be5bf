// angles-bf16: angles computed in bf16.
// Corpus rows (tests/cli/corpus_answers.json) that it matches: diffusers/mistake_ltx_angles_bf16,
// diagnosis_2026/candle_phi3_table_bf16.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("angles-bf16 angles-f16",
  R"md(`correct until position 69, then drifts: angles computed in bf16?`)md",
  R"md(positions and θ rounded to bfloat16 before m·θ)md",
  R"md(the cos/sin table built in the model dtype; bfloat16 holds every integer only up to 256 (docs/precision.md))md")
// clang-format on
#else
namespace rope::variants::angles_bf16 {

VariantRow row() {
  VariantRow r;
  r.name = "angles-bf16";
  r.detection = VariantDetection::Compared;
  r.parameters = "";
  r.changes = [](E) { return msg("angles computed in {0}", "bf16"); };
  r.says = [](S c) { return angles_in(c, "bf16"); };
  r.from_expectation = {
      not_fope, [](F f, Out out) {
        Variant& v = put(out, f.expected, 0.0, DType::BF16);
        // LTX-Video's chain (transformer_ltx.py:217-233): m = (g·s·p/b)·2 − 1, five roundings, and ω = base^lin·π/2,
        // three, each within ε/2 of its value; m's are relative to |2g| ≤ |m| + 1. Eight half-units, 4ε·(|m| + 1)·θ.
        if (f.expected.rope.axes && f.expected.rope.axes->grid() && f.expected.rope.axes->per_frequency)
          v.angle_chain_units = 4;
      }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::angles_bf16
#endif
