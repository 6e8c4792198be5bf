// fope-kv-head-other: FoPE's other key-value heads.
// FoPE with --kv-head H, the dump on another key-value head's coefficients (its heads sliced from
// another head than the one named; found "kv_head", the head whose matrix it matches).
// Corpus rows (tests/cli/corpus_answers.json) that it matches: fope/vllm_kv2_k_as_head_0.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("fope-kv-head-other",
  R"md(`matches key-value head 1's coefficients, not head 0's: the dump holds key-value head 1's heads (--kv-head 1)`)md",
  R"md(with `--kv-head H` and a coefficient matrix per key-value head (`fope_sep_head`): each other head's matrix, every vector on it (JSON `fope-kv-head-other`, `found.kv_head`: the head it matches))md",
  R"md(a dump of one head sliced from another key-value head than the one named (`k[:, h]` for head h′, a query head's group taken as h / group of another group size); data/dumps/fope_tiny_k1*.npy checked with `--kv-head 0` (docs/multi-axis.md §7), tests/cli/test_cmd_check_qk.cpp with tests/reference/fope.py's `vllm_kv2`)md")
// clang-format on
#else
namespace rope::variants::fope_kv_head_other {

/// fope-kv-head-other: the other key-value heads tried (Intern-S1-Pro has 4; a variant each).
constexpr long kMaxFopeKvHeadsTried = 64;

VariantRow row() {
  VariantRow r;
  r.name = "fope-kv-head-other";
  r.detection = VariantDetection::Compared;
  r.parameters = "kv_head";
  r.changes = [](E) { return msg("FoPE's other key-value heads"); };
  r.says = [](S c) {
    return msg(
        "matches key-value head {0}'s coefficients, not head {1}'s: the dump holds key-value head {0}'s "
        "heads ({2} {0})",
        static_cast<long>(found_value(c)), c.expected.fope_matrix, option_name("kv_head"));
  };
  // --kv-head H with a matrix per key-value head: each other head's (at most kMaxFopeKvHeadsTried of them)
  r.from_expectation = {
      [](F f) { return f.expected.fope && f.expected.fope_matrix >= 0 && f.expected.fope->heads > 1; },
      [](F f, Out out) {
        const long heads = std::min<long>(f.expected.fope->heads, kMaxFopeKvHeadsTried);
        for (long h = 0; h < heads; ++h) {
          if (h == f.expected.fope_matrix) continue;
          RopeExpectation other = f.expected;
          other.fope_matrix = h;
          put(out, other).found = {{"kv_head", static_cast<double>(h)}};
        }
      }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::fope_kv_head_other
#endif
