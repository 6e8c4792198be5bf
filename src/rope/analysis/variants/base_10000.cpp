// base-10000: base 10000.
// Corpus rows (tests/cli/corpus_answers.json) that it matches: diffusers/mistake_hunyuan_base10000_bf16,
// diffusers/mistake_hunyuan_base10000_f32, make_dumps/bug_base_wrong.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("base-10000",
  R"md(`matches base 10000, not 500000: is rope_theta read?`)md",
  R"md(default base)md",
  R"md(`rope_theta` missing from the config reader, or a default overriding it)md")
// clang-format on
#else
namespace rope::variants::base_10000 {

/// The ladders of `e` at `base`: a diffusion transformer's latent grid (models/grid_rope.hpp (G2), one block per axis)
/// each axis its own ladder base^(−2i/d_a) over its d_a channels; otherwise ladder_theta.
Eigen::VectorXd model_ladder_theta(const RopeExpectation& e, double base) {
  const std::optional<AxisMap>& map = e.rope.axes;
  if (!map || !map->grid() || map->per_frequency) return ladder_theta(base, e.rotary_dim());
  Eigen::VectorXd t = Eigen::VectorXd::Zero(e.rotary_dim() / 2);
  Eigen::Index at = map->padding;
  for (const int n : map->source.sections) {
    for (int i = 0; i < n && at < t.size(); ++i) t[at++] = std::pow(base, -2.0 * i / (2.0 * n));
  }
  return t;
}

VariantRow row() {
  VariantRow r;
  r.name = "base-10000";
  r.detection = VariantDetection::Compared;
  r.parameters = "";
  r.changes = [](E) { return msg("base 10000"); };
  r.says = [](S c) { return msg("matches base 10000, not {0}: is rope_theta read?", base_of(c.expected)); };
  r.from_expectation = {
      [](F f) { return not_fope(f) && f.expected.base() != kDefaultBase; },
      [](F f, Out out) { put(out, with_theta(f.expected, model_ladder_theta(f.expected, kDefaultBase))); }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::base_10000
#endif
