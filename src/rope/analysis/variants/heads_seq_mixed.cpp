// heads-seq-mixed: heads and sequence mixed by a reshape.
// [seq, heads] viewed as [heads, seq]: vector (s, h) at position index (s·H + h) mod S
// Corpus rows (tests/cli/corpus_answers.json) that it matches: buggy_kernels/heads_seq_mixed.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("heads-seq-mixed",
  R"md(`matches each vector turned at the position of index (s·4 + h) mod 16: heads and sequence mixed by a reshape`)md",
  R"md(vector (s, h) turned at the position of index (s·H + h) mod S (`found.groups` = H))md",
  R"md(`q.view(B, H, S, D)` where `q.transpose(1, 2)` belongs)md")
// clang-format on
#else
namespace rope::variants::heads_seq_mixed {

VariantRow row() {
  VariantRow r;
  r.name = "heads-seq-mixed";
  r.detection = VariantDetection::FromDump;
  r.parameters = "groups";
  r.changes = [](E) { return msg("heads and sequence mixed by a reshape"); };
  r.says = [](S c) {
    return msg(
        "matches each vector turned at the position of index (s·{0} + h) mod {1}: heads and sequence mixed by a "
        "reshape (view) where a transpose belongs",
        c.groups, c.positions.size());
  };
  r.from_dump = {[](F f) { return dump_shown(f) && f.dump->groups > 1 && f.dump->positions.size() > 1; },
                 [](F f, Out out) {
                   Variant& v = put(out, f.expected);
                   v.heads_mixed = true;
                   v.found = {{"groups", static_cast<double>(f.dump->groups)}};
                 }};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::heads_seq_mixed
#endif
