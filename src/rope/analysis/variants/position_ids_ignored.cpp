// position-ids-ignored: positions counted across the packed sequences.
// packed sequences rotated at 0 … n−1 counted across them: position_ids ignored
// Corpus rows (tests/cli/corpus_answers.json) that it matches: buggy_kernels/packed_ignored.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("position-ids-ignored",
  R"md(`matches positions counted across the packed sequences (from 0, one per index), without their restart at index 128`)md",
  R"md(the positions 0 … n − 1 across the whole batch where the positions given restart (`found.restart`, the first restart))md",
  R"md(`position_ids` of packed sequences ignored: the kernel numbers tokens by their index in the batch)md")
// clang-format on
#else
namespace rope::variants::position_ids_ignored {

/// Packed sequences rotated at their index in the batch, where the positions given restart (the first restart).
void ids_ignored_build(F f, Out out) {
  const std::vector<AxisPosition>& p = f.dump->positions;
  long restart = -1;
  for (std::size_t s = 1; s < p.size() && restart < 0; ++s) {
    if (p[s][0] <= p[s - 1][0]) restart = static_cast<long>(s);
  }
  if (restart <= 0) return;
  Variant& v = put(out, f.expected);
  v.sequence_index = true;
  v.found = {{"restart", static_cast<double>(restart)}};
}

VariantRow row() {
  VariantRow r;
  r.name = "position-ids-ignored";
  r.detection = VariantDetection::FromDump;
  r.parameters = "restart";
  r.changes = [](E) { return msg("positions counted across the packed sequences"); };
  r.says = [](S c) {
    return msg(
        "matches positions counted across the packed sequences (from {0}, one per index), without their restart "
        "at index {1}: position_ids are ignored (the kernel numbers the tokens by their index in the batch)",
        check_position_text(c.positions.front()), static_cast<long>(found_value(c)));
  };
  r.from_dump = {[](F f) { return dump_shown(f) && !multi_positions(f) && f.dump->positions.size() > 1; },
                 ids_ignored_build};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::position_ids_ignored
#endif
