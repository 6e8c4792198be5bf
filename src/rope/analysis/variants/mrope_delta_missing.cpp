// mrope-delta-missing: decode tokens without rope_deltas.
// M-RoPE decode tokens at their index, without rope_deltas: found "delta"
// Corpus rows (tests/cli/corpus_answers.json) that it matches: buggy_kernels/mrope_no_delta,
// make_dumps/bug_mrope_decode_no_delta.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("mrope-delta-missing",
  R"md(`matches the decode tokens at their sequence index, without rope_deltas -12`)md",
  R"md(the decode tokens at index instead of index + δ (given `--rope-delta δ`), `found.delta`)md",
  R"md(the M-RoPE delta dropped after the prefill (TensorRT-LLM PR #15661: positions `index` instead of `index + rope_deltas`))md")
// clang-format on
#else
namespace rope::variants::mrope_delta_missing {

VariantRow row() {
  VariantRow r;
  r.name = "mrope-delta-missing";
  r.detection = VariantDetection::Compared;
  r.parameters = "delta";
  r.changes = [](E) { return msg("decode tokens without rope_deltas"); };
  r.says = [](S c) {
    return msg(
        "matches the decode tokens at their sequence index, without rope_deltas {0}: the kernel drops the M-RoPE "
        "delta (positions index instead of index + rope_deltas)",
        fmt::format("{:g}", c.expected.rope_delta));
  };
  r.from_expectation = {[](F f) { return not_fope(f) && f.expected.rope_delta != 0; },
                        [](F f, Out out) {
                          const double delta = f.expected.rope_delta;
                          put(out, f.expected, -delta).found = {{"delta", delta}};
                        }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::mrope_delta_missing
#endif
