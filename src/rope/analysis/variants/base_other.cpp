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
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::base_other
#endif
