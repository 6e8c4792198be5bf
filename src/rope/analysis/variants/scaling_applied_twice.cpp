// scaling-applied-twice: the scaling applied twice.
// the scaling's per-pair ratio applied twice (GGUF rope_freqs plus the scaling)
// Corpus rows (tests/cli/corpus_answers.json) that it matches: buggy_kernels/scaling_twice.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("scaling-applied-twice",
  R"md(`matches the scaling applied twice: frequencies divided by up to 64 where the scaling divides by 8`)md",
  R"md(θ_i·(θ_i/θ0_i): the scaling's ratio per pair applied twice, the factor in `found.factor`)md",
  R"md(GGUF `rope_freqs` (Llama 3.1's factors) applied on top of the llama3 (or YaRN) frequencies)md")
// clang-format on
#else
namespace rope::variants::scaling_applied_twice {

/// The scaling's ratio applied twice (GGUF rope_freqs on top of rope_scaling): θ_i · (θ_i / θ0_i).
void scaling_twice_build(F f, Out out) {
  const RopeExpectation& e = f.expected;
  const Eigen::VectorXd plain = ladder_theta(e.base(), e.rotary_dim());
  const RopeExpectation s = with_theta(e, e.theta().cwiseProduct(e.theta()).cwiseQuotient(plain));
  const double factor = (plain.cwiseQuotient(e.theta())).maxCoeff();
  if (s.theta() != e.theta() && std::isfinite(factor)) {
    put(out, s).found = {{"factor", factor}};
  }
}

VariantRow row() {
  VariantRow r;
  r.name = "scaling-applied-twice";
  r.detection = VariantDetection::Compared;
  r.parameters = "factor";
  r.changes = [](E) { return msg("the scaling applied twice"); };
  r.says = [](S c) {
    return msg(
        "matches the scaling applied twice: frequencies divided by up to {0} where the scaling divides by {1} "
        "(GGUF rope_freqs applied on top of the scaling?)",
        fmt::format("{:.6g}", found_value(c) * found_value(c)), fmt::format("{:.6g}", found_value(c)));
  };
  r.from_expectation = {[](F f) { return not_fope(f) && f.expected.scaled() && f.expected.base() > 0; },
                        scaling_twice_build};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::scaling_applied_twice
#endif
