// output-deinterleaved: the output de-interleaved, as HF's DeepSeek-V3 writes it.
// The pairs written de-interleaved, at (i, i + r/2), where the spec keeps the interleaved order: an HF DeepSeek-V3 dump
// checked as llama.cpp's (or with plain interleaved RoPE).
// Corpus rows (tests/cli/corpus_answers.json) that it matches: buggy_kernels/deepseek_hf_as_llama_cpp,
// buggy_kernels/deepseek_hf_as_llama_cpp_strict.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("output-deinterleaved",
  R"md(`the output is de-interleaved, as HF's DeepSeek-V3 computes it (apply_rotary_pos_emb_interleave)`)md",
  R"md(the reverse: each pair read at (2i, 2i + 1) and written at (i, i + r/2), where the spec writes it back in place)md",
  R"md(not a bug, so the check passes as equivalent (JSON `equivalent: "de-interleaved"`; `--strict-order` fails it): an HF DeepSeek-V3 dump checked with the GGUF file or `--layout interleaved`; check it with `--model` or its config.json, without `--layout`; `rope identify` reads such an output back in place and names the order (`output_order: "de-interleaved"`))md")
// clang-format on
#else
namespace rope::variants::output_deinterleaved {

VariantRow row() {
  VariantRow r;
  r.name = "output-deinterleaved";
  r.detection = VariantDetection::Compared;
  r.parameters = "";
  r.changes = [](E) { return msg("the output de-interleaved, as HF's DeepSeek-V3 writes it"); };
  r.says = [](S c) {
    return msg(
        "the output is de-interleaved, as HF's DeepSeek-V3 computes it (apply_rotary_pos_emb_interleave): pair i, "
        "read at channels (2i, 2i + 1), is written at (i, i + {0}), where the spec (llama.cpp's order) writes it "
        "back in place; q·k is the same. Check an HF dump with the model's config.json or preset ({1}), "
        "without {2}",
        c.expected.rotary_dim() / 2, option_name("model"), option_name("layout"));
  };
  r.from_expectation = {[](F f) { return deinterleaving(f) && !f.expected.rope.deinterleaved_output; },
                        [](F f, Out out) { put(out, written_in_order(f.expected, true)); }};
  r.equivalent = "de-interleaved";
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::output_deinterleaved
#endif
