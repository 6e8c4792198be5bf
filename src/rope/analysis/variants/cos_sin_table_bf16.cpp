// cos-sin-table-bf16: a cos/sin table rounded to bf16.
// The cos/sin table computed from float32 angles, then rounded to bf16 before it multiplies (SGLang PR
// #33117: MRotaryEmbedding's _match_cos_sin_cache_dtype casts the float32 cache to the query's bf16).
// Corpus rows (tests/cli/corpus_answers.json) that it matches: buggy_kernels/cos_sin_table_bf16.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("cos-sin-table-bf16",
  R"md(`matches a cos/sin table rounded to bf16 after float32 angles: cos and sin are cast to the model's dtype before they multiply (keep the table in float32)`)md",
  R"md(m·θ in float32, then cos and sin rounded to bfloat16; where the float32 angle's own bound (C2) reaches a bfloat16 rounding boundary, one bfloat16 step of cos or sin more in that element's tolerance)md",
  R"md(a float32 cos/sin cache cast in place to the query's dtype (SGLang PR #33117: `MRotaryEmbedding` calls `_match_cos_sin_cache_dtype(query)`). Seen on a float32 or float64 dump: in a bf16 dump the table's rounding (2⁻⁹ of ‖x‖ at most) lies within bf16's own tolerance, and the dump passes)md")
// clang-format on
#else
namespace rope::variants::cos_sin_table_bf16 {

VariantRow row() {
  VariantRow r;
  r.name = "cos-sin-table-bf16";
  r.detection = VariantDetection::Compared;
  r.parameters = "";
  r.changes = [](E) { return msg("a cos/sin table rounded to {0}", "bf16"); };
  r.says = [](S) {
    return msg(
        "matches a cos/sin table rounded to {0} after float32 angles: cos and sin are cast to the model's dtype "
        "before they multiply (keep the table in float32)",
        "bf16");
  };
  r.from_expectation = {not_fope, [](F f, Out out) { put(out, f.expected, 0.0, DType::F32).table_type = DType::BF16; }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::cos_sin_table_bf16
#endif
