// shift-map-offset: every new position off by a constant.
// The mistakes of a K cache re-rotated key by key (--shift-map, check_mode.hpp (H2)): every new
// position off by a constant (the evicted count: VeloxQuant #137; found "offset"), the keys left at their old angle,
// and each turned by old − new.
// Corpus rows (tests/cli/corpus_answers.json) that it matches: shift_map/bf16_offset, shift_map/f32_offset.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("shift-map-offset",
  R"md(`matches every key turned by new − old +3: the new positions are all off by +3`)md",
  R"md(k′ = R(new + c − old)·k for one constant c (a `--shift-map` check, `found.offset`))md",
  R"md(the new positions counted with the evicted tokens left in, or from another start (VeloxQuant #137); [re-rotated key by key](#a-k-cache-re-rotated-key-by-key---shift-map) below)md")
// clang-format on
#else
namespace rope::variants::shift_map_offset {

// A K cache re-rotated key by key (--shift-map, check_mode.hpp (H2)): this row and shift-map-not-rotated and
// shift-map-sign are the forward rows a per-key δ makes them (the positions offset, no rotation, the rotation
// reversed), renamed by their in_mode.
VariantRow row() {
  VariantRow r;
  r.name = "shift-map-offset";
  r.detection = VariantDetection::InMode;
  r.parameters = "offset";
  r.changes = [](E) { return msg("every new position off by a constant"); };
  r.says = [](S c) {
    return msg(
        "matches every key turned by new − old {0}: the new positions are all off by {0} (the evicted count "
        "added or left out, VeloxQuant #137), so each key sits {0} from where the map puts it",
        fmt::format("{:+}", found_value(c)));
  };
  // A shift map's keys all off by one offset: the forward diagnosis's positions off by one, or by one offset (not per
  // head, nor in pieces), in the map's words.
  r.in_mode = [](M m) {
    if (m.report.expected.mode != CheckMode::ShiftMap) return false;
    const CheckDiagnosis& dg = m.report.diagnosis;
    if (diagnosis_names(m, "positions-plus-one")) return name_in_mode(m, "shift-map-offset", {{"offset", 1.0}});
    if (diagnosis_names(m, "positions-minus-one")) return name_in_mode(m, "shift-map-offset", {{"offset", -1.0}});
    const bool one_offset = dg.found.size() == 1 && dg.found[0].first == "offset";
    if (!diagnosis_names(m, "positions-offset") || !one_offset) return false;
    return name_in_mode(m, "shift-map-offset", dg.found);
  };
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::shift_map_offset
#endif
