// e-slot-unrotated: llama.cpp's unrotated fourth-slot pairs.
// llama.cpp's IMROPE pairs of the fourth slot (e), 0 for text: unrotated where HF turns them
// Corpus rows (tests/cli/corpus_answers.json) that it matches: none.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("e-slot-unrotated",
  R"md(`matches pairs 61, 62 left unrotated: llama.cpp feeds them from its fourth position slot`)md",
  R"md(Hugging Face's interleaved M-RoPE map with the pairs of llama.cpp's IMROPE e-slot not turning)md",
  R"md(a llama.cpp Qwen3-VL dump (text tokens (p, p, p, 0)) checked with the Hugging Face config: check it with the GGUF file)md")
ROPE_VARIANT_DOC("e-slot-unrotated",
  R"md(`matches pairs 61, 62 left unrotated: they read the fourth position slot, which the dump took as 0`)md",
  R"md(a GGUF's MROPE or IMROPE map with the fourth slot's pairs not turning, the positions given having a value there)md",
  R"md(a kernel or harness that wrote a text token's (p, p, p, 0) where the model's code passes a fourth position (Qwen4-exp's block keys (b, b, b, b)))md")
// clang-format on
#else
namespace rope::variants::e_slot_unrotated {

Message e_slot_says(S c) {
  const std::vector<int> hf = llama_cpp_unrotated_pairs(c.expected);
  if (!hf.empty()) {
    return msg(
        "matches pairs {0} left unrotated: llama.cpp feeds them from its fourth position slot, 0 for a text token (p, "
        "p, p, 0), where this map turns them; check a llama.cpp dump with the model's GGUF file",
        check_number_list(std::vector<long>(hf.begin(), hf.end())));
  }
  const std::vector<int> pairs = ggml_fourth_slot_pairs(c.expected);
  return msg(
      "matches pairs {0} left unrotated: they read the fourth position slot, which the dump took as 0 (a text token's "
      "(p, p, p, 0)) where the positions given have a value there",
      check_number_list(std::vector<long>(pairs.begin(), pairs.end())));
}

/// The pairs of the e slot: llama.cpp's IMROPE pairs HF's map turns, else those of a GGUF's own map.
std::vector<int> e_slot_pairs(E e) {
  std::vector<int> unrotated = llama_cpp_unrotated_pairs(e);
  return unrotated.empty() ? ggml_fourth_slot_pairs(e) : unrotated;
}

/// llama.cpp's e slot: HF's interleaved map against llama.cpp's IMROPE; a GGUF's own map only where some position
/// fills the fourth slot (one number p is (p, p, p, 0) already, the variant the expectation).
bool e_slot_applies(F f) {
  const RopeExpectation& e = f.expected;
  if (!not_fope(f)) return false;
  if (!llama_cpp_unrotated_pairs(e).empty()) return true;
  if (ggml_fourth_slot_pairs(e).empty()) return false;
  const auto fourth = [&](const AxisPosition& p) { return axis_component(*e.rope.axes, p, 3) != 0; };
  return f.dump == nullptr || std::any_of(f.dump->positions.begin(), f.dump->positions.end(), fourth);
}

void e_slot_build(F f, Out out) {
  RopeExpectation s = f.expected;
  for (const int j : e_slot_pairs(f.expected)) s.rope.params.inv_freq[j] = 0;
  put(out, s);
}

VariantRow row() {
  VariantRow r;
  r.name = "e-slot-unrotated";
  r.detection = VariantDetection::Compared;
  r.parameters = "";
  r.changes = [](E) { return msg("llama.cpp's unrotated fourth-slot pairs"); };
  r.says = e_slot_says;
  r.from_expectation = {e_slot_applies, e_slot_build};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::e_slot_unrotated
#endif
