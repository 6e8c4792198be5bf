// base-other: another base.
// another base than the model's (found among the bases code defaults to): rope_theta not read
// Corpus rows (tests/cli/corpus_answers.json) that it matches: buggy_kernels/base_not_read,
// buggy_kernels/base_unknown, diffusers/mistake_wan_base_1e6_f32, diffusers/mistake_wan_base_1e6_bf16.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("base-other",
  R"md(`matches base 1000000, not 500000: is rope_theta read?`)md",
  R"md(the default ladder of another base (10000 has its row above): the one the first departing pair's angle gives (θ_i = φ/m, base = θ_i^(−r/(2i)), to 3 digits), tried as a variant, the base in `found.base`; a latent grid's ladders all of another base (each θ_j raised to ln b'/ln b, b' read at the first departing pair and rounded to the fewest digits the whole dump passes under))md",
  R"md(`rope_theta` not read and a code base's own default in its place)md")
// clang-format on
#else
namespace rope::variants::base_other {

/// rope_theta not read, a base no code defaults to: the base read where the dump departs (base_at_departure), its
/// ladder over the rotary dimension compared over the whole dump (found "base").
bool base_read(M m) {
  CheckReport& report = m.report;
  const RopeExpectation& expected = report.expected;
  const std::optional<double> found = base_at_departure(report, m.source, m.start, m.positions);
  if (!found) return false;
  const int r = expected.rotary_dim();
  Variant v = variant_of(known_variant("base-other"), expected);
  v.spec.rope.params.inv_freq.resize(r / 2);
  for (int i = 0; i < r / 2; ++i) v.spec.rope.params.inv_freq[i] = std::pow(*found, -2.0 * i / r);
  v.found = {{"base", *found}};
  report.variants.emplace_back(v.kind, m.source.compare(m.start, m.positions, {v}).front());
  if (!report.variants.back().second.passed()) return false;
  report.diagnosis.matches = v.kind;
  report.diagnosis.found = v.found;
  return true;
}

/// A latent grid's ladders all of another base b' (docs/multi-axis.md (G2)): b' read at the first departing pair
/// (grid_base_at_departure) tried rounded to 1, 2, … 7 significant digits and as read, each θ_j raised to ln b'/ln b,
/// the fewest digits that the whole dump passes under named (found "base"): in bf16 the angle read is coarse, and the
/// round base the one a config holds.
bool grid_base(M m) {
  const RopeExpectation& e = m.report.expected;
  const std::optional<double> read = grid_base_at_departure(m.report, m.positions);
  if (!read) return false;
  std::vector<double> bases;
  for (int digits = 1; digits <= 8; ++digits) {
    const double b = digits == 8 ? *read : std::stod(fmt::format("{:.{}g}", *read, digits));
    if (b > 1 && b != e.base() && std::find(bases.begin(), bases.end(), b) == bases.end()) bases.push_back(b);
  }
  for (const double b : bases) {
    const double power = std::log(b) / std::log(e.base());
    Eigen::VectorXd theta = e.theta();
    for (Eigen::Index i = 0; i < theta.size(); ++i) theta[i] = theta[i] > 0 ? std::pow(theta[i], power) : theta[i];
    Variant v = variant_of(known_variant("base-other"), e);
    v.spec.set_theta(theta);
    v.found = {{"base", b}};
    if (confirm_difference(m.report, m.source, m.start, m.positions, v, {{"base", e.base(), b}})) return true;
  }
  return false;
}

/// The measurement's ladder of another base (MeasuredFacts::ladder_base), stated to the fewest significant digits
/// within 10⁻⁶ of the one measured (20000 for 20000.00004): the difference "base", and "factor" f → 1 where the
/// expectation is scaled (the dump's ladder is unscaled).
std::optional<MeasuredReading> measured_base(const MeasuredFacts& f) {
  if (!f.ladder_base) return std::nullopt;
  const RopeExpectation& expected = f.expected;
  const double base = *f.ladder_base;
  double said = base;
  for (int digits = 1; digits <= 7; ++digits) {
    const double b = std::stod(fmt::format("{:.{}g}", base, digits));
    if (std::abs(b / base - 1) <= 1e-6) {
      said = b;
      break;
    }
  }
  MeasuredReading out{variant_of(known_variant("base-other"), expected), f.differs};
  out.difference.push_back({"base", expected.base(), said});
  if (expected.scaled() && expected.rope.config.factor)
    out.difference.push_back({"factor", *expected.rope.config.factor, 1});
  out.variant.spec.set_theta(frequencies(expected.rotary_dim(), said));
  out.variant.found = {{"base", said}};
  return out;
}

VariantRow row() {
  VariantRow r;
  r.name = "base-other";
  r.detection = VariantDetection::Measured;
  r.parameters = "base";
  r.changes = [](E) { return msg("another base"); };
  r.says = [](S c) {
    if (c.expected.rope.axes && c.expected.rope.axes->grid()) {
      return msg(
          "matches base {0}, not {1}: every axis's ladder of the latent grid is that base's, the widths as "
          "expected (is the transformer's theta read?)",
          fmt::format("{}", found_value(c)), base_of(c.expected));
    }
    return msg("matches base {0}, not {1}: is rope_theta read?", fmt::format("{}", found_value(c)),
               base_of(c.expected));
  };
  // Searched where the ladder fits (no given table), no row named yet: a one-axis dump's base read where it departs,
  // a latent grid's base of every axis.
  r.search = [](M m) {
    const RopeExpectation& e = m.report.expected;
    if (m.report.diagnosis.matches || e.table) return false;
    if (!e.rope.axes) return base_read(m);
    return e.rope.axes->grid() && grid_base(m);
  };
  r.measured = measured_base;
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::base_other
#endif
