// rope check's modes beyond the forward pass (check_mode.hpp): the backward (G1) and the K cache shifted in place (H1).
// The forward check's kernel and variants do the comparison (the expectation's mode flips sin for a gradient); here are
// the modes' rows of check_modes() (check_table.hpp): their header line and their expectation made from the forward
// one (a variant's wording in a mode is its file's says_in_mode, src/rope/analysis/variants/); and what a failing check
// does after the forward diagnosis: a gradient's failing heads and channels measured once (GradientParts), then the
// rows found in a mode asked in the table's order (their files' in_mode: a gradient 0 on some heads or channels, left
// uninitialised there, or read from another head; the magnitude applied again at a shift; a shift map's mistakes in
// its own words), whose sentences are their files'.
#include "rope/analysis/check/check_mode.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <fmt/format.h>

#include "rope/analysis/check/check.hpp"
#include "rope/analysis/check/check_table.hpp"
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

/// Offsets of another head tried for a crossed gradient: head g read from head (g + k) mod groups, k = 1 … this.
constexpr long kCrossedOffsets = 16;

/// A gradient that no forward row explains, measured for its rows (GradientParts): each failing group compared with 0
/// and with another group's gradient in one pass, and where every group fails, the one channel range that fails;
/// nullopt where the comparison has no groups.
std::optional<GradientParts> measure_gradient_parts(const CheckReport& report, const DumpSource& source, long start,
                                                    const std::vector<AxisPosition>& positions) {
  const RopeExpectation& e = report.expected;
  const DumpComparison& ex = report.comparison;
  const long groups = source.groups();
  if (static_cast<long>(ex.group_failing.size()) != groups) return std::nullopt;
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
  GradientParts parts;
  parts.groups = groups;
  for (long g = 0; g < groups; ++g) {
    const auto gi = static_cast<std::size_t>(g);
    if (ex.group_failing[gi] == 0) continue;
    parts.failing.push_back(g);
    if (got[0].group_failing[gi] == 0) {
      parts.zeroed.push_back(g);
      continue;
    }
    long k = 1;
    while (k < static_cast<long>(got.size()) && got[static_cast<std::size_t>(k)].group_failing[gi] != 0) ++k;
    if (k < static_cast<long>(got.size())) parts.crossed.push_back(g), parts.from.push_back((g + k) % groups);
  }
  parts.zero_passes = got[0].passed();
  if (parts.crossed.size() == parts.failing.size()) {  // every failing head another's: by one offset?
    for (std::size_t k = 1; k < got.size() && parts.offset == 0; ++k) {
      if (got[k].passed()) parts.offset = static_cast<long>(k);
    }
  }
  // Every head fails: on one channel range alone?
  const int d = source.d();
  if (ex.channel_ratio.size() != d || got[0].channel_ratio.size() != d) return parts;
  int first = -1, last = -1;
  bool all_zero = true;
  for (int ch = 0; ch < d; ++ch) {
    if (ex.channel_ratio[ch] <= 1.0) continue;
    if (first < 0) first = ch;
    last = ch;
    all_zero = all_zero && got[0].channel_ratio[ch] <= 1.0;
  }
  if (first < 0 || (first == 0 && last == d - 1)) return parts;
  for (int ch = first; ch <= last; ++ch) {
    if (ex.channel_ratio[ch] <= 1.0) return parts;  // not one range
  }
  parts.channel = first, parts.channels = last - first + 1, parts.channels_zero = all_zero;
  return parts;
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
  std::optional<GradientParts> parts;
  if (e.mode == CheckMode::Grad && !dg.matches) parts = measure_gradient_parts(report, source, start, positions);
  // The rows found in a mode (their files' in_mode), in the table's order: the first that names its row.
  VariantSearch search{report, source, start, positions, parts ? &*parts : nullptr};
  for (const VariantRow& row : variant_table()) {
    if (row.in_mode && row.in_mode(search)) break;
  }
  if (dg.matches && dg.matches != forward) {  // found here: its row's sentence
    const VariantSaying saying{e, dg, report.comparison, positions, source.groups(), source.dtype()};
    dg.message = variant_sentence(*dg.matches, saying);
  }
}

}  // namespace rope
