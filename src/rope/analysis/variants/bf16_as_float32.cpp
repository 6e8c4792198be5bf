// bf16-as-float32: bf16's tolerance.
// the expected RoPE under bf16's tolerance: a bf16 tensor saved as float32
// Corpus rows (tests/cli/corpus_answers.json) that it matches: none.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("bf16-as-float32",
  R"md(`looks like bf16 saved as float32: add --dtype bf16`)md",
  R"md(the expected RoPE under bf16's tolerance; every value of the dump has 16 zero low bits)md",
  R"md(a bf16 model's tensor saved with `.float()`: its rounding is bf16's (when the dump still fails under bf16's tolerance, this is a note after the diagnosis))md")
// clang-format on
#else
namespace rope::variants::bf16_as_float32 {

VariantRow row() {
  VariantRow r;
  r.name = "bf16-as-float32";
  r.detection = VariantDetection::Screened;
  r.parameters = "";
  r.changes = [](E) { return msg("bf16's tolerance"); };
  r.says = [](S) {
    return msg(
        "looks like bf16 saved as float32: add {0} (every value has 16 zero low bits, and under bf16's tolerance "
        "the dump passes)",
        option_name("dtype") + " bf16");
  };
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::bf16_as_float32
#endif
