// k-with-query-heads: k read with q's head count.
// The same PR: k read with q's head count under GQA (found "q_heads", "k_heads").
// Corpus rows (tests/cli/corpus_answers.json) that it matches: none.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("k-with-query-heads",
  R"md(`matches k read with q's head count: k has 2 heads, q 8, and key (t, h) is turned at the position of index ⌊(t·2 + h) / 8⌋`)md",
  R"md(with `--k-before`/`--k-after` under GQA: k's buffer walked with q's head count (`found.q_heads`, `found.k_heads`), named in k's diagnosis; `rope identify` on k alone reads the keys at the positions so walked and says q's head count (`query_heads`))md",
  R"md(`k_head_num = q.shape[1]` or q's token stride used for k (ColossalAI PR #6429); [q and k together](#q-and-k-together---k-before---k-after))md")
// clang-format on
#else
namespace rope::variants::k_with_query_heads {

VariantRow row() {
  VariantRow r;
  r.name = "k-with-query-heads";
  r.detection = VariantDetection::Paired;
  r.parameters = "q_heads,k_heads";
  r.changes = [](E) { return msg("k read with q's head count"); };
  r.says = [](S c) {
    const auto hq = static_cast<long>(found_value(c, 0)), hk = static_cast<long>(found_value(c, 1));
    return msg(
        "matches k read with q's head count: k has {0} heads, q {1}, and key (t, h) is turned at the position of "
        "index ⌊(t·{0} + h) / {1}⌋, as k's buffer walked as [T·{0}/{1}, {1}, d] puts it (take k's own head count "
        "and stride)",
        hk, hq);
  };
  // q the expected rotation, k not, and k's keys turned where k's buffer walked with q's head count puts them: named in
  // k's diagnosis.
  r.paired = [](const PairedFacts& f) -> std::optional<PairedReading> {
    if (!f.q_expected || f.k_expected || !f.k_with_query_heads) return std::nullopt;
    return PairedReading{
        false, true, {{"q_heads", static_cast<double>(f.q_heads)}, {"k_heads", static_cast<double>(f.k_heads)}}};
  };
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::k_with_query_heads
#endif
