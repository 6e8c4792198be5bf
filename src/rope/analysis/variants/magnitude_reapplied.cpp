// magnitude-reapplied: the magnitude applied again at the shift.
// shift: the attention factor a applied again at the shift, k′ = a·R(δ)·k (found "factor")
// Corpus rows (tests/cli/corpus_answers.json) that it matches: none.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("magnitude-reapplied",
  R"md(`the magnitude applied again at the shift: every key turned by δ = -512 and scaled by 1.13863`)md",
  R"md(a·R(δ)·k (a `--shift` check, `found.factor`))md",
  R"md(the attention factor (YaRN's 1 + 0.1·ln f) multiplied in at every shift; [the modes](#modes-the-backward---grad-and-a-k-cache-shifted-in-place---shift) above)md")
// clang-format on
#else
namespace rope::variants::magnitude_reapplied {

VariantRow row() {
  VariantRow r;
  r.name = "magnitude-reapplied";
  r.detection = VariantDetection::Compared;
  r.parameters = "factor";
  r.changes = [](E) { return msg("the magnitude applied again at the shift"); };
  r.says = [](S c) {
    const std::string m = fmt::format("{:.6g}", c.expected.shift_magnitude);
    return msg(
        "the magnitude applied again at the shift: every key turned by δ = {0} and scaled by {1} (the "
        "model's attention factor {2}), which the cached keys already carry from their forward pass: "
        "after n shifts a key is {2}^n too long",
        fmt::format("{:g}", c.expected.shift), fmt::format("{:.6g}", found_value(c, 0)), m);
  };
  // A shift map's keys each re-rotated by their own δ (H2).
  r.says_in_mode = [](S c) {
    if (c.expected.mode != CheckMode::ShiftMap) return Message{};
    return msg(
        "the magnitude applied again at the re-rotation: every key turned by its δ = new − old and scaled by {0} "
        "(the model's attention factor {1}), which the cached keys already carry from their forward pass: after n "
        "compactions a key is {1}^n too long",
        fmt::format("{:.6g}", found_or(c, "factor", 1.0)), fmt::format("{:.6g}", c.expected.shift_magnitude));
  };
  r.from_expectation = {[](F f) {
                          const CheckMode m = f.expected.mode;
                          return not_fope(f) && (m == CheckMode::Shift || m == CheckMode::ShiftMap) &&
                                 f.expected.shift_magnitude != 1.0;
                        },
                        [](F f, Out out) {
                          RopeExpectation s = f.expected;
                          s.rope.params.attention_factor = f.expected.shift_magnitude;
                          put(out, s).found = {{"factor", f.expected.shift_magnitude}};
                        }};
  // At a shift: the forward diagnosis's norm scaled by the magnitude the keys carry, within (N1)'s bound.
  r.in_mode = [](M m) {
    const RopeExpectation& e = m.report.expected;
    CheckDiagnosis& dg = m.report.diagnosis;
    if ((e.mode != CheckMode::Shift && e.mode != CheckMode::ShiftMap) || !diagnosis_names(m, "norm-scaled") ||
        e.shift_magnitude == 1.0)
      return false;
    const double s = found_or(dg.found, "factor", 1.0);
    if (std::abs(s / e.shift_magnitude - 1) > check_norm_bound(e, m.source.dtype())) return false;
    dg.matches = known_variant("magnitude-reapplied");
    dg.found = {{"factor", s}};
    return true;
  };
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::magnitude_reapplied
#endif
