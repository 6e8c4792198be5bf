// attention-factor-missing: no attention factor.
// Corpus rows (tests/cli/corpus_answers.json) that it matches: make_dumps/bug_factor_ignored.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("attention-factor-missing",
  R"md(`the attention factor 1.13863 is missing`)md",
  R"md(the right frequencies without the factor)md",
  R"md(YaRN/LongRoPE's factor not multiplied into cos and sin; `attn_factor` spelled where `attention_factor` is expected (deepseek-ai/DeepSeek-R1 #684))md")
// clang-format on
#else
namespace rope::variants::attention_factor_missing {

VariantRow row() {
  VariantRow r;
  r.name = "attention-factor-missing";
  r.detection = VariantDetection::Compared;
  r.parameters = "";
  r.changes = [](E) { return msg("no attention factor"); };
  r.says = [](S c) {
    return msg("the attention factor {0} is missing (the dump matches a factor of 1)",
               fmt::format("{:.6g}", c.expected.attention_factor()));
  };
  r.says_in_mode = [](S c) {
    if (c.expected.mode != CheckMode::Grad) return Message{};
    return msg(
        "matches the gradient without the attention factor {0}: grad_x = a·R(m)ᵀ·grad_y carries a "
        "as the forward does",
        fmt::format("{:.6g}", c.expected.attention_factor()));
  };
  r.from_expectation = {[](F f) { return not_fope(f) && f.expected.attention_factor() != 1.0; },
                        [](F f, Out out) {
                          RopeExpectation s = f.expected;
                          s.rope.params.attention_factor = 1.0;
                          put(out, s);
                        }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::attention_factor_missing
#endif
