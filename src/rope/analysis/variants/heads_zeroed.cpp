// heads-zeroed: some heads 0.
// some heads 0, the others right (found "heads")
// Corpus rows (tests/cli/corpus_answers.json) that it matches: none.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("heads-zeroed",
  R"md(`the gradient is 0 on heads 1, 3 (2 of 4) and right on the others`)md",
  R"md(0 on some heads, right on the others (a `--grad` check, `found.heads`, `found.head`))md",
  R"md(a launch grid that skips heads; [the modes](#modes-the-backward---grad-and-a-k-cache-shifted-in-place---shift) above)md")
// clang-format on
#else
namespace rope::variants::heads_zeroed {

VariantRow row() {
  VariantRow r;
  r.name = "heads-zeroed";
  r.detection = VariantDetection::InMode;
  r.parameters = "heads,head";
  r.changes = [](E) { return msg("some heads 0"); };
  r.says = [](S c) {
    const std::vector<long> failing = failing_groups(c);
    return msg(
        "the gradient is 0 on heads {0} ({1} of {2}) and right on the others: those heads were never "
        "written (zeroed, or a launch that skips them)",
        check_number_list(failing), static_cast<long>(failing.size()), c.groups);
  };
  // A gradient 0 on the failing heads alone (its mode's measurement, GradientParts).
  r.in_mode = [](M m) {
    const GradientParts* p = m.gradient;
    if (!some_heads_fail(m) || p->zeroed.size() != p->failing.size()) return false;
    return name_in_mode(
        m, "heads-zeroed",
        {{"heads", static_cast<double>(p->failing.size())}, {"head", static_cast<double>(p->failing.front())}});
  };
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::heads_zeroed
#endif
