// base-other: another base.
// another base than the model's (found among the bases code defaults to): rope_theta not read
// Corpus rows (tests/cli/corpus_answers.json) that it matches: buggy_kernels/base_not_read,
// buggy_kernels/base_unknown.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("base-other",
  R"md(`matches base 1000000, not 500000: is rope_theta read?`)md",
  R"md(the default ladder of another base (10000 has its row above): the one the first departing pair's angle gives (θ_i = φ/m, base = θ_i^(−r/(2i)), to 3 digits), tried as a variant, the base in `found.base`)md",
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
    return msg("matches base {0}, not {1}: is rope_theta read?", fmt::format("{}", found_value(c)),
               base_of(c.expected));
  };
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::base_other
#endif
