// qk-crossed: q and k crossed in a fused kernel.
// Found with q and k together (qk_pair.hpp; ColossalAI PR #6429's fused_rotary_emb): one element of
// each of q's rotated pairs computed from k's values and one of k's from q's.
// Under the other GQA head map (q head h with k head h mod H_k, k head g with q head g) found "heads_modulo" 1,
// "q_heads" and "k_heads".
// Corpus rows (tests/cli/corpus_answers.json) that it matches: qk_pairs/crossed, diagnosis_2026/qk_crossed_modulo.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("qk-crossed",
  R"md(`matches q and k crossed: the second element of each of q's rotated pairs is k's pair rotated, the first of each of k's is q's`)md",
  R"md(with `--k-before`/`--k-after`: out_q1 from k's pair, out_k0 from q's (q head h with k head h/(H_q/H_k)), or under the other GQA head map (k head h mod H_k, q head g: `found.heads_modulo` 1, `matches q and k crossed under the other GQA head map …`); named in both tensors' diagnoses)md",
  R"md(a fused q/k kernel loading the other tensor's half (ColossalAI issue #6428, PR #6429: Triton `fused_rotary_emb`); [q and k together](#q-and-k-together---k-before---k-after))md")
// clang-format on
#else
namespace rope::variants::qk_crossed {

VariantRow row() {
  VariantRow r;
  r.name = "qk-crossed";
  r.detection = VariantDetection::Paired;
  r.parameters = "heads_modulo, q_heads, k_heads";
  r.changes = [](E) { return msg("q and k crossed in a fused kernel"); };
  r.says = [](S c) {
    if (c.diagnosis.found.size() == 3 && found_value(c) != 0) {
      const auto q_heads = static_cast<long>(found_value(c, 1)), k_heads = static_cast<long>(found_value(c, 2));
      return msg(
          "matches q and k crossed under the other GQA head map: the second element of each of q's rotated pairs is "
          "k's pair rotated, k head h mod {0} for q head h (not h / {1}), the first of each of k's is q head g's (a "
          "fused q/k kernel that loads the other tensor's half, its key-value heads tiled where the attention repeats "
          "each)",
          k_heads, q_heads / std::max(1L, k_heads));
    }
    return msg(
        "matches q and k crossed: the second element of each of q's rotated pairs is k's pair rotated, the "
        "first of each of k's is q's (a fused q/k kernel that loads the other tensor's half)");
  };
  // Neither tensor the expected rotation, both crossed under one GQA head map: named in both diagnoses, under the
  // other map (k head h mod H_k, q head g) with "heads_modulo" 1 and the head counts.
  r.paired = [](const PairedFacts& f) -> std::optional<PairedReading> {
    if (f.q_expected || f.k_expected || !(f.crossed[0] || f.crossed[1])) return std::nullopt;
    PairedReading out{true, true, {}};
    if (!f.crossed[0]) {
      out.found = {{"heads_modulo", 1.0},
                   {"q_heads", static_cast<double>(f.q_heads)},
                   {"k_heads", static_cast<double>(f.k_heads)}};
      out.difference = {{"heads_modulo", 0, 1}};  // the GQA head map: h mod H_k where h / (H_q/H_k) belongs
    }
    return out;
  };
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::qk_crossed
#endif
