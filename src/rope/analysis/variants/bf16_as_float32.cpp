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
  // Every value after RoPE a bfloat16 in a float32 dump: a bf16 model's tensor saved with .float(), compared under
  // bf16's tolerance; where that fails too, a note says what the values look like.
  r.screen = [](M m) {
    CheckReport& report = m.report;
    if (report.comparison.after_non_finite.count > 0 || m.source.dtype() != DType::F32 ||
        !m.source.after_looks_like_bf16())
      return false;
    Variant v = variant_of(known_variant("bf16-as-float32"), report.expected);
    v.dump_type = DType::BF16;
    report.variants.emplace_back(v.kind, m.source.compare(m.start, m.positions, {v}).front());
    if (report.variants.back().second.passed()) {
      report.diagnosis.matches = v.kind;
      report.diagnosis.found = {};
      return true;
    }
    report.notes.push_back(msg("looks like bf16 saved as float32: add {0} (every value has 16 zero low bits)",
                               option_name("dtype") + " bf16"));
    return false;
  };
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::bf16_as_float32
#endif
