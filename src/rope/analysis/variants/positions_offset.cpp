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

/// A failing range whose first failing vector fits its position plus an integer δ (measured_offset_at): the positions
/// shifted by δ compared over the range and named where it passes (found "offset"); else pieces of constant offset
/// (a context-parallel rank's zigzag chunks at another rank's positions): from where the last offset stops fitting,
/// the next one, on the positions so far shifted, at most kMaxOffsetPieces, named with each piece's offset and first
/// index and the rank whose positions they are (cp_rank_of); not on a sample (its named variant is measured over the
/// whole range as one offset). Nothing for multi-axis positions.
void try_position_offset(CheckReport& report, const DumpSource& source, long start,
                         const std::vector<AxisPosition>& positions) {
  const DumpComparison& e = report.comparison;
  const long s = e.first_seq;
  if (s < 0 || s >= static_cast<long>(positions.size()) || e.first_group < 0 || positions.front().multi()) return;
  const std::optional<long> delta =
      measured_offset_at(report.expected, source, start, s, e.first_group, positions[static_cast<std::size_t>(s)][0]);
  if (!delta) return;
  Variant v = variant_of(known_variant("positions-offset"), report.expected);
  v.position_offset = static_cast<double>(*delta);
  v.found = {{"offset", static_cast<double>(*delta)}};
  report.variants.emplace_back(v.kind, source.compare(start, positions, {v}).front());
  if (report.variants.back().second.passed()) {
    report.diagnosis.matches = known_variant("positions-offset");
    report.diagnosis.found = v.found;
    return;
  }
  // Pieces of constant offset (a context-parallel rank's zigzag chunks at another rank's positions): from where the
  // last offset stops fitting, the next one, on the positions so far shifted; not on a sample (its named variant is
  // measured over the whole range as one offset).
  if (source.sampled()) return;
  std::vector<AxisPosition> shifted = positions;
  std::vector<std::pair<long, double>> pieces;  // (first index, offset from it on)
  Variant expected;
  expected.kind = known_variant("expected"), expected.spec = report.expected;
  long from = s, g = e.first_group;
  double step = static_cast<double>(*delta), total = 0;
  for (int k = 0; k < kMaxOffsetPieces; ++k) {
    total += step;
    pieces.emplace_back(from, total);
    for (std::size_t i = static_cast<std::size_t>(from); i < shifted.size(); ++i) shifted[i].value[0] += step;
    const DumpComparison c = source.compare(start, shifted, {expected}).front();
    if (c.passed()) {
      if (pieces.size() < 2) return;
      report.variants.emplace_back(known_variant("positions-offset"), c);
      std::vector<std::pair<std::string, double>> found;
      for (std::size_t p = 0; p < pieces.size(); ++p) {
        const std::string n = p == 0 ? "" : "_" + std::to_string(p);
        found.emplace_back("offset" + n, pieces[p].second);
        found.emplace_back("from" + n, static_cast<double>(pieces[p].first));
      }
      std::vector<double> dump(shifted.size());
      for (std::size_t i = 0; i < shifted.size(); ++i) dump[i] = shifted[i][0];
      for (auto& f : cp_rank_of(positions, dump)) found.push_back(std::move(f));
      report.diagnosis.matches = known_variant("positions-offset");
      report.diagnosis.found = std::move(found);
      return;
    }
    if (c.first_seq <= from) return;  // no progress: not pieces of offsets
    from = c.first_seq, g = c.first_group;
    const std::optional<long> next =
        measured_offset_at(report.expected, source, start, from, g, shifted[static_cast<std::size_t>(from)][0]);
    if (!next) return;
    step = static_cast<double>(*next);
  }
}

/// Some heads fail, the others pass, and each failing head (group) fits its positions plus its own integer δ, measured
/// from its vector at the first failing index and confirmed over the whole range (the variant of each δ compared in
/// one pass: the heads of that δ fail nowhere under it): found "offset" and "head" (then "offset_1", "head_1", … for
/// the others, and "batch" where the groups hold batch rows), "heads" the number of failing heads. Nothing for
/// multi-axis positions, a sample, or more than kMaxOffsetHeads failing heads.
void try_head_offsets(CheckReport& report, const DumpSource& source, long start,
                      const std::vector<AxisPosition>& positions) {
  const DumpComparison& e = report.comparison;
  const long groups = source.groups(), heads = std::max(1L, source.heads());
  const long s = e.first_seq;
  if (report.diagnosis.matches || groups < 2 || static_cast<long>(e.group_failing.size()) != groups || s < 0 ||
      s >= static_cast<long>(positions.size()) || positions.front().multi() || source.sampled())
    return;
  std::vector<long> failing;
  for (long g = 0; g < groups; ++g) {
    if (e.group_failing[static_cast<std::size_t>(g)] > 0) failing.push_back(g);
  }
  if (failing.empty() || static_cast<long>(failing.size()) == groups ||
      static_cast<long>(failing.size()) > kMaxOffsetHeads)
    return;
  // Each failing head's δ at the first failing index (where a head whose positions are offset fails: its every vector
  // does), or at the next few indices when its vector there turns too little to read.
  std::vector<double> delta;
  for (const long g : failing) {
    std::optional<long> d;
    for (long i = s; i < std::min(s + 4, static_cast<long>(positions.size())) && !d; ++i)
      d = measured_offset_at(report.expected, source, start, i, g, positions[static_cast<std::size_t>(i)][0]);
    if (!d) return;
    delta.push_back(static_cast<double>(*d));
  }
  std::vector<double> distinct = delta;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  std::vector<Variant> variants;
  for (const double d : distinct) {
    variants.push_back(variant_of(known_variant("positions-offset"), report.expected));
    variants.back().position_offset = d;
  }
  const std::vector<DumpComparison> c = source.compare(start, positions, variants);
  for (std::size_t k = 0; k < failing.size(); ++k) {
    const auto at =
        static_cast<std::size_t>(std::lower_bound(distinct.begin(), distinct.end(), delta[k]) - distinct.begin());
    if (c[at].group_failing[static_cast<std::size_t>(failing[k])] != 0) return;
  }
  std::vector<std::pair<std::string, double>> found;
  for (std::size_t k = 0; k < failing.size(); ++k) {
    const std::string n = k == 0 ? "" : "_" + std::to_string(k);
    found.emplace_back("offset" + n, delta[k]);
    found.emplace_back("head" + n, static_cast<double>(failing[k] % heads));
    if (groups > heads) found.emplace_back("batch" + n, static_cast<double>(failing[k] / heads));
  }
  found.emplace_back("heads", static_cast<double>(failing.size()));
  report.diagnosis.matches = known_variant("positions-offset");
  report.diagnosis.found = std::move(found);
}

/// A given table read at other rows: the rows that turn the first failing vector as the dump does (table_rows_turning),
/// each as an offset of the positions, and the first that the whole dump passes under is the match (positions-offset,
/// found "offset").
void try_table_offset(CheckReport& report, const DumpSource& source, long start,
                      const std::vector<AxisPosition>& positions) {
  const DumpComparison& e = report.comparison;
  const RopeExpectation& expected = report.expected;
  if (e.first_seq < 0 || e.first_group < 0 || expected.table->per_token) return;
  const auto [x, y] = source.vector_at(start + e.first_seq, e.first_group);
  const double p = positions[static_cast<std::size_t>(e.first_seq)][0];
  std::vector<Variant> offsets;
  for (const long row : table_rows_turning(expected, x, y, source.dtype(), 8)) {
    if (static_cast<double>(row) == p) continue;
    offsets.push_back(variant_of(known_variant("positions-offset"), expected));
    offsets.back().position_offset = static_cast<double>(row) - p;
    offsets.back().found = {{"offset", offsets.back().position_offset}};  // as the diagnosis names it (a sample's)
  }
  if (offsets.empty()) return;
  std::vector<DumpComparison> compared = source.compare(start, positions, offsets);
  for (std::size_t k = 0; k < offsets.size(); ++k) {
    report.variants.emplace_back(offsets[k].kind, std::move(compared[k]));
    if (!report.variants.back().second.passed()) continue;
    report.diagnosis.matches = offsets[k].kind;
    report.diagnosis.found = offsets[k].found;
    return;
  }
}

/// Batch rows (`rows`) or packed sequences whose whole check matches nothing, while every failing one was diagnosed
/// as its positions plus a constant offset: the whole diagnosis names them, each with its offset ("2 of 4 batch rows
/// fail, each matching its positions shifted by a constant (row: shift) 1: +5000, 3: +7000"), found "offset" the
/// first one's.
void diagnose_segment_offsets(CheckReport& report, const SegmentChecks& checks, bool rows) {
  CheckDiagnosis& dg = report.diagnosis;
  if (dg.matches || checks.failing == 0 || checks.diagnosed() < checks.failing) return;
  std::string shifts;
  std::optional<double> first;
  for (const SegmentCheck& c : checks.listed) {
    if (c.passed()) continue;
    const CheckDiagnosis& own = c.report->diagnosis;
    // One constant, confirmed over the whole segment: pieces of offsets, a context-parallel rank's positions or some
    // heads' own offsets are no constant of the segment, and are not named as one.
    if (own.matches != known_variant("positions-offset") || own.found.size() != 1 ||
        own.found.front().first != "offset")
      return;
    if (!first) first = own.found.front().second;
    shifts += fmt::format("{}{}: {:+}", shifts.empty() ? "" : ", ", c.index, own.found.front().second);
  }
  if (!first) return;
  dg.matches = known_variant("positions-offset");
  dg.found = {{"offset", *first}};
  dg.closest.reset();
  dg.closest_explained = 0;
  dg.departure.reset();
  dg.correct_until.reset();
  dg.message = rows ? msg("{0} of {1} batch rows fail, each matching its positions shifted by a constant (row: shift) "
                          "{2}: those rows' positions are offset (a row's start left out?)",
                          checks.failing, checks.count, shifts)
                    : msg("{0} of {1} packed sequences fail, each matching its positions shifted by a constant "
                          "(sequence: shift) {2}: those sequences' positions are offset (a sequence's start left "
                          "out?)",
                          checks.failing, checks.count, shifts);
}

bool same_positions(const std::vector<long>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (static_cast<double>(a[i]) != b[i]) return false;
  }
  return true;
}

std::string starts_text(const std::vector<long>& starts) {
  std::string out;
  for (const long v : starts) out += (out.empty() ? "" : ",") + std::to_string(v);
  return out;
}

/// A failing range of packed sequences (`segments`, two or more) whose every vector is turned at a context-parallel
/// rank's positions other than those given (a rank's positions from the dump, dump_positions_read with |δ| ≤ 64·n,
/// confirmed by comparing the whole range at them): the positions 0 … n − 1 where a rank's are given (found
/// "not_offset": positions not offset per rank), another rank's of the same packed batch (found "cp_size", "cp_rank",
/// "given_rank", "layout"; the batch is the rank's sequences `segments` each cp times as long, zigzag or contiguous),
/// or the rank's own of the packed batch cut as one sequence (found "one_sequence"). Replaces a diagnosis of the
/// positions (none, pieces of offsets, position_ids ignored, a short cache, a restart, a rank named from pieces),
/// never one constant offset or another kind; tokens numbered across sequences whose positions restart stay
/// position_ids ignored. Nothing for multi-axis positions, a sample, or more than kMaxCpDiagnosedTokens tokens.
void diagnose_cp_positions(CheckReport& report, const DumpSource& source, long start,
                           const std::vector<AxisPosition>& positions, const std::vector<DumpSegment>& segments) {
  CheckDiagnosis& dg = report.diagnosis;
  const auto n = static_cast<long>(positions.size());
  if (report.comparison.passed() || report.expected.mode != CheckMode::Forward || n < kMinCpPositions ||
      n > kMaxCpDiagnosedTokens || source.sampled() || positions.front().multi())
    return;
  // Packed sequences alone (one range's pieces are named by try_position_offset); a diagnosis other than of the
  // positions stands, as does one constant offset (of the range or of each sequence). A rank named from the range's
  // pieces is replaced: those pieces are not checked against the rank's own sequences (0 … n − 1 read as a contiguous
  // rank 0 of the batch cut as one sequence, where a zigzag rank 1's positions are given).
  if (segments.size() < 2) return;
  if (dg.matches && *dg.matches != known_variant("positions-offset") &&
      *dg.matches != known_variant("position-ids-ignored") && *dg.matches != known_variant("cos-sin-cache-short") &&
      *dg.matches != known_variant("positions-restart"))
    return;
  const auto named = [&](const char* key) {
    return std::any_of(dg.found.begin(), dg.found.end(), [&](const auto& f) { return f.first == key; });
  };
  if (dg.matches == known_variant("positions-offset") && dg.found.size() == 1 && named("offset")) return;
  std::vector<double> given(positions.size());
  for (std::size_t i = 0; i < given.size(); ++i) given[i] = positions[i][0];
  for (const double p : given) {
    if (p != std::floor(p) || p < 0) return;
  }
  const std::optional<std::vector<double>> dump =
      dump_positions_read(report.expected, source, start, positions, static_cast<double>(n * kMaxCpSizeTried));
  if (!dump || *dump == given) return;
  // The rank's own sequence starts (its local cu_seqlens), from the packed sequences given, or the range as one.
  std::vector<long> local = {0};
  for (std::size_t k = 1; k < segments.size(); ++k) local.push_back(segments[k].start);
  local.push_back(n);
  // The positions given restart at each sequence from 0 one by one: packed sequences, not a context-parallel rank.
  bool restart_per_sequence = true;
  for (std::size_t k = 0; k + 1 < local.size() && restart_per_sequence; ++k) {
    for (long i = local[k]; i < local[k + 1]; ++i)
      restart_per_sequence = restart_per_sequence && given[static_cast<std::size_t>(i)] == i - local[k];
  }
  std::vector<std::pair<std::string, double>> found;
  Message says;
  bool index_order = true;
  for (long i = 0; i < n && index_order; ++i) index_order = (*dump)[static_cast<std::size_t>(i)] == i;
  // The tokens numbered across the sequences where the positions given restart: position_ids ignored (its own row),
  // which a contiguous split of the batch cut as one sequence would repeat.
  if (index_order && restart_per_sequence) return;
  if (index_order && !restart_per_sequence) {
    found = {{"not_offset", 1.0}};
    says =
        msg("matches the positions 0 … {0}, the tokens' order on this rank, where a context-parallel rank's "
            "positions are given: the positions were not offset per rank (each rank numbered its own tokens from "
            "0 instead of taking its chunks' positions within their sequences)",
            n - 1);
  }
  for (long cp = 2; found.empty() && cp <= kMaxCpSizeTried && n * cp <= kMaxCpDiagnosedTokens; ++cp) {
    for (const CpLayout layout : {CpLayout::Zigzag, CpLayout::Contiguous, CpLayout::RoundRobin}) {
      if (!found.empty()) break;
      // The batch the ranks split: the rank's sequences each cp times as long (zigzag and contiguous give every rank
      // the same share of each sequence), or the whole batch cut as one sequence.
      std::vector<long> packed = local;
      for (long& v : packed) v *= cp;
      const std::vector<long> one = {0, n * cp};
      const auto positions_of = [&](const std::vector<long>& cu, long rank) -> std::optional<CpPositions> {
        if (rank < 0 || rank >= cp) return std::nullopt;
        try {
          return cp_positions({cu, cp, rank, layout});
        } catch (const InvalidArgument&) {
          return std::nullopt;  // a length the layout cannot split: not this size
        }
      };
      // A rank is known by its first position: a·L/(2·cp) (zigzag), a·L/cp (contiguous), a (round-robin), L the
      // length of its first sequence.
      const auto rank_of = [&](double first, const std::vector<long>& cu) {
        const long len = cu[1] - cu[0];
        const long unit = layout == CpLayout::Zigzag ? len / (2 * cp) : layout == CpLayout::Contiguous ? len / cp : 1;
        return unit < 1 ? -1L : static_cast<long>(first) / unit;
      };
      const bool packed_known = layout != CpLayout::RoundRobin && local.size() > 2;
      const long a = packed_known ? rank_of(given[0], packed) : -1, b = packed_known ? rank_of((*dump)[0], packed) : -1;
      if (packed_known && a != b) {
        const std::optional<CpPositions> pa = positions_of(packed, a), pb = positions_of(packed, b);
        if (pa && pb && same_positions(pa->positions, given) && same_positions(pb->positions, *dump)) {
          found = {{"cp_size", static_cast<double>(cp)},
                   {"cp_rank", static_cast<double>(b)},
                   {"layout", static_cast<double>(static_cast<int>(layout))},
                   {"given_rank", static_cast<double>(a)}};
          says =
              msg("matches context-parallel rank {0}'s positions ({1}, cp size {2}) where rank {3}'s are given: the "
                  "dump holds another rank's slice of the sequence (give that rank's positions: rope positions {4})",
                  b, std::string(to_string(layout)), cp, a,
                  fmt::format("{} {} {} {} {} {} {} {}", option_name("sequence_starts"), starts_text(packed),
                              option_name("cp_size"), cp, option_name("cp_rank"), b, option_name("cp_layout"),
                              to_string(layout)));
          break;
        }
      }
      const long c = rank_of((*dump)[0], one);
      const std::optional<CpPositions> whole = positions_of(one, c);
      if (!whole || !same_positions(whole->positions, *dump)) continue;
      // The rank's own positions are those given, where the batch they were split from is known.
      if (packed_known) {
        const std::optional<CpPositions> own = positions_of(packed, c);
        if (!own || !same_positions(own->positions, given)) continue;
      }
      found = {{"cp_size", static_cast<double>(cp)},
               {"cp_rank", static_cast<double>(c)},
               {"layout", static_cast<double>(static_cast<int>(layout))},
               {"one_sequence", 1.0}};
      says =
          msg("matches context-parallel rank {0}'s positions with the packed batch cut as one sequence ({1}, cp "
              "size {2}), where the positions given restart at each sequence: the batch was split without its "
              "sequence starts (position_ids of the packed sequences ignored for this rank)",
              c, std::string(to_string(layout)), cp);
    }
  }
  // Else the tokens' order plus one constant k, where the positions given are not consecutive: the rank numbered its
  // tokens across the ranks. One constant explains it where a rank of the batch cut as one sequence whose positions
  // merely coincide with k … k + n − 1 does not (that rank is named above only where the same cp size and layout
  // give the positions given as well, which is no coincidence).
  bool consecutive_given = true, order_plus = !index_order && (*dump)[0] > 0;
  for (long i = 1; i < n; ++i) {
    const auto k = static_cast<std::size_t>(i);
    consecutive_given = consecutive_given && given[k] == given[0] + static_cast<double>(i);
    order_plus = order_plus && (*dump)[k] == (*dump)[0] + static_cast<double>(i);
  }
  if (found.empty() && order_plus && !consecutive_given) {
    found = {{"order_offset", (*dump)[0]}};  // said by its row (variants/positions_offset.cpp) once confirmed
  }
  if (found.empty()) return;
  const bool found_order_offset = found.front().first == "order_offset";
  // Confirmed: the whole range passes at the positions read.
  std::vector<AxisPosition> read = positions;
  for (std::size_t i = 0; i < read.size(); ++i) read[i].value[0] = (*dump)[i];
  Variant expected;
  expected.kind = known_variant("expected"), expected.spec = report.expected;
  const DumpComparison c = source.compare(start, read, {expected}).front();
  if (!c.passed()) return;
  report.variants.emplace_back(known_variant("positions-offset"), c);
  dg.matches = known_variant("positions-offset");
  dg.found = std::move(found);
  dg.closest.reset();
  dg.closest_explained = 0;
  dg.departure.reset();
  dg.correct_until.reset();
  dg.restarts.clear();
  dg.message = std::move(says);
  if (found_order_offset) {
    const VariantSaying saying{report.expected, dg, report.comparison, positions, source.groups(), source.dtype()};
    dg.message = variant_sentence(known_variant("positions-offset"), saying);
  }
}

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
  // Searched where no row is named yet: one offset of the range (or its pieces), else each head's own; beside a given
  // table, the table's rows that turn the first failing vector.
  r.search = [](M m) {
    CheckReport& report = m.report;
    if (report.diagnosis.matches) return false;
    if (report.expected.table) {
      try_table_offset(report, m.source, m.start, m.positions);
    } else {
      try_position_offset(report, m.source, m.start, m.positions);
      try_head_offsets(report, m.source, m.start, m.positions);
    }
    return report.diagnosis.matches.has_value();
  };
  // Over a range's parts: each failing part its positions plus a constant; packed sequences whose positions are
  // another context-parallel rank's.
  r.over_parts = [](PartsSearch& p) {
    diagnose_segment_offsets(p.report, p.checks, p.rows);
    if (!p.rows) diagnose_cp_positions(p.report, p.source, 0, p.positions, p.parts);
  };
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::positions_offset
#endif
