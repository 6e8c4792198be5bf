// output-interleaved: the output in the interleaved order, as llama.cpp writes it.
// The pairs written back in the interleaved order, (2i, 2i + 1), where the spec de-interleaves them (HF's
// apply_rotary_pos_emb_interleave, DeepSeek-V3): a llama.cpp dump (ggml rope mode NORM) checked as HF's.
// Corpus rows (tests/cli/corpus_answers.json) that it matches: buggy_kernels/deepseek_llama_cpp,
// buggy_kernels/deepseek_llama_cpp_strict.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("output-interleaved",
  R"md(`the output is interleaved, as llama.cpp computes it: pair i is written back at channels (2i, 2i + 1), where HF's DeepSeek-V3 (apply_rotary_pos_emb_interleave) de-interleaves it to (i, i + 32)`)md",
  R"md(the expected RoPE with each pair written back at (2i, 2i + 1), where the spec writes it at (i, i + r/2))md",
  R"md(not a bug, so the check passes as equivalent (`verdict  PASS, equivalent: the output in the interleaved order, as llama.cpp writes it`, exit 0; JSON `passed: true`, `equivalent: "interleaved-in-place"`; the header's `output order` row says the spec's order; `--strict-order` makes it a FAIL, exit 1): a llama.cpp dump checked as Hugging Face's DeepSeek-V3 (Kimi K2, Mistral 4). llama.cpp's deepseek2 graph rotates `q_pe` with ggml's mode NORM and keeps the channels in that order (src/models/deepseek2.cpp, ggml-org/llama.cpp at 07bede6a8f32); HF's `apply_rotary_pos_emb_interleave` de-interleaves q and k (`view(b, h, s, d/2, 2).transpose(4, 3).reshape`) before `rotate_half` (src/transformers/models/deepseek_v3/modeling_deepseek_v3.py, transformers at 00b676f8f048); q·k is the same. Check with the GGUF file, or add `--layout interleaved`)md")
// clang-format on
#else
namespace rope::variants::output_interleaved {

VariantRow row() {
  VariantRow r;
  r.name = "output-interleaved";
  r.detection = VariantDetection::Compared;
  r.parameters = "";
  r.changes = [](E) { return msg("the output in the interleaved order, as llama.cpp writes it"); };
  r.says = [](S c) {
    return msg(
        "the output is interleaved, as llama.cpp computes it: pair i is written back at channels (2i, 2i + 1), "
        "where HF's DeepSeek-V3 (apply_rotary_pos_emb_interleave) de-interleaves it to (i, i + {0}); q·k is the "
        "same. Check a llama.cpp dump with the model's GGUF file ({1}), or add {2}",
        c.expected.rotary_dim() / 2, option_name("config") + " model.gguf", option_name("layout") + " interleaved");
  };
  r.from_expectation = {[](F f) { return deinterleaving(f) && f.expected.rope.deinterleaved_output; },
                        [](F f, Out out) { put(out, written_in_order(f.expected, false)); }};
  r.equivalent = "interleaved-in-place";
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::output_interleaved
#endif
