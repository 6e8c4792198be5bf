// engine-reading-other: the reading of this config by another engine than the one checked.
// Engines read some configs otherwise (models/scaling/longrope_engine.hpp): dynamic NTK's base, HF's at the dump's
// length, vLLM's once at its max_model_len; DeepSeek-V4's RoPE per layer, HF's port turning every layer's queries
// with rope_parameters.main, the official inference (and vLLM, SGLang, llama.cpp) a compressed layer's with compress.
// The expectation holds the other reading's frequencies and its sentence (expectation.cpp).
// Corpus rows (tests/cli/corpus_answers.json) that it matches: deepseek_v4_official/hf_layer2_read_as_official,
// deepseek_v4_official/official_layer2_read_as_hf, diagnosis_2026/dynamic_at_longest,
// dynamic_engines/hf_read_as_vllm, dynamic_engines/hf_short_read_as_vllm, dynamic_engines/vllm_read_as_hf.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("engine-reading-other",
  R"md(`matches vLLM's reading of this config, not HF's: dynamic NTK's base 135402 computed once at start-up at max_model_len 16384, where HF computes it at the dump's length, L = max(max position + 1, M) = 4096 (base 10000)` (or the reverse under `--engine vllm`))md",
  R"md(the frequencies of another engine's reading of the config (dynamic NTK: that reading's length and base, `found.length`, `found.base`))md",
  R"md(one config, two readings (docs/scaling.md, "Dynamic NTK's length, per engine"): dynamic NTK's base at the dump's length (HF) or once at max_model_len (vLLM, f·M unless given, unguarded below M); `--engine hf\|vllm` checks with that engine's reading)md")
// clang-format on
#else
namespace rope::variants::engine_reading_other {

VariantRow row() {
  VariantRow r;
  r.name = "engine-reading-other";
  r.detection = VariantDetection::Compared;
  r.parameters = "length,base";
  r.changes = [](E) { return msg("the frequencies of another engine's reading of the config"); };
  r.says = [](S c) {
    return c.expected.engine_other ? c.expected.engine_other->says
                                   : msg("the frequencies of another engine's reading of the config");
  };
  r.from_expectation = {[](F f) { return not_fope(f) && f.expected.engine_other.has_value(); },
                        [](F f, Out out) {
                          RopeExpectation o = with_theta(f.expected, f.expected.engine_other->theta);
                          o.rope.params.attention_factor = f.expected.engine_other->attention_factor;
                          Variant& v = put(out, o);
                          v.found = f.expected.engine_other->found;
                          v.difference = f.expected.engine_other->difference;
                        }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::engine_reading_other
#endif
