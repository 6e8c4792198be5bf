// text-ids-counted: the text tokens numbered in their order.
// A joint sequence's text tokens, which the model places all at one position, turned at 0, 1, 2, … on one axis (or
// on every axis): found "axis" (its index; −1 every axis) and "tokens".
// Corpus rows (tests/cli/corpus_answers.json) that it matches: diffusers/mistake_flux_text_counted_f32,
// diffusers/mistake_flux_text_counted_bf16.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("text-ids-counted",
  R"md(`matches the 3 text tokens turned at 0, 1, … 2 on axis t, where the model gives every text token the position (0, 0, 0) …`)md",
  R"md(a latent grid's leading text tokens (every component equal) at their order 0 … n − 1 on one axis, or on every axis, the image tokens as given; each tried over the whole dump (`found.axis`, −1 every axis, `found.tokens`))md",
  R"md(Flux's `txt_ids` built with the tokens' index (an arange) where the pipeline makes them zeros)md")
// clang-format on
#else
namespace rope::variants::text_ids_counted {

/// A latent grid's leading text tokens (every component equal, as Flux gives them all (0, 0, 0)) turned at their order
/// 0 … n − 1 on one axis or on every axis, the other tokens as given: each tried over the whole dump, n the leading
/// rows or one fewer (the image's first token may share the text's position); named text-ids-counted.
bool search_text_ids(M search) {
  CheckReport& report = search.report;
  const DumpSource& source = search.source;
  const long start = search.start;
  const std::vector<AxisPosition>& positions = search.positions;
  const RopeExpectation& e = report.expected;
  // A latent grid's ladders (no given table).
  if (report.diagnosis.matches || e.table || !e.rope.axes || !e.rope.axes->grid() || positions.empty() ||
      !positions.front().multi())
    return false;
  const long rows = equal_component_rows(positions);
  // Every failing index among them, and a position shared by two of them (else they are not all at one position).
  if (rows < 2 || report.comparison.first_seq >= rows || positions[0].value != positions[1].value) return false;
  Variant expected = variant_of(known_variant("expected"), e);
  const int axes = positions.front().count;
  for (const long n : {rows, rows - 1}) {
    if (n < 2) continue;
    for (int axis = 0; axis <= axes; ++axis) {  // axis == axes: every axis
      const std::vector<AxisPosition> counted = first_rows_counted(positions, n, axis);
      report.variants.emplace_back(known_variant("text-ids-counted"),
                                   source.compare(start, counted, {expected}).front());
      if (!report.variants.back().second.passed()) continue;
      return name_confirmed(
          search, "text-ids-counted",
          {{"axis", axis == axes ? -1.0 : static_cast<double>(axis)}, {"tokens", static_cast<double>(n)}},
          {{"text_positions", 0, static_cast<double>(n)}});
    }
  }
  return false;
}

VariantRow row() {
  VariantRow r;
  r.name = "text-ids-counted";
  r.detection = VariantDetection::Measured;
  r.parameters = "axis,tokens";
  r.changes = [](E) { return msg("the text tokens numbered in their order"); };
  r.says = [](S c) {
    const auto axis = static_cast<int>(found_value(c, 0));
    const auto tokens = static_cast<long>(found_value(c, 1));
    const std::string where = c.positions.front().text();
    const AxisMap& map = *c.expected.rope.axes;
    const std::string name = axis < 0 ? std::string()
                             : static_cast<std::size_t>(axis) < map.names.size()
                                 ? map.names[static_cast<std::size_t>(axis)]
                                 : std::string(axis_letter(axis));
    return axis < 0 ? msg("matches the {0} text tokens turned at 0, 1, … {1} on every axis, where the model gives "
                          "every text token the position {2}: the text ids are the tokens' order (indices 0 … {1})",
                          tokens, tokens - 1, where)
                    : msg("matches the {0} text tokens turned at 0, 1, … {1} on axis {2}, where the model gives "
                          "every text token the position {3}: the text ids are the tokens' order on that axis "
                          "(indices 0 … {1})",
                          tokens, tokens - 1, name, where);
  };
  r.search = search_text_ids;
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::text_ids_counted
#endif
