// partial-rotary-pairing: the partial rotary part paired across the head.
// partial rotary paired (i, i + d/2) instead of (i, i + r/2): found "partner"
// Corpus rows (tests/cli/corpus_answers.json) that it matches: buggy_kernels/partial_pairing,
// diagnosis_2026/pie_partial_head_pairs.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("partial-rotary-pairing",
  R"md(`matches pair i rotated with channel i + 32 instead of i + 16`)md",
  R"md(partial rotary with the pairs (i, i + d/2) instead of (i, i + r/2), the partner distance in `found.partner`; with the head's frequencies base^(−2i/d) as well, `found.head_frequencies` 1 (pie-project/pie #602))md",
  R"md(`rotate_half` over the whole head where it belongs over the rotary part)md")
// clang-format on
#else
namespace rope::variants::partial_rotary_pairing {

/// Partial rotary paired (i, i + d/2): rotate_half over the head where it belongs over the rotary part.
bool partial_pairing_applies(F f) {
  const RopeExpectation& e = f.expected;
  const int r = e.rotary_dim(), d = e.rope.head_dim;
  return not_fope(f) && !e.rope.axes && e.rope.layout == Layout::Half && r < d && e.rope.rotary_offset == 0 &&
         !e.rope.deinterleaved_output && !e.rope.axis_blocks && r / 2 + d / 2 <= d && r / 2 != d / 2;
}

VariantRow row() {
  VariantRow r;
  r.name = "partial-rotary-pairing";
  r.detection = VariantDetection::Compared;
  r.parameters = "partner";
  r.changes = [](E) { return msg("the partial rotary part paired across the head"); };
  r.says = [](S c) {
    const int r = c.expected.rotary_dim(), d = c.expected.rope.head_dim;
    if (c.diagnosis.found.size() > 1) {  // the head's frequencies too (pie-project/pie #602)
      return msg(
          "matches pair i rotated with channel i + {0} instead of i + {1}, at the head's frequencies base^(−2i/{2}) "
          "instead of base^(−2i/{3}): the partial rotary part is paired and turned as the first pairs of a RoPE over "
          "the whole head of {2} channels",
          d / 2, r / 2, d, r);
    }
    return msg(
        "matches pair i rotated with channel i + {0} instead of i + {1}: the partial rotary part is paired across "
        "the whole head (rotate_half over d = {2}, not over the rotary dimension {3})",
        d / 2, r / 2, d, r);
  };
  r.from_expectation = {
      partial_pairing_applies, [](F f, Out out) {
        const RopeExpectation& e = f.expected;
        Variant& x = put(out, e);
        x.partner = e.rope.head_dim / 2;
        x.found = {{"partner", e.rope.head_dim / 2}};
        x.difference = {{"partner", e.rotary_dim() / 2.0, e.rope.head_dim / 2.0}};
        // The head's ladder base^(−2i/d) on those pairs too: the first r/2 pairs of a RoPE over
        // the whole head (pie-project/pie PR #603).
        if (e.scaled() || !(e.base() > 1)) return;
        Eigen::VectorXd head(e.rotary_dim() / 2);
        for (Eigen::Index i = 0; i < head.size(); ++i)
          head[i] = std::pow(e.base(), -2.0 * static_cast<double>(i) / e.rope.head_dim);
        Variant& y = put(out, with_theta(e, head));
        y.partner = e.rope.head_dim / 2;
        y.found = {{"partner", e.rope.head_dim / 2}, {"head_frequencies", 1}};
        // and the ladder's dimension: base^(−2i/d) where base^(−2i/r) belongs
        y.difference = {{"partner", e.rotary_dim() / 2.0, e.rope.head_dim / 2.0},
                        {"ladder_dim", static_cast<double>(e.rotary_dim()), static_cast<double>(e.rope.head_dim)}};
      }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::partial_rotary_pairing
#endif
