// heads-crossed: some heads reading another head's pairs.
// some heads hold another head's result: head g from head (g + k) mod G (found "offset")
// Corpus rows (tests/cli/corpus_answers.json) that it matches: none.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("heads-crossed",
  R"md(`heads 1 (1 of 4) hold another head's gradient (head 1 that of head 2), the others their own`)md",
  R"md(another head's gradient on some heads (a `--grad` check, `found.head`, `found.from`; `found.offset` when every head is))md",
  R"md(a split→interleaved relayout racing across warps (Megatron-LM PR #5980/#5981); [the modes](#modes-the-backward---grad-and-a-k-cache-shifted-in-place---shift) above)md")
// clang-format on
#else
namespace rope::variants::heads_crossed {

VariantRow row() {
  VariantRow r;
  r.name = "heads-crossed";
  r.detection = VariantDetection::InMode;
  r.parameters = "heads,head,from";
  r.changes = [](E) { return msg("some heads reading another head's pairs"); };
  r.says = [](S c) {
    const auto& f = c.diagnosis.found;
    if (f.size() == 2 && f[1].first == "offset") {  // every head another's, by one offset
      return msg(
          "every head holds the gradient of the head {0} after it: pairs crossed between heads by a "
          "relayout",
          static_cast<long>(f[1].second));
    }
    const std::vector<long> failing = failing_groups(c);
    return msg(
        "heads {0} ({1} of {2}) hold another head's gradient (head {3} that of head {4}), the others "
        "their own: pairs crossed between heads by a relayout (an in-place split→interleaved copy "
        "racing across warps)",
        check_number_list(failing), static_cast<long>(failing.size()), c.groups, static_cast<long>(f.at(1).second),
        static_cast<long>(f.at(2).second));
  };
  // The failing heads each hold another head's gradient: some heads (which one each reads), or every head by one
  // offset (its mode's measurement, GradientParts).
  r.in_mode = [](M m) {
    const GradientParts* p = m.gradient;
    const auto n = static_cast<double>(p ? p->failing.size() : 0);
    if (some_heads_fail(m) && p->zeroed.size() != p->failing.size() && p->crossed.size() == p->failing.size())
      return name_in_mode(m, "heads-crossed",
                          {{"heads", n},
                           {"head", static_cast<double>(p->crossed.front())},
                           {"from", static_cast<double>(p->from.front())}});
    if (p == nullptr || p->failing.empty() || static_cast<long>(p->failing.size()) != p->groups || p->zero_passes ||
        p->offset == 0)
      return false;
    return name_in_mode(m, "heads-crossed", {{"heads", n}, {"offset", static_cast<double>(p->offset)}});
  };
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::heads_crossed
#endif
