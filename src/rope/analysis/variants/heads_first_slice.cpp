// heads-first-slice: every head turned by the first head's slice of a table over all heads.
// A table built over every head's channels whose heads each take their own slice (LTX-2's rope_type "split",
// transformer_ltx2.py LTX2AudioVideoRotaryPosEmbed), applied with head 0's slice to every head: a port that builds
// the table for one head (found `heads`: the heads of the table).
// Corpus rows (tests/cli/corpus_answers.json) that it matches: ltx2_rope/mistake_ltx2_heads_first_slice_f32.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("heads-first-slice",
  R"md(`matches every head turned by the first head's slice of the table (pairs 0 … 31), where rope_type split gives head h its own (pairs h·32 … h·32 + 31) …`)md",
  R"md(a table built over the channels of every head, each head its own slice of it (LTX-2's `rope_type` "split"), applied with head 0's slice to every head (found `heads`))md",
  R"md(a port of LTX-2's `LTX2AudioVideoRotaryPosEmbed` that builds the table for one head of `attention_head_dim` channels, or slices it with the head index left at 0 (transformer_ltx2.py))md")
// clang-format on
#else
namespace rope::variants::heads_first_slice {

/// Head h's pair k turned as head 0's: θ_k and axis a(k) of the first slice for every head (transformer_ltx2.py
/// 1054-1075 reshapes the dim/2 angles into (heads, dim/(2·heads)); the mistake reads row 0 for every head).
void first_slice_build(F f, Out out) {
  const RopeExpectation& e = f.expected;
  const int heads = e.rope.head_slices;
  const int per = e.rotary_dim() / (2 * heads);
  const Eigen::VectorXd& theta = e.theta();
  Eigen::VectorXd first(theta.size());
  for (Eigen::Index i = 0; i < theta.size(); ++i) first[i] = theta[i % per];
  RopeExpectation s = with_theta(e, std::move(first));
  AxisMap& map = *s.rope.axes;
  for (std::size_t i = 0; i < map.pair_axis.size(); ++i) map.pair_axis[i] = map.pair_axis[i % per];
  put(out, std::move(s)).found = {{"heads", static_cast<double>(heads)}};
}

VariantRow row() {
  VariantRow r;
  r.name = "heads-first-slice";
  r.detection = VariantDetection::Compared;
  r.parameters = "heads";
  r.changes = [](E) { return msg("every head turned by the first head's slice of the table"); };
  r.says = [](S c) {
    const int heads = static_cast<int>(found_value(c, 0));
    const int per = c.expected.rotary_dim() / (2 * std::max(heads, 1));
    return msg(
        "matches every head turned by the first head's slice of the table (pairs 0 … {0}), where rope_type split "
        "gives head h its own (pairs h·{1} … h·{1} + {0}): a table built for one head, or sliced at head 0 for all "
        "{2} (transformer_ltx2.py:1054-1075)",
        per - 1, per, heads);
  };
  r.from_expectation = {[](F f) { return has_axes(f) && f.expected.rope.head_slices > 1; }, first_slice_build};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::heads_first_slice
#endif
