// before-equals-after: no rotation at all.
// nothing turned: "before" read after an in-place RoPE, or RoPE never applied
// Corpus rows (tests/cli/corpus_answers.json) that it matches: none.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("before-equals-after",
  R"md(`the dump after RoPE equals the dump before it: nothing turned`)md",
  R"md(no rotation at all)md",
  R"md(the "before" tensor read after ggml's in-place RoPE (llama.cpp after a q-norm: copy `src[0]` when the eval callback asks, "From llama.cpp" above), or RoPE never applied)md")
// clang-format on
#else
namespace rope::variants::before_equals_after {

VariantRow row() {
  VariantRow r;
  r.name = "before-equals-after";
  r.detection = VariantDetection::Compared;
  r.parameters = "";
  r.changes = [](E) { return msg("no rotation at all"); };
  r.says = [](S) {
    return msg(
        "the dump after RoPE equals the dump before it: nothing turned. The \"before\" tensor was read after an "
        "in-place RoPE had rotated it (llama.cpp after a q-norm: copy src[0] when the eval callback asks about the "
        "RoPE node, docs/check.md), or RoPE was never applied");
  };
  r.says_in_mode = [](S c) {
    if (c.expected.mode == CheckMode::Grad) {
      return msg(
          "the gradient returned equals the upstream gradient: the backward passed it through without "
          "turning it back by −m (a backward that returns grad_output)");
    }
    if (c.expected.mode == CheckMode::Shift) {
      return msg("the keys after the shift equal the keys before: the shift by δ = {0} was not applied",
                 fmt::format("{:g}", c.expected.shift));
    }
    return Message{};
  };
  r.from_expectation = {not_fope, [](F f, Out out) {
                          RopeExpectation s = with_theta(f.expected, Eigen::VectorXd::Zero(f.expected.theta().size()));
                          s.rope.params.attention_factor = 1.0;
                          put(out, s);
                        }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::before_equals_after
#endif
