// query-scaling-missing: the query's scaling s(p) not applied.
// a query dump of a model that scales its queries after RoPE (docs/scaling.md (S21), (S20)) matching RoPE alone
// Corpus rows (tests/cli/corpus_answers.json) that it matches: hf_families/bug_ministral3_query_unscaled_f64.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("query-scaling-missing",
  R"md(`matches RoPE without the query's scaling s(p) = 1 + β·ln(1 + ⌊p / L0⌋) (β = 0.1, L0 = 16384): …`)md",
  R"md(the expectation of `--query` with s(p) = 1 at every position: RoPE alone, the magnitude differing from position L0 on)md",
  R"md(a port of Ministral 3 or Mistral 4 (HF `get_llama_4_attn_scale`) or of Llama 4's NoPE layers that leaves out the query's scaling after RoPE)md")
// clang-format on
#else
namespace rope::variants::query_scaling_missing {

VariantRow row() {
  VariantRow r;
  r.name = "query-scaling-missing";
  r.detection = VariantDetection::Compared;
  r.parameters = "";
  r.changes = [](E) { return msg("the query's scaling s(p) not applied"); };
  r.says = [](S c) {
    const RopeExpectation& e = c.expected;
    return e.query_shift != 0
               ? msg("matches RoPE without the query's scaling s(p) = 1 + β·ln(1 + ⌊(p + 1) / L0⌋) (β = {0}, L0 = "
                     "{1}): the query is not scaled after RoPE, wrong from position {2} on (docs/scaling.md (S20))",
                     fmt::format("{:g}", e.query_beta), fmt::format("{:g}", e.query_original),
                     fmt::format("{:g}", e.query_original - 1))
               : msg("matches RoPE without the query's scaling s(p) = 1 + β·ln(1 + ⌊p / L0⌋) (β = {0}, L0 = {1}): "
                     "the query is not scaled after RoPE, wrong from position {1} on (docs/scaling.md (S21))",
                     fmt::format("{:g}", e.query_beta), fmt::format("{:g}", e.query_original));
  };
  r.from_expectation = {[](F f) { return not_fope(f) && f.expected.query_beta != 0; },
                        [](F f, Out out) {
                          RopeExpectation s = f.expected;
                          s.query_beta = 0;
                          put(out, s);
                        }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::query_scaling_missing
#endif
