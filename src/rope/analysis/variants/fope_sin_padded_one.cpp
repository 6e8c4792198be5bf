// fope-sin-padded-one: FoPE's padded pairs with sin 1.
// FoPE's padded pairs with sin 1 as well as cos 1 (vLLM fope.py @ c215d1e62d, SGLang, the model's
// remote code): each padded pair is √2·R(π/4) where vLLM @ 151a2c744a lets it pass through (found "padded").
// Corpus rows (tests/cli/corpus_answers.json) that it matches: fope/vllm_c215d1e_k, fope/vllm_c215d1e_q.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("fope-sin-padded-one",
  R"md(`matches FoPE with its 19 padded pairs (pairs 45 … 63) padded with sin 1 as well as cos 1, so that each is √2·R(π/4) (x_a − x_b, x_b + x_a) where vLLM's fope.py @ 151a2c744a pads sin with 0 and lets them pass through`)md",
  R"md(FoPE (docs/multi-axis.md (F1)–(F4), `--coefficients`) with the padded pairs' sin 1 instead of 0, (F3) (JSON `fope-sin-padded-one`, `found.padded`: the count of padded pairs, head_dim/2 − K))md",
  R"md(vLLM's fope.py @ c215d1e62d, SGLang's `FourierRotaryEmbedding` (rope_variant.py @ 0b1fd02d56f0) and Intern-S1-Pro's own modeling_interns1_pro.py pad sin with 1, vLLM @ 151a2c744a with 0 (vllm-project/vllm #55204); tests/reference/fope.py ports both and tests/cli/check_fope.py names the earlier one; `rope identify` names it in the same words without the coefficients (`fope.padded`))md")
// clang-format on
#else
namespace rope::variants::fope_sin_padded_one {

VariantRow row() {
  VariantRow r;
  r.name = "fope-sin-padded-one";
  r.detection = VariantDetection::Compared;
  r.parameters = "padded";
  r.changes = [](E) { return msg("FoPE's padded pairs with sin 1"); };
  r.says = [](S c) {
    return msg(
        "matches FoPE with its {0} padded pairs (pairs {1} … {2}) padded with sin 1 as well as cos 1, so that "
        "each is √2·R(π/4) (x_a − x_b, x_b + x_a) where vLLM's fope.py @ 151a2c744a pads sin with 0 and lets "
        "them pass through: vLLM @ c215d1e62d, SGLang's FourierRotaryEmbedding and the model's own "
        "modeling_interns1_pro.py pad sin with 1 (docs/multi-axis.md (F3))",
        static_cast<long>(found_value(c)), c.expected.rope.head_dim / 2 - static_cast<long>(found_value(c)),
        c.expected.rope.head_dim / 2 - 1);
  };
  r.from_expectation = {[](F f) {
                          return f.expected.fope && f.expected.rotary_dim() / 2 - f.expected.fope->kept > 0 &&
                                 f.expected.fope_pad_sin != 1.0;
                        },
                        [](F f, Out out) {
                          RopeExpectation one = f.expected;
                          one.fope_pad_sin = 1.0;
                          const long padded = f.expected.rotary_dim() / 2 - f.expected.fope->kept;
                          put(out, one).found = {{"padded", static_cast<double>(padded)}};
                        }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::fope_sin_padded_one
#endif
