// rope check's modes beyond the forward pass (check_mode.hpp): the backward (G1) and the K cache shifted in place (H1).
// The forward check's kernel and variants do the comparison (the expectation's mode flips sin for a gradient); here are
// the modes' rows of check_modes() (check_table.hpp): their header line and their expectation made from the forward
// one (a variant's wording in a mode is its file's says_in_mode, src/rope/analysis/variants/); and what a failing check
// finds after the forward diagnosis: the rows no forward variant names (a gradient 0 on some heads or channels, left
// uninitialised there, or read from another head; the magnitude applied again at a shift), whose sentences are their
// files'.
#include "rope/analysis/check/check_mode.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <fmt/format.h>

#include "rope/analysis/check/check.hpp"
#include "rope/analysis/check/check_table.hpp"
#include "rope/analysis/check/measured_rope.hpp"
#include "rope/analysis/dumps/dump_positions.hpp"
#include "rope/core/dtype.hpp"
#include "rope/core/error.hpp"
#include "rope/io/csv.hpp"

namespace rope {

void set_mode(RopeExpectation& e, CheckMode mode, double shift) {
  if (mode == CheckMode::Shift && !(std::abs(shift) <= kMaxDumpPosition)) {
    throw InvalidArgument(error_msg("{0}: position {1} is outside [-2^24, 2^24]", option_name("shift"), shift));
  }
  if (mode == CheckMode::Shift) e.shift = shift;
  e.mode = mode;
  e = check_mode(mode).expectation(std::move(e));
}

Message grad_mode_title(const RopeExpectation&) {
  return msg(
      "grad: before is the upstream gradient grad_y, after the input's gradient, expected "
      "a·R(m)ᵀ·grad_y (pass-through channels unchanged)");
}

RopeExpectation grad_mode_expectation(RopeExpectation forward) {  // (G1): the kernel and expected_dump flip sin
  forward.mode = CheckMode::Grad;
  return forward;
}

Message shift_mode_title(const RopeExpectation& e) {
  return msg(
      "shift by δ = {0}: before is the K cache, after the cache shifted, expected R(δ)·k with no "
      "magnitude factor (the keys carry the attention factor {1} already)",
      format_number(e.shift), fmt::format("{:.6g}", e.shift_magnitude));
}

RopeExpectation shift_mode_expectation(RopeExpectation forward) {
  // (H1): the cached key carries the magnitude already; the shift turns it, and keys are never query-scaled.
  forward.mode = CheckMode::Shift;
  forward.shift_magnitude = forward.attention_factor();
  forward.rope.params.attention_factor = 1.0;
  forward.query_beta = 0;
  return forward;
}

Message shift_map_mode_title(const RopeExpectation& e) {
  return msg(
      "shift map: before is the K cache, after each key moved from its old position to its new one, expected "
      "R(new − old)·k with no magnitude factor (the keys carry the attention factor {0} already); the positions are "
      "each key's δ = new − old",
      fmt::format("{:.6g}", e.shift_magnitude));
}

RopeExpectation shift_map_mode_expectation(RopeExpectation forward) {
  // (H2): (H1) with a δ per key, which the positions carry.
  forward = shift_mode_expectation(std::move(forward));
  forward.mode = CheckMode::ShiftMap;
  return forward;
}

std::vector<AxisPosition> shift_positions(long seq, double shift) {
  return std::vector<AxisPosition>(static_cast<std::size_t>(std::max(seq, 0L)), AxisPosition::single(shift));
}

namespace {

/// Offsets of another head tried for heads-crossed: head g read from head (g + k) mod groups, k = 1 … this.
constexpr long kCrossedOffsets = 16;

/// A gradient that no forward row explains: the groups (batch × heads) that fail are 0, hold another group's
/// gradient, or neither; or every group fails on the same channel range, 0 or not.
void diagnose_gradient_parts(CheckReport& report, const DumpSource& source, long start,
                             const std::vector<AxisPosition>& positions) {
  const RopeExpectation& e = report.expected;
  CheckDiagnosis& dg = report.diagnosis;
  const DumpComparison& ex = report.comparison;
  const long groups = source.groups();
  if (static_cast<long>(ex.group_failing.size()) != groups) return;
  std::vector<Variant> tried;
  Variant zero;
  zero.kind = known_variant("heads-zeroed"), zero.spec = e, zero.zero = true;
  tried.push_back(zero);
  for (long k = 1; k < groups && k <= kCrossedOffsets; ++k) {
    Variant c;
    c.kind = known_variant("heads-crossed"), c.spec = e, c.group_offset = k;
    tried.push_back(std::move(c));
  }
  const std::vector<DumpComparison> got = source.compare(start, positions, tried);
  std::vector<long> failing, zeroed, crossed, other;
  std::vector<long> from;  // the group each crossed one reads
  for (long g = 0; g < groups; ++g) {
    const auto gi = static_cast<std::size_t>(g);
    if (ex.group_failing[gi] == 0) continue;
    failing.push_back(g);
    if (got[0].group_failing[gi] == 0) {
      zeroed.push_back(g);
      continue;
    }
    long k = 1;
    while (k < static_cast<long>(got.size()) && got[static_cast<std::size_t>(k)].group_failing[gi] != 0) ++k;
    if (k < static_cast<long>(got.size())) {
      crossed.push_back(g), from.push_back((g + k) % groups);
    } else {
      other.push_back(g);
    }
  }
  const long n = static_cast<long>(failing.size());
  if (n == 0) return;
  if (n < groups) {  // some heads right: the others 0, another head's, or neither
    if (zeroed.size() == failing.size()) {
      dg.matches = known_variant("heads-zeroed");
      dg.found = {{"heads", static_cast<double>(n)}, {"head", static_cast<double>(failing.front())}};
    } else if (crossed.size() == failing.size()) {
      dg.matches = known_variant("heads-crossed");
      dg.found = {{"heads", static_cast<double>(n)},
                  {"head", static_cast<double>(crossed.front())},
                  {"from", static_cast<double>(from.front())}};
    } else {
      dg.matches = known_variant("heads-uninitialised");
      dg.found = {{"heads", static_cast<double>(n)}, {"head", static_cast<double>(failing.front())}};
    }
    dg.closest.reset(), dg.departure.reset(), dg.correct_until.reset();
    return;
  }
  if (got[0].passed()) {
    dg.matches = known_variant("output-zero");
    dg.found.clear();
    dg.closest.reset(), dg.departure.reset(), dg.correct_until.reset();
    return;
  }
  if (crossed.size() == failing.size()) {  // every head another's, by one offset
    for (std::size_t k = 1; k < got.size(); ++k) {
      if (!got[k].passed()) continue;
      dg.matches = known_variant("heads-crossed");
      dg.found = {{"heads", static_cast<double>(n)}, {"offset", static_cast<double>(k)}};
      dg.closest.reset(), dg.departure.reset(), dg.correct_until.reset();
      return;
    }
  }
  // Every head fails: on a channel range alone?
  const int d = source.d();
  if (ex.channel_ratio.size() != d || got[0].channel_ratio.size() != d) return;
  int first = -1, last = -1;
  bool all_zero = true;
  for (int ch = 0; ch < d; ++ch) {
    if (ex.channel_ratio[ch] <= 1.0) continue;
    if (first < 0) first = ch;
    last = ch;
    all_zero = all_zero && got[0].channel_ratio[ch] <= 1.0;
  }
  if (first < 0 || (first == 0 && last == d - 1)) return;
  for (int ch = first; ch <= last; ++ch) {
    if (ex.channel_ratio[ch] <= 1.0) return;  // not one range
  }
  const int count = last - first + 1;
  dg.found = {{"channel", first}, {"channels", count}};
  if (all_zero) {
    dg.matches = known_variant("channels-zeroed");
  } else {
    dg.matches = known_variant("channels-uninitialised");
  }
  dg.closest.reset(), dg.departure.reset(), dg.correct_until.reset();
}

double mode_found(const CheckDiagnosis& dg, const char* name, double otherwise) {
  for (const auto& [key, value] : dg.found) {
    if (key == name) return value;
  }
  return otherwise;
}

}  // namespace

namespace {

/// A shift map whose keys all turned by one δ, not each by its own new − old (the whole cache moved as one shift):
/// δ measured (measured_rope.hpp measure_one_turn), confirmed with every key at δ over the whole dump.
void try_one_turn(CheckReport& report, const DumpSource& source, long start,
                  const std::vector<AxisPosition>& positions) {
  const std::optional<double> delta =
      measure_one_turn(source, start, static_cast<long>(positions.size()), report.expected);
  if (!delta) return;
  const std::vector<AxisPosition> one(positions.size(), AxisPosition::single(*delta));
  Variant v;
  v.kind = known_variant("shift-map-one-delta");
  v.spec = report.expected;
  report.variants.emplace_back(v.kind, source.compare(start, one, {v}).front());
  const DumpComparison& c = report.variants.back().second;
  if (!c.passed()) return;
  std::vector<double> deltas;
  for (const AxisPosition& p : positions) deltas.push_back(p[0]);
  std::sort(deltas.begin(), deltas.end());
  const auto distinct = std::unique(deltas.begin(), deltas.end()) - deltas.begin();
  CheckDiagnosis& dg = report.diagnosis;
  dg.matches = v.kind;
  dg.found = {{"delta", *delta}};
  dg.difference = {{"deltas", static_cast<double>(distinct), 1}};
  dg.difference_explained = c.total - c.failing;
  dg.difference_total = c.total;
  dg.closest.reset(), dg.departure.reset(), dg.correct_until.reset();
}

/// A shift map's mistakes (H2) in the map's words: the forward rows that a per-key δ makes them, renamed.
void diagnose_shift_map(CheckDiagnosis& dg) {
  const VariantId forward = *dg.matches;
  const bool one_offset = dg.found.size() == 1 && dg.found[0].first == "offset";  // not per head, nor in pieces
  if (forward == known_variant("rotation-reversed")) {
    dg.matches = known_variant("shift-map-sign");
  } else if (forward == known_variant("before-equals-after")) {
    dg.matches = known_variant("shift-map-not-rotated");
  } else if (forward == known_variant("positions-plus-one") || forward == known_variant("positions-minus-one")) {
    dg.matches = known_variant("shift-map-offset");
    dg.found = {{"offset", forward == known_variant("positions-plus-one") ? 1.0 : -1.0}};
  } else if (forward == known_variant("positions-offset") && one_offset) {
    dg.matches = known_variant("shift-map-offset");
  } else {
    return;
  }
  dg.closest.reset(), dg.departure.reset(), dg.correct_until.reset();
}

}  // namespace

void diagnose_mode(CheckReport& report, const DumpSource& source, long start,
                   const std::vector<AxisPosition>& positions) {
  const RopeExpectation& e = report.expected;
  if (e.mode == CheckMode::Forward || report.comparison.passed()) return;
  const DumpComparison& c = report.comparison;
  if (c.before_non_finite.count > 0 || c.after_non_finite.count > 0) return;  // the forward sentence says it
  CheckDiagnosis& dg = report.diagnosis;
  const std::optional<VariantId> forward = dg.matches;
  if (e.mode == CheckMode::Grad && !dg.matches) diagnose_gradient_parts(report, source, start, positions);
  if (e.mode == CheckMode::ShiftMap && !dg.matches) try_one_turn(report, source, start, positions);
  if (!dg.matches) return;
  // A norm scaled by 0 is a gradient never written; a shift's keys scaled by the magnitude they carry, that
  // magnitude applied again.
  if (*dg.matches == known_variant("norm-scaled")) {
    const double s = mode_found(dg, "factor", 1.0);
    if (e.mode == CheckMode::Grad && s == 0) {
      dg.matches = known_variant("output-zero");
      dg.found.clear();
    } else if ((e.mode == CheckMode::Shift || e.mode == CheckMode::ShiftMap) && e.shift_magnitude != 1.0 &&
               std::abs(s / e.shift_magnitude - 1) <= check_norm_bound(e, source.dtype())) {
      dg.matches = known_variant("magnitude-reapplied");
      dg.found = {{"factor", s}};
    }
  }
  if (e.mode == CheckMode::ShiftMap) diagnose_shift_map(dg);
  if (dg.matches != forward) {  // found here: its row's sentence
    const VariantSaying saying{e, dg, report.comparison, positions, source.groups(), source.dtype()};
    dg.message = variant_sentence(*dg.matches, saying);
  }
}

}  // namespace rope
