// shift-map-one-delta: every key turned by one δ.
// a --shift-map check whose keys all turned by one δ (measured), not each by its own new − old
// Corpus rows (tests/cli/corpus_answers.json) that it matches: diagnosis_2026/shift_map_one_delta.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("shift-map-one-delta",
  R"md(`every key is turned by one δ = -2860, not by its own new − old from the map: the cache moved as by one shift (--shift -2860 passes)`)md",
  R"md(k′ = R(δ)·k for one δ (a `--shift-map` check): δ measured from every pair's phase over the cache (the integer within ±2¹⁶ that fits every θ_j·δ), confirmed with every key at δ (`found.delta`))md",
  R"md(a compaction that applies one shift (the first key's, or the count evicted) to the whole cache; [re-rotated key by key](#a-k-cache-re-rotated-key-by-key---shift-map) below)md")
// clang-format on
#else
namespace rope::variants::shift_map_one_delta {

VariantRow row() {
  VariantRow r;
  r.name = "shift-map-one-delta";
  r.detection = VariantDetection::InMode;
  r.parameters = "delta";
  r.changes = [](E) { return msg("every key turned by one δ"); };
  r.says = [](S c) {
    const std::string d = fmt::format("{:g}", found_value(c));
    return msg(
        "every key is turned by one δ = {0}, not by its own new − old from the map: the cache moved as by one "
        "shift ({1} passes)",
        d, option_name("shift") + " " + d);
  };
  // A shift map no forward row explains, whose keys all turned by one δ (the whole cache moved as one shift): δ
  // measured (measured_rope.hpp measure_one_turn), confirmed with every key at δ over the whole dump.
  r.in_mode = [](M m) {
    CheckReport& report = m.report;
    if (report.expected.mode != CheckMode::ShiftMap || report.diagnosis.matches) return false;
    const std::optional<double> delta =
        measure_one_turn(m.source, m.start, static_cast<long>(m.positions.size()), report.expected);
    if (!delta) return false;
    const std::vector<AxisPosition> one(m.positions.size(), AxisPosition::single(*delta));
    const Variant v = variant_of(known_variant("shift-map-one-delta"), report.expected);
    report.variants.emplace_back(v.kind, m.source.compare(m.start, one, {v}).front());
    const DumpComparison& c = report.variants.back().second;
    if (!c.passed()) return false;
    std::vector<double> deltas;
    for (const AxisPosition& p : m.positions) deltas.push_back(p[0]);
    std::sort(deltas.begin(), deltas.end());
    const auto distinct = std::unique(deltas.begin(), deltas.end()) - deltas.begin();
    name_in_mode(m, "shift-map-one-delta", {{"delta", *delta}});
    CheckDiagnosis& dg = report.diagnosis;
    dg.difference = {{"deltas", static_cast<double>(distinct), 1}};
    dg.difference_explained = c.total - c.failing;
    dg.difference_total = c.total;
    return true;
  };
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::shift_map_one_delta
#endif
