// angles-f16-overflow: angles in float16 overflowing.
// angles in float16: m·θ overflows to inf at m ≥ 65520, cos and sin NaN
// Corpus rows (tests/cli/corpus_answers.json) that it matches: buggy_kernels/f16_overflow.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("angles-f16-overflow",
  R"md(`the tensor after RoPE holds NaN from position 65520 on: angles computed in float16`)md",
  R"md(NaN or inf from a position ≥ 65520, the largest float16 being 65504, `found.position`)md",
  R"md(m·θ computed in float16 (gpt-oss): compute the angles in float32)md")
// clang-format on
#else
namespace rope::variants::angles_f16_overflow {

/// The smallest position float16 rounds to inf (its largest number is 65504; 65520 and above round up).
constexpr double kF16Overflow = 65520;

Message overflow_says(S c) {
  const NonFiniteValues& n = c.comparison.after_non_finite;
  return msg(
      "the tensor after RoPE holds {0} from position {1} on (elements that are not finite numbers: {2}): angles "
      "computed in float16, whose largest number is 65504, overflow to inf there and cos, sin give NaN (compute the "
      "angles in float32)",
      check_value_text(n.value), check_position_text(c.positions[static_cast<std::size_t>(n.seq)]), n.count);
}

VariantRow row() {
  VariantRow r;
  r.name = "angles-f16-overflow";
  r.detection = VariantDetection::Screened;
  r.parameters = "position";
  r.changes = [](E) { return msg("angles in float16 overflowing"); };
  r.says = overflow_says;
  // Values after RoPE that are not finite at a position float16 cannot hold: m·θ in float16 is inf there, and cos(inf),
  // sin(inf) are NaN (gpt-oss).
  r.screen = [](M m) {
    const NonFiniteValues& n = m.report.comparison.after_non_finite;
    if (n.count == 0) return false;
    const AxisPosition& at = m.positions[static_cast<std::size_t>(n.seq)];
    if (at.max_abs() < kF16Overflow) return false;
    m.report.diagnosis.matches = known_variant("angles-f16-overflow");
    m.report.diagnosis.found = {{"position", at.max_abs()}};
    return true;
  };
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::angles_f16_overflow
#endif
