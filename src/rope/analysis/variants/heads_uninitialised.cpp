// heads-uninitialised: some heads left uninitialised.
// some heads neither right nor 0, the others right (found "heads")
// Corpus rows (tests/cli/corpus_answers.json) that it matches: none.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("heads-uninitialised",
  R"md(`the gradient is wrong on heads 1, 3 (2 of 4), neither 0 nor another head's, and right on the others`)md",
  R"md(neither right, nor 0, nor another head's on some heads (a `--grad` check))md",
  R"md(`torch.empty` never written, a race; [the modes](#modes-the-backward---grad-and-a-k-cache-shifted-in-place---shift) above)md")
// clang-format on
#else
namespace rope::variants::heads_uninitialised {

VariantRow row() {
  VariantRow r;
  r.name = "heads-uninitialised";
  r.detection = VariantDetection::InMode;
  r.parameters = "heads,head";
  r.changes = [](E) { return msg("some heads left uninitialised"); };
  r.says = [](S c) {
    const std::vector<long> failing = failing_groups(c);
    return msg(
        "the gradient is wrong on heads {0} ({1} of {2}), neither 0 nor another head's, and right on "
        "the others: those heads were left uninitialised (torch.empty never written) or written by a "
        "race",
        check_number_list(failing), static_cast<long>(failing.size()), c.groups);
  };
  // Some heads fail, neither 0 nor another head's gradient (its mode's measurement, GradientParts).
  r.in_mode = [](M m) {
    const GradientParts* p = m.gradient;
    if (!some_heads_fail(m) || p->zeroed.size() == p->failing.size() || p->crossed.size() == p->failing.size())
      return false;
    return name_in_mode(
        m, "heads-uninitialised",
        {{"heads", static_cast<double>(p->failing.size())}, {"head", static_cast<double>(p->failing.front())}});
  };
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::heads_uninitialised
#endif
