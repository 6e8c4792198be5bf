// inv-freq-integer-division: θ = 1 for every pair.
// θ = 1 for every pair: base^(2i // d) = base^0 (integer division in inv_freq)
// Corpus rows (tests/cli/corpus_answers.json) that it matches: buggy_kernels/integer_division.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("inv-freq-integer-division",
  R"md(`matches θ = 1 for every pair: inv_freq computed with integer division`)md",
  R"md(θ_i = 1 for every pair)md",
  R"md(`1 / base ** (arange(0, d, 2) // d)`: every exponent 0)md")
// clang-format on
#else
namespace rope::variants::inv_freq_integer_division {

VariantRow row() {
  VariantRow r;
  r.name = "inv-freq-integer-division";
  r.detection = VariantDetection::Compared;
  r.parameters = "";
  r.changes = [](E) { return msg("θ = 1 for every pair"); };
  r.says = [](S) {
    return msg(
        "matches θ = 1 for every pair: inv_freq computed with integer division (arange(0, d, 2) // d is 0, base^0 "
        "= 1); divide in floating point");
  };
  r.from_expectation = {not_fope, [](F f, Out out) {
                          put(out, with_theta(f.expected, Eigen::VectorXd::Ones(f.expected.theta().size())));
                        }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::inv_freq_integer_division
#endif
