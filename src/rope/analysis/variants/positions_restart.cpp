// positions-restart: positions that start again.
// the positions start again at some indices (chunked prefill, packed sequences)
// Corpus rows (tests/cli/corpus_answers.json) that it matches: none.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("positions-restart",
  R"md(`the positions restart at index 128`)md",
  R"md(the positions given, starting again from the first at that index (and at the next ones, up to 64))md",
  R"md(chunked prefill or packed sequences checked against one running range: give the dump's positions or `--sequence-starts`)md")
// clang-format on
#else
namespace rope::variants::positions_restart {

/// Largest number of restarts searched for (each costs one comparison of the whole dump).
constexpr int kMaxRestarts = 64;

/// The restarts that explain a dump correct up to `first` failing index: from each failing index on, the
/// positions start again from the first; none when that does not end in a pass.
std::vector<long> find_restarts(const DumpSource& source, long start, const std::vector<AxisPosition>& positions,
                                const RopeExpectation& expected, long first) {
  Variant v = variant_of(known_variant("positions-restart"), expected);
  for (int k = 0; k < kMaxRestarts && first > 0; ++k) {
    if (!v.restarts.empty() && first <= v.restarts.back()) return {};
    v.restarts.push_back(first);
    const DumpComparison c = source.compare(start, positions, {v}).front();
    if (c.passed()) return v.restarts;
    first = c.first_seq;
  }
  return {};
}

Message restart_says(S c) {
  std::string starts = "0";
  for (const long r : c.diagnosis.restarts) starts += "," + std::to_string(r);
  return msg(
      "the positions restart at index {0}: the dump matches positions that start again from {1} there "
      "(chunked prefill or packed sequences: give the dump's positions, or {2})",
      check_number_list(c.diagnosis.restarts), check_position_text(c.positions.front()),
      option_name("sequence_starts") + " " + starts);
}

VariantRow row() {
  VariantRow r;
  r.name = "positions-restart";
  r.detection = VariantDetection::Searched;
  r.parameters = "";
  r.changes = [](E) { return msg("positions that start again"); };
  r.says = restart_says;
  // A restart is not a drift: where the dump is right up to an index and departs there, the positions may start again
  // there. A cos/sin cache read at p mod L from position 0 is the positions starting again at L, 2L, …: the restart
  // says it in the words of packed sequences and chunked prefill, which are the likelier cause.
  r.search = [](M m) {
    CheckDiagnosis& dg = m.report.diagnosis;
    const bool wrapped = diagnosis_names(m, "cos-sin-cache-short") && dg.found.size() > 1 && dg.found[1].second != 0;
    if ((dg.matches && !wrapped) || !dg.correct_until) return false;
    std::vector<long> restarts = find_restarts(m.source, m.start, m.positions, m.report.expected, *dg.correct_until);
    if (restarts.empty()) return false;
    dg.restarts = std::move(restarts);
    dg.correct_until.reset();
    dg.matches = known_variant("positions-restart");
    dg.found = {};
    return true;
  };
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::positions_restart
#endif
