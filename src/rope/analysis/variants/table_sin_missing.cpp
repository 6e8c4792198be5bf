// table-sin-missing: a given cos/sin table applied without its sin.
// Beside --cos/--sin or --cos-sin-cache alone (cos_sin_table.hpp): every pair scaled by its cos, y = c·x.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("table-sin-missing",
  R"md(`matches the table's cos alone, its sin left out: every pair scaled by c, not rotated`)md",
  R"md(a given table (`--cos`/`--sin`, `--cos-sin-cache`) applied as (c·x1, c·x2))md",
  R"md(the sin argument of a kernel left unset or zero, a sin cache never filled)md")
// clang-format on
#else
namespace rope::variants::table_sin_missing {

VariantRow row() {
  VariantRow r;
  r.name = "table-sin-missing";
  r.detection = VariantDetection::Compared;
  r.parameters = "";
  r.changes = [](E) { return msg("the table's sin left out"); };
  r.says = [](S) {
    return msg(
        "matches the table's cos alone, its sin left out: every pair scaled by c, not rotated (the sin argument "
        "unset or zero?)");
  };
  r.from_expectation = {[](F f) { return f.expected.table != nullptr; },
                        [](F f, Out out) { put(out, f.expected).table_sin_missing = true; }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::table_sin_missing
#endif
