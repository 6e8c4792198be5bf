// longrope-other-list: LongRoPE's other factor list.
// LongRoPE's other factor list (llama.cpp chooses it by n_ctx, not by the positions)
// Corpus rows (tests/cli/corpus_answers.json) that it matches: longrope_engines/hf_at_l0_read_as_sglang,
// longrope_engines/llamacpp_short_read_long, longrope_engines/sglang_at_l0_read_as_hf,
// longrope_engines/vllm_long_at_10_read_as_hf.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("longrope-other-list",
  R"md(`matches LongRoPE's short factors, not the long ones the rule checked takes (length 4097 > L0 4096) at the dump's largest position 4096: SGLang takes it at this position …` (or the reverse))md",
  R"md(the other LongRoPE factor list)md",
  R"md(the engines choose Phi-3's list by different rules (docs/scaling.md, "Which LongRoPE list, per engine"): HF by max(position) + 1 > L0, SGLang by any position > L0 of the whole batch, vLLM by max_model_len and llama.cpp by n_ctx, both fixed at start-up; the sentence names the engines whose rule takes the list the dump matches; `--engine hf\|vllm\|sglang\|llamacpp` checks with that engine's rule)md")
// clang-format on
#else
namespace rope::variants::longrope_other_list {

/// The list the dump matches, the rule's length against L0 at the dump's largest position, and the engines whose rule
/// takes that list there (longrope_engine.hpp).
Message longrope_other_says(S c) {
  const RopeSpec& spec = c.expected.rope;
  double m = 0;
  for (const AxisPosition& p : c.positions) m = std::max(m, p.max_abs());
  const long n = spec.config.seq_len.value_or(0), l0 = spec.params.original_max_position;
  const bool is_short = c.expected.longrope_other && c.expected.longrope_other->is_short;
  const Message engines = longrope_engines_for(is_short, m, l0);
  return is_short ? msg("matches LongRoPE's short factors, not the long ones the rule checked takes (length {0} > L0 "
                        "{1}) at the dump's largest position {2}: {3}",
                        n, l0, fmt::format("{:g}", m), engines)
                  : msg("matches LongRoPE's long factors, not the short ones the rule checked takes (length {0} <= L0 "
                        "{1}) at the dump's largest position {2}: {3}",
                        n, l0, fmt::format("{:g}", m), engines);
}

VariantRow row() {
  VariantRow r;
  r.name = "longrope-other-list";
  r.detection = VariantDetection::Compared;
  r.parameters = "";
  r.changes = [](E) { return msg("LongRoPE's other factor list"); };
  r.says = longrope_other_says;
  r.from_expectation = {
      [](F f) { return not_fope(f) && f.expected.longrope_other.has_value(); },
      // sglang python/sglang/srt/layers/rotary_embedding/rope_variant.py @ 6170d97567,
      // Phi3LongRoPEScaledRotaryEmbedding.forward: idx = positions + L0·any(positions > L0) into [short | long].
      [](F f, Out out) {
        const RopeExpectation& e = f.expected;
        RopeExpectation other = with_theta(e, e.longrope_other->theta);
        // The long list as SGLang's long path reads it: every token at its position + L0, the one at L0 included.
        other.longrope_l0_unturned = 0;
        put(out, other);
        // The short list as SGLang's short path reads it: the token at L0 from row L0, the long list's position 0.
        if (e.longrope_other->is_short && e.rope.params.original_max_position > 0) {
          other.longrope_l0_unturned = static_cast<double>(e.rope.params.original_max_position);
          put(out, other);
        }
      }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::longrope_other_list
#endif
