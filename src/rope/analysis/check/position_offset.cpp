// A constant offset of the positions measured from one vector's pair angles (position_offset.hpp (P1)), and the
// positions a range's dump was turned at, read that way; the row positions-offset (analysis/variants/) names them.
#include "rope/analysis/check/position_offset.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <fmt/format.h>
#include <vector>

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

std::optional<long> measured_offset_at(const RopeExpectation& expected, const DumpSource& source, long start, long s,
                                       long g, double position) {
  const auto [x, y] = source.vector_at(start + s, g);
  return measure_position_offset(expected, x.data(), y.data(), position);
}

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

}  // namespace rope
