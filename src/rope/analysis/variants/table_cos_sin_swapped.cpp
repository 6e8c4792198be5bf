// table-cos-sin-swapped: a given cos/sin table read with cos and sin exchanged.
// Beside --cos/--sin or --cos-sin-cache alone (cos_sin_table.hpp): the two arguments passed in the other order, or
// vLLM's cos_sin_cache read as sin then cos (its halves exchanged).
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("table-cos-sin-swapped",
  R"md(`matches the table with cos and sin exchanged: the kernel takes cos where the table has sin`)md",
  R"md(a given table read as (sin, cos); a cos_sin_cache's halves exchanged)md",
  R"md(`kernel(x, sin, cos)` for `kernel(x, cos, sin)`; vLLM's cos_sin_cache `chunk(2)` unpacked in the other order)md")
// clang-format on
#else
namespace rope::variants::table_cos_sin_swapped {

VariantRow row() {
  VariantRow r;
  r.name = "table-cos-sin-swapped";
  r.detection = VariantDetection::Compared;
  r.parameters = "";
  r.changes = [](E) { return msg("the table's cos and sin exchanged"); };
  r.says = [](S) {
    return msg(
        "matches the table with cos and sin exchanged: the kernel takes cos where the table has sin (the two "
        "arguments in the other order, or a cos_sin_cache's halves read the other way round)");
  };
  r.from_expectation = {[](F f) { return f.expected.table != nullptr; },
                        [](F f, Out out) { put(out, f.expected).table_swapped = true; }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::table_cos_sin_swapped
#endif
