// shift-map-not-rotated: the keys left at their old angle.
// Corpus rows (tests/cli/corpus_answers.json) that it matches: shift_map/bf16_not_rotated, shift_map/f32_not_rotated.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("shift-map-not-rotated",
  R"md(`the keys after the move equal the keys before`)md",
  R"md(k′ = k: the keys moved to their new slots, not turned (a `--shift-map` check))md",
  R"md(a cache compacted without re-rotating its keys; [re-rotated key by key](#a-k-cache-re-rotated-key-by-key---shift-map) below)md")
// clang-format on
#else
namespace rope::variants::shift_map_not_rotated {

VariantRow row() {
  VariantRow r;
  r.name = "shift-map-not-rotated";
  r.detection = VariantDetection::InMode;
  r.parameters = "";
  r.changes = [](E) { return msg("the keys left at their old angle"); };
  r.says = [](S) {
    return msg(
        "the keys after the move equal the keys before: each key was moved to its new slot but left at its old "
        "position's angle (the cache compacted without re-rotating it by new − old)");
  };
  // A shift map whose keys are the cache as it was: the forward diagnosis's dump after equal to before, in the map's
  // words.
  r.in_mode = [](M m) {
    if (m.report.expected.mode != CheckMode::ShiftMap || !diagnosis_names(m, "before-equals-after")) return false;
    return name_in_mode(m, "shift-map-not-rotated", m.report.diagnosis.found);
  };
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::shift_map_not_rotated
#endif
