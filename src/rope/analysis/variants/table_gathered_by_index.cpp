// table-gathered-by-index: a given table's rows read at each token's index, not at its position id.
// Beside --cos/--sin or --cos-sin-cache gathered by --positions (cos_sin_table.hpp): row i of each batch row read for
// its token i (0 … seq − 1), position_ids ignored.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("table-gathered-by-index",
  R"md(`matches the table read at each token's index in its row (0, 1, 2, …), not at its position id`)md",
  R"md(a given table gathered at 0 … seq − 1 of each batch row where `--positions` gives other ids)md",
  R"md(`cos[:seq]` sliced where `cos[position_ids]` is meant; position_ids not passed to the kernel)md")
// clang-format on
#else
namespace rope::variants::table_gathered_by_index {

/// The table is gathered by position ids, and they are not each token's index in its row already.
bool by_ids(F f) {
  if (f.expected.table == nullptr || f.expected.table->per_token || f.dump == nullptr) return false;
  const std::vector<AxisPosition>& p = f.dump->positions;
  const long S = f.expected.row_length > 0 ? f.expected.row_length : static_cast<long>(p.size());
  for (std::size_t s = 0; s < p.size(); ++s) {
    if (p[s][0] != static_cast<double>(static_cast<long>(s) % S)) return true;
  }
  return false;
}

VariantRow row() {
  VariantRow r;
  r.name = "table-gathered-by-index";
  r.detection = VariantDetection::FromDump;
  r.parameters = "";
  r.changes = [](E) { return msg("the table read at each token's index"); };
  r.says = [](S) {
    return msg(
        "matches the table read at each token's index in its row (0, 1, 2, …), not at its position id: the rows "
        "are sliced (cos[:seq]) where they should be gathered (cos[position_ids])");
  };
  r.from_dump = {by_ids, [](F f, Out out) { put(out, f.expected).table_by_index = true; }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::table_gathered_by_index
#endif
