// A constant offset of the positions measured from one vector's pair angles (position_offset.hpp (P1)).
#include "rope/analysis/check/position_offset.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <fmt/format.h>
#include <vector>

#include "rope/analysis/check/check_table.hpp"
#include "rope/analysis/dumps/cp_positions.hpp"
#include "rope/core/error.hpp"

namespace rope {
namespace {

double wrap_angle(double a) { return std::remainder(a, 2 * M_PI); }

struct OffsetPair {
  double theta = 0;
  double psi = 0;  ///< δ·θ modulo 2π, read from the dump (P1)
};

}  // namespace

namespace {

/// The integer δ with |δ| ≤ `largest_delta` that fits every pair of (P1) within kOffsetAngleTolerance, the one that
/// misses least; δ = 0 only where `zero` allows it.
std::optional<long> fit_offset(const RopeExpectation& expected, const double* x, const double* y, double position,
                               double largest_delta, bool zero) {
  if (expected.rope.axes || expected.rope.axis_blocks) return std::nullopt;
  const int pairs = expected.rotary_dim() / 2;
  std::vector<std::complex<double>> xs, ys;
  double largest = 0;
  for (int i = 0; i < pairs; ++i) {
    const auto [a, b] = pair_channels(expected, i, false);
    const auto [c, e] = pair_channels(expected, i, true);
    xs.emplace_back(x[a], x[b]);
    ys.emplace_back(y[c], y[e]);
    largest = std::max(largest, std::abs(xs.back()));
  }
  std::vector<OffsetPair> read;
  for (int i = 0; i < pairs; ++i) {
    const double theta = expected.theta()[i];
    const auto k = static_cast<std::size_t>(i);
    // A pair too short to give its angle (rounding turns it by more than the tolerance) says nothing.
    if (!(theta > 0) || !(std::abs(xs[k]) > 1e-3 * largest) || !(std::abs(ys[k]) > 1e-3 * largest)) continue;
    read.push_back({theta, wrap_angle(std::arg(ys[k]) - std::arg(xs[k]) - std::remainder(position * theta, 2 * M_PI))});
  }
  if (read.size() < 2) return std::nullopt;
  std::sort(read.begin(), read.end(), [](const OffsetPair& p, const OffsetPair& q) { return p.theta < q.theta; });
  const OffsetPair& lowest = read.front();
  const long turns = static_cast<long>(
      std::min(std::ceil(largest_delta * lowest.theta / (2 * M_PI)), static_cast<double>(kMaxOffsetCandidates / 2)));
  std::optional<long> best;
  double best_miss = kOffsetAngleTolerance;
  for (long k = -turns; k <= turns; ++k) {
    double delta = (lowest.psi + 2 * M_PI * static_cast<double>(k)) / lowest.theta;
    for (const OffsetPair& p : read) delta += wrap_angle(p.psi - delta * p.theta) / p.theta;  // unwrapped upwards
    const double n = std::round(delta);
    if ((n == 0 && !zero) || std::abs(n) > largest_delta) continue;
    double miss = 0;
    for (const OffsetPair& p : read) miss = std::max(miss, std::abs(wrap_angle(p.psi - n * p.theta)));
    if (miss < best_miss) best_miss = miss, best = static_cast<long>(n);
  }
  return best;
}

}  // namespace

std::optional<long> measure_position_offset(const RopeExpectation& expected, const double* x, const double* y,
                                            double position) {
  return fit_offset(expected, x, y, position, kMaxOffsetSearched, false);
}

namespace {

/// Most pieces of constant offset searched in one range (each costs one comparison of it).
constexpr int kMaxOffsetPieces = 4;
/// Largest context-parallel size tried when pieces of offsets are another rank's positions.
constexpr long kMaxCpSizeTried = 64;
/// Fewest positions named as a context-parallel rank's (fewer match a rank by chance).
constexpr long kMinCpPositions = 4;

/// δ at sequence index s (of the range from `start`), group g, whose position is `position`.
std::optional<long> measured_offset_at(const RopeExpectation& expected, const DumpSource& source, long start, long s,
                                       long g, double position) {
  const auto [x, y] = source.vector_at(start + s, g);
  return measure_position_offset(expected, x.data(), y.data(), position);
}

/// The context-parallel rank whose positions of one sequence (cp_positions) are `dump` where those given are rank
/// `given`'s, the same size and layout: found {"cp_size", "cp_rank", "given_rank", "layout"} (CpLayout's index), or
/// empty.
std::vector<std::pair<std::string, double>> cp_rank_of(const std::vector<AxisPosition>& given,
                                                       const std::vector<double>& dump) {
  const auto n = static_cast<long>(given.size());
  if (n < kMinCpPositions) return {};
  const auto is_rank = [&](const CpPositions& r, const auto& value) {
    if (static_cast<long>(r.positions.size()) != n) return false;
    for (long i = 0; i < n; ++i) {
      if (static_cast<double>(r.positions[static_cast<std::size_t>(i)]) != value(i)) return false;
    }
    return true;
  };
  const auto given_at = [&](long i) { return given[static_cast<std::size_t>(i)][0]; };
  const auto dump_at = [&](long i) { return dump[static_cast<std::size_t>(i)]; };
  for (long cp = 2; cp <= kMaxCpSizeTried && n * cp <= kMaxCpTokens; ++cp) {
    for (const CpLayout layout : {CpLayout::Zigzag, CpLayout::Contiguous, CpLayout::RoundRobin}) {
      // A rank is known by its first position: a·n (contiguous), a·n/2 (zigzag's chunks of n/2), a (round-robin).
      const long unit = layout == CpLayout::Contiguous ? n : layout == CpLayout::Zigzag ? n / 2 : 1;
      if (unit < 1 || given_at(0) != std::floor(given_at(0)) || dump_at(0) != std::floor(dump_at(0))) continue;
      const auto rank_of = [&](double first) { return static_cast<long>(first) / unit; };
      const long a = rank_of(given_at(0)), b = rank_of(dump_at(0));
      if (b < 0 || b >= cp) continue;
      try {
        const auto positions_of = [&](long rank) { return cp_positions({{0, n * cp}, cp, rank, layout}); };
        if (!is_rank(positions_of(b), dump_at)) continue;
        std::vector<std::pair<std::string, double>> found = {{"cp_size", static_cast<double>(cp)},
                                                             {"cp_rank", static_cast<double>(b)},
                                                             {"layout", static_cast<double>(static_cast<int>(layout))}};
        // Another rank's positions of the same sequence, or the rank's own of the batch cut as one sequence where the
        // positions given restart per sequence (the sequence starts ignored when the batch was split).
        if (a != b && a >= 0 && a < cp && is_rank(positions_of(a), given_at)) {
          found.emplace_back("given_rank", static_cast<double>(a));
        } else {
          found.emplace_back("one_sequence", 1.0);
        }
        return found;
      } catch (const InvalidArgument&) {
        // a length the layout cannot split: not this size
      }
    }
  }
  return {};
}

}  // namespace

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

namespace {

/// The position at which the dump turned each vector of the range from `start` (the one given plus the δ of (P1) that
/// fits, 0 included, |δ| ≤ `largest_delta`), read from the first of the first 4 groups whose vector gives it; nullopt
/// when one index gives none.
std::optional<std::vector<double>> dump_positions_read(const RopeExpectation& expected, const DumpSource& source,
                                                       long start, const std::vector<AxisPosition>& positions,
                                                       double largest_delta) {
  std::vector<double> out(positions.size());
  const long groups = std::min(source.groups(), 4L);
  for (std::size_t s = 0; s < positions.size(); ++s) {
    std::optional<long> delta;
    for (long g = 0; g < groups && !delta; ++g) {
      const auto [x, y] = source.vector_at(start + static_cast<long>(s), g);
      delta = fit_offset(expected, x.data(), y.data(), positions[s][0], largest_delta, true);
    }
    if (!delta) return std::nullopt;
    out[s] = positions[s][0] + static_cast<double>(*delta);
  }
  return out;
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

}  // namespace

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

}  // namespace rope
