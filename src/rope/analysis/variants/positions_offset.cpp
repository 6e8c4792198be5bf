// positions-offset: the positions plus a constant offset.
// Every vector (of a segment, or of some heads) turned at its position plus a constant δ: positions forgotten or offset
// (position_offset.hpp (P1)): found "offset".
// Corpus rows (tests/cli/corpus_answers.json) that it matches: buggy_kernels/cp_rank_contiguous,
// buggy_kernels/cp_rank_zigzag, buggy_kernels/head_offset, buggy_kernels/packed_offset,
// buggy_kernels/positions_forgotten, buggy_kernels/row_offset, diagnosis_2026/cp_rank_numbered_globally.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("positions-offset",
  R"md(`matches every position shifted by +40000 (the first at 40000 where the positions given start at 0): the positions are missing or offset; give the dump's own (--positions)`; with batch rows or packed sequences `1 of 2 batch rows fail, each matching its positions shifted by a constant (row: shift) 1: +5000`)md",
  R"md(the positions plus a constant δ (JSON `positions-offset`, found `offset`), per batch row or packed sequence; a context-parallel rank's tokens turned in their order from one constant k (found `order_offset`), where no one cp size and layout give both the positions given and the dump's)md",
  R"md(positions not given to rope (a dump at 40000 + i checked at 0 … n − 1), a row's or sequence's start left out of `position_ids`, a context-parallel rank checked at another rank's positions (contiguous layout: one offset). Where one offset does not fit the whole, the next is measured where it stops fitting, at most 4 pieces (`matches the positions shifted by a constant in pieces (from index: shift) 0: +64, 64: -64`, found `offset`, `from`, `offset_1`, `from_1`, …); where some heads fail and the others pass, each failing head's δ is measured at its vector of the first failing index and the heads are confirmed over the whole dump (under each δ, its heads fail nowhere): `1 of 4 heads fail, each matching its positions shifted by a constant (head: shift) 3: +5000, the other heads pass: those heads' positions are offset` (found `offset`, `head`, then `offset_1`, `head_1`, …, `batch` where the heads' groups span batch rows, and `heads` the number of failing heads; at most 16 heads, not on the failing path's sample of a streamed dump; `rope identify` names the same heads with the same shifts, `head_offsets`); pieces that are one sequence's context-parallel ranks (zigzag, contiguous or round-robin, cp size up to 64, at least 4 positions; `rope positions --cp-size`) are named as the rank: `matches context-parallel rank 1's positions (zigzag, cp size 2) where rank 0's are given` (found `cp_size`, `cp_rank`, `given_rank`), or, where the positions given restart per sequence, as the rank of the packed batch cut as one sequence (found `one_sequence`; the example in "Dumps of a distributed run" below). Over packed sequences, the dump's position is read at every token ((P1) with δ = 0 allowed, \|δ\| ≤ 64·n, at most 2^16 tokens) and the whole rank is named when its every token fits: another rank's positions of the same packed batch (its sequences each cp times as long, zigzag or contiguous; found `cp_rank`, `given_rank`, with the `rope positions` command of the batch), the rank's own positions of the batch cut as one sequence (found `one_sequence`), or the rank's token order 0 … n − 1 where a rank's positions are given (`matches the positions 0 … 15, the tokens' order on this rank, where a context-parallel rank's positions are given: the positions were not offset per rank`, found `not_offset`; a cos/sin cache read at p mod L fits one sequence of such a rank by coincidence); a sequence whose pieces are such a rank's is never said to be shifted by a constant. δ is measured from the first failing vector's pair angles: δ·θ_i ≡ φ_i − p·θ_i (mod 2π) for every pair, unwrapped from the lowest frequency up, rounded to an integer (\|δ\| ≤ 2^24), and confirmed by comparing the whole dump (src/rope/analysis/check/position_offset.hpp (P1)))md")
// clang-format on
#else
namespace rope::variants::positions_offset {

/// The value of the found parameter `key`, or nullopt.
std::optional<double> found_named(S c, const std::string& key) {
  for (const auto& [k, v] : c.diagnosis.found) {
    if (k == key) return v;
  }
  return std::nullopt;
}

Message positions_offset_says(S c) {
  if (const std::optional<double> cp = found_named(c, "cp_size")) {
    const auto layout = static_cast<CpLayout>(static_cast<int>(*found_named(c, "layout")));
    if (found_named(c, "one_sequence")) {
      return msg(
          "matches context-parallel rank {0}'s positions with the packed batch cut as one sequence ({1}, cp size {2}), "
          "where the positions given restart at each sequence: the batch was split without its sequence starts "
          "(position_ids of the packed sequences ignored for this rank)",
          static_cast<long>(*found_named(c, "cp_rank")), std::string(to_string(layout)), static_cast<long>(*cp));
    }
    return msg(
        "matches context-parallel rank {0}'s positions ({1}, cp size {2}) where rank {3}'s are given: the dump "
        "holds another rank's slice of the sequence (give that rank's positions: rope positions {4})",
        static_cast<long>(*found_named(c, "cp_rank")), std::string(to_string(layout)), static_cast<long>(*cp),
        static_cast<long>(*found_named(c, "given_rank")),
        fmt::format("{} 0,{} {} {} {} {} {} {}", option_name("sequence_starts"),
                    static_cast<long>(*cp) * static_cast<long>(c.positions.size()), option_name("cp_size"),
                    static_cast<long>(*cp), option_name("cp_rank"), static_cast<long>(*found_named(c, "cp_rank")),
                    option_name("cp_layout"), to_string(layout)));
  }
  if (const std::optional<double> k = found_named(c, "order_offset")) {  // the tokens' order plus one constant
    const auto n = static_cast<long>(c.positions.size());
    const std::string first = format_number(*k), last = format_number(*k + static_cast<double>(n - 1));
    return static_cast<long>(*k) % n == 0
               ? msg("matches the positions {0} … {1}, the tokens' order on this rank plus one constant {0} = {2} × "
                     "{3} (a multiple of this rank's {3} tokens), where a context-parallel rank's positions are "
                     "given: the rank numbered its tokens after the ranks before it, across the batch, instead of "
                     "taking its chunks' positions within their sequences",
                     first, last, static_cast<long>(*k) / n, n)
               : msg("matches the positions {0} … {1}, the tokens' order on this rank plus one constant {0}, where a "
                     "context-parallel rank's positions are given: the rank numbered its tokens from {0} instead of "
                     "taking its chunks' positions within their sequences",
                     first, last);
  }
  if (const std::optional<double> heads = found_named(c, "heads")) {  // some heads offset, each its own δ
    std::string shifts;
    const bool batch = found_named(c, "batch").has_value();
    for (int k = 0;; ++k) {
      const std::string n = k == 0 ? "" : "_" + std::to_string(k);
      const std::optional<double> off = found_named(c, "offset" + n), head = found_named(c, "head" + n);
      if (!off || !head) break;
      shifts += batch ? fmt::format("{}{}, {}: {:+}", k ? "; " : "", *found_named(c, "batch" + n), *head, *off)
                      : fmt::format("{}{}: {:+}", k ? ", " : "", *head, *off);
    }
    return batch ? msg("{0} of {1} heads fail, each matching its positions shifted by a constant (batch row, head: "
                       "shift) {2}, the other heads pass: those heads' positions are offset",
                       static_cast<long>(*heads), c.groups, shifts)
                 : msg("{0} of {1} heads fail, each matching its positions shifted by a constant (head: shift) {2}, "
                       "the other heads pass: those heads' positions are offset",
                       static_cast<long>(*heads), c.groups, shifts);
  }
  if (found_named(c, "from_1")) {
    std::string pieces;
    for (int k = 0;; ++k) {
      const std::string n = k == 0 ? "" : "_" + std::to_string(k);
      const std::optional<double> off = found_named(c, "offset" + n), from = found_named(c, "from" + n);
      if (!off || !from) break;
      pieces += fmt::format("{}{}: {:+}", k ? ", " : "", *from, *off);
    }
    return msg(
        "matches the positions shifted by a constant in pieces (from index: shift) {0}: the positions given are "
        "offset differently in each part (another context-parallel rank's chunks? packed sequences whose starts were "
        "left out?)",
        pieces);
  }
  const double delta = found_value(c), first = c.positions.front()[0];
  if (c.expected.mode == CheckMode::Shift) return shift_off_says(c, delta);  // --shift takes no positions
  return msg(
      "matches every position shifted by {0} (the first at {1} where the positions given start at {2}): the "
      "positions are missing or offset; give the dump's own ({3})",
      fmt::format("{:+}", delta), format_number(first + delta), format_number(first), option_name("positions"));
}

VariantRow row() {
  VariantRow r;
  r.name = "positions-offset";
  r.detection = VariantDetection::Measured;
  r.parameters = "offset";
  r.changes = [](E) { return msg("the positions plus a constant offset"); };
  r.says = positions_offset_says;
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::positions_offset
#endif
