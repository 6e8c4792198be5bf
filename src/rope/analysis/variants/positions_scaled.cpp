// positions-scaled: every position multiplied by one constant.
// the dump's θ_j all the expected ones times one constant s (measured), which is positions m turned at s·m
// Corpus rows (tests/cli/corpus_answers.json) that it matches: buggy_kernels/departure,
// diagnosis_2026/positions_doubled.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("positions-scaled",
  R"md(`the dump turns position m at 2·m: every frequency is the expected one times 2 …`)md",
  R"md(the dump measured (identify's engine): every pair's θ_j the expected θ_j times one constant s, a simple fraction where one is within the measurement's error, confirmed over the whole dump (`found.scale`))md",
  R"md(a position scale (a linear factor, a stride) applied where none belongs, or the positions counted in the wrong unit)md")
// clang-format on
#else
namespace rope::variants::positions_scaled {

/// `x` as a fraction p/q with q <= 16 when one lies within `rel` of it (2 for 2.0000003), else x.
double simple_fraction(double x, double rel) {
  for (int q = 1; q <= 16; ++q) {
    const double p = std::round(x * q);
    if (p >= 1 && std::abs(p / q / x - 1) <= rel) return p / q;
  }
  return x;
}

/// Every measured frequency the expected one times one constant s: the positions turned at s·m, s as the simplest
/// fraction within 10⁻⁴ (the measurement's error), the difference "position_scale" 1 → s.
std::optional<MeasuredReading> scaled_positions(const MeasuredFacts& f) {
  if (!f.ratio) return std::nullopt;
  const double scale = simple_fraction(*f.ratio, 1e-4);
  MeasuredReading out{variant_of(known_variant("positions-scaled"), f.expected), f.differs};
  out.variant.spec.set_theta(f.expected.theta() * scale);
  out.variant.found = {{"scale", scale}};
  out.difference.push_back({"position_scale", 1, scale});
  return out;
}

VariantRow row() {
  VariantRow r;
  r.name = "positions-scaled";
  r.detection = VariantDetection::Measured;
  r.parameters = "scale";
  r.changes = [](E) { return msg("every position multiplied by one constant"); };
  r.says = [](S c) {
    const std::string s = fmt::format("{:.7g}", found_value(c));
    return msg(
        "the dump turns position m at {0}·m: every frequency is the expected one times {0} (a position scale "
        "applied where none belongs, or a linear factor of 1/{0})",
        s);
  };
  r.measured = scaled_positions;
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::positions_scaled
#endif
