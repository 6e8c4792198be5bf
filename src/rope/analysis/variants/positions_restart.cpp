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
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::positions_restart
#endif
