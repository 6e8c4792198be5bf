// inv-freq-bf16: inv_freq rounded to bf16, m·θ in float32.
// inv_freq stored in bf16 (or float16), m·θ then computed in float32: θ rounded to that type, the product not
// (sglang-jax #1472), where AnglesBf16 rounds the positions and the product too.
// Corpus rows (tests/cli/corpus_answers.json) that it matches: buggy_kernels/inv_freq_bf16.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("inv-freq-bf16 inv-freq-f16",
  R"md(`matches inv_freq rounded to bf16 with m·θ computed in float32` (or f16))md",
  R"md(θ rounded to bf16 or float16, the product m·θ in float32 (JSON `inv-freq-bf16`, `inv-freq-f16`))md",
  R"md(an `inv_freq` buffer kept in the model's dtype (sglang-jax #1472), where `angles computed in bf16` also rounds the positions and the product)md")
// clang-format on
#else
namespace rope::variants::inv_freq_bf16 {

VariantRow row() {
  VariantRow r;
  r.name = "inv-freq-bf16";
  r.detection = VariantDetection::Compared;
  r.parameters = "";
  r.changes = [](E) { return msg("inv_freq rounded to {0}, m·θ in float32", "bf16"); };
  r.says = [](S) { return inv_freq_in("bf16"); };
  r.from_expectation = {not_fope, [](F f, Out out) { inv_freq_rounded(f, out, DType::BF16); }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::inv_freq_bf16
#endif
