// shift-map-sign: the keys turned by old − new.
// Corpus rows (tests/cli/corpus_answers.json) that it matches: shift_map/bf16_sign, shift_map/f32_sign.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("shift-map-sign",
  R"md(`matches every key turned by old − new instead of new − old`)md",
  R"md(k′ = R(old − new)·k (a `--shift-map` check))md",
  R"md(δ computed as old − new; [re-rotated key by key](#a-k-cache-re-rotated-key-by-key---shift-map) below)md")
// clang-format on
#else
namespace rope::variants::shift_map_sign {

VariantRow row() {
  VariantRow r;
  r.name = "shift-map-sign";
  r.detection = VariantDetection::InMode;
  r.parameters = "";
  r.changes = [](E) { return msg("the keys turned by old − new"); };
  r.says = [](S) {
    return msg(
        "matches every key turned by old − new instead of new − old: the re-rotation's δ has the wrong sign (the "
        "keys move further from their new positions instead of to them)");
  };
  // A shift map's keys turned the other way: the forward diagnosis's rotation reversed, in the map's words.
  r.in_mode = [](M m) {
    if (m.report.expected.mode != CheckMode::ShiftMap || !diagnosis_names(m, "rotation-reversed")) return false;
    return name_in_mode(m, "shift-map-sign", m.report.diagnosis.found);
  };
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::shift_map_sign
#endif
