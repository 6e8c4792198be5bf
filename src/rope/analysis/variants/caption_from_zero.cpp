// caption-from-zero: Z-Image's caption numbered from 0, Lumina 2's way.
// Z-Image numbers its caption's t from 1 (caption token k at (1 + k, 0, 0), _pad_with_ids with pos_start (1, 0, 0),
// transformer_z_image.py:599-601) and places the image after it at L′ + 1 (607-609); Lumina 2, its ancestor, numbers
// the caption from 0 and the image from L (transformer_lumina2.py:280-281). The mistake turns the caption's rows one
// position early, and the image's too where the port took Lumina 2's numbering whole; the padding at (0, 0, 0) as
// given (found "offset" −1, "tokens" the caption's, "image" 1 where the image moved too).
// Corpus rows (tests/cli/corpus_answers.json) that it matches: diffusers_2026/mistake_zimage_caption_from_zero_f32.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("caption-from-zero",
  R"md(`matches Z-Image's 32 caption tokens turned at t = 0 … 31 and its image from t = 32, where the model numbers the caption from 1 …`)md",
  R"md(Z-Image's trailing caption rows (t = 1 … L′, h = w = 0) turned at t − 1, with the image's rows too (Lumina 2's numbering whole) or alone; the padding at (0, 0, 0) as given; tried over the whole dump (`found.offset` −1, `found.tokens`, `found.image`))md",
  R"md(a port of ZImageTransformer2DModel.patchify_and_embed that numbers the caption from 0 and the image from L′ as Lumina 2 does (transformer_lumina2.py:280-281), where Z-Image's _pad_with_ids starts them at (1, 0, 0) and (L′ + 1, 0, 0) (transformer_z_image.py:599-609))md")
// clang-format on
#else
namespace rope::variants::caption_from_zero {

/// Z-Image's caption rows: the trailing rows at (1 + k, 0, 0), k = 0, 1, … (its padding included); their first
/// index, or −1 where the positions end otherwise.
long caption_start(const std::vector<AxisPosition>& positions) {
  long at = static_cast<long>(positions.size());
  while (at > 0) {
    const AxisPosition& p = positions[static_cast<std::size_t>(at - 1)];
    if (p.count != 3 || p[1] != 0 || p[2] != 0 || !(p[0] >= 1)) break;
    --at;
  }
  for (long s = at; s < static_cast<long>(positions.size()); ++s) {
    if (positions[static_cast<std::size_t>(s)][0] != static_cast<double>(1 + s - at)) return -1;
  }
  return at < static_cast<long>(positions.size()) - 1 ? at : -1;
}

/// The caption's t one lower, with the image's (every row but the padding at (0, 0, 0)) or alone, each compared over
/// the whole dump; named where one passes.
bool search_caption(M search) {
  CheckReport& report = search.report;
  const std::vector<AxisPosition>& positions = search.positions;
  if (report.diagnosis.matches || report.expected.table || positions.empty() ||
      !grid_of(report.expected, "ZImageTransformer2DModel"))
    return false;
  const long from = caption_start(positions);
  if (from <= 0) return false;
  const Variant expected = variant_of(known_variant("expected"), report.expected);
  for (const bool image : {true, false}) {
    std::vector<AxisPosition> counted = positions;
    for (std::size_t s = image ? 0 : static_cast<std::size_t>(from); s < counted.size(); ++s) {
      if (counted[s][0] != 0 || counted[s][1] != 0 || counted[s][2] != 0) counted[s].value[0] -= 1;
    }
    report.variants.emplace_back(known_variant("caption-from-zero"),
                                 search.source.compare(search.start, counted, {expected}).front());
    if (!report.variants.back().second.passed()) continue;
    const long tokens = static_cast<long>(positions.size()) - from;
    return name_confirmed(search, "caption-from-zero",
                          {{"offset", -1.0}, {"tokens", static_cast<double>(tokens)}, {"image", image ? 1.0 : 0.0}},
                          {{"caption_t_offset", 0, -1}});
  }
  return false;
}

VariantRow row() {
  VariantRow r;
  r.name = "caption-from-zero";
  r.detection = VariantDetection::Measured;
  r.parameters = "offset,tokens,image";
  r.changes = [](E) { return msg("Z-Image's caption numbered from 0"); };
  r.says = [](S c) {
    const auto tokens = static_cast<long>(found_value(c, 1));
    return found_value(c, 2) != 0
               ? msg("matches Z-Image's {0} caption tokens turned at t = 0 … {1} and its image from t = {0}, where "
                     "the model numbers the caption from 1 and the image from {2} (transformer_z_image.py:599-609): "
                     "Lumina 2's numbering (transformer_lumina2.py:280-281)",
                     tokens, tokens - 1, tokens + 1)
               : msg("matches Z-Image's {0} caption tokens turned at t = 0 … {1}, where the model numbers them from 1 "
                     "(_pad_with_ids from (1, 0, 0), transformer_z_image.py:599-601): the caption counted from 0, as "
                     "Lumina 2 counts it (transformer_lumina2.py:280)",
                     tokens, tokens - 1);
  };
  r.search = search_caption;
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::caption_from_zero
#endif
