// rotary-dim-halved: the rotary dimension halved.
// a full-rotary model rotated with n_dims = d/2: the first d/2 channels at base^(−2i/(d/2))
// Corpus rows (tests/cli/corpus_answers.json) that it matches: diagnosis_2026/vllm_bailing_mla_rotary_halved.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("rotary-dim-halved",
  R"md(`matches a rotary dimension of 64 instead of 128: the model rotates the whole head, the code rotated half of it`)md",
  R"md(the first d/2 channels at base^(−2i/(d/2)), the rest unchanged (`found.rotary_dim`))md",
  R"md(`n_dims = d/2` (or `rope.dimension_count` halved) for a model that rotates the whole head)md")
// clang-format on
#else
namespace rope::variants::rotary_dim_halved {

VariantRow row() {
  VariantRow r;
  r.name = "rotary-dim-halved";
  r.detection = VariantDetection::Compared;
  r.parameters = "rotary_dim";
  r.changes = [](E) { return msg("the rotary dimension halved"); };
  r.says = [](S c) {
    const int r = c.expected.rotary_dim();
    return msg(
        "matches a rotary dimension of {0} instead of {1}: the model rotates the whole head, the code rotated "
        "half of it (n_dims = d/2)",
        r / 2, r);
  };
  r.from_expectation = {[](F f) {
                          const RopeExpectation& e = f.expected;
                          const int r = e.rotary_dim();
                          return not_fope(f) && !e.rope.axes && r == e.rope.head_dim && r % 4 == 0 &&
                                 e.rope.rotary_offset == 0;
                        },
                        [](F f, Out out) {
                          const RopeExpectation& e = f.expected;
                          const int r = e.rotary_dim();
                          Variant& v = put(out, with_theta(e, ladder_theta(e.base(), r / 2)));
                          v.found = {{"rotary_dim", r / 2}};
                          v.difference = {{"rotary_dim", static_cast<double>(r), static_cast<double>(r / 2)}};
                        }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::rotary_dim_halved
#endif
