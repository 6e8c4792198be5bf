// The measurement of a failing check's dump (check/measured_rope.hpp): identify's engine on the dump's vectors as the
// check reads them, at the positions the check was given.
#include <algorithm>
#include <cmath>
#include <complex>

#include "rope/analysis/check/measured_rope.hpp"
#include "rope/analysis/identify/identify.hpp"
#include "rope/core/error.hpp"

namespace rope {

namespace {
/// identify_rope's reading of the vectors measure_dump gathered, as the check's diagnosis holds it.
std::optional<CheckDiagnosis::Measured> measure_identified(const DumpVectors& before, const DumpVectors& after,
                                                           const std::vector<double>& at);
}  // namespace

std::optional<CheckDiagnosis::Measured> measure_dump(const DumpSource& source, long start,
                                                     const std::vector<AxisPosition>& positions) {
  const long seq = static_cast<long>(positions.size());
  const int d = source.d();
  if (seq < 2 || d > kMaxIdentifyDim) return std::nullopt;
  for (const AxisPosition& p : positions) {
    if (p.multi()) return std::nullopt;
  }
  // At most kMaxMeasuredGroups groups and kMeasuredElements elements: the first half of them consecutive (identify's
  // periodogram reads the positions of smallest |m|, whose steps must not alias a pair's turn), the others evenly
  // spaced over the rest, the last kept.
  constexpr long kMaxMeasuredGroups = 4;
  const long groups = std::min(source.groups(), kMaxMeasuredGroups);
  const long fit = std::max(2L, kMeasuredElements / (groups * d));
  const long count = std::min(seq, fit);
  std::vector<long> indices(static_cast<std::size_t>(count));
  const long head = count == seq ? count : count / 2, rest = count - head;
  for (long k = 0; k < count; ++k) {
    indices[static_cast<std::size_t>(k)] = k < head ? k : head + (k - head + 1) * (seq - 1 - head) / std::max(1L, rest);
  }
  DumpVectors before, after;
  before.seq = after.seq = count;
  before.heads = after.heads = groups;
  before.d = after.d = d;
  before.dtype = after.dtype = source.dtype();
  before.dtype_stated = after.dtype_stated = true;
  before.values.reserve(static_cast<std::size_t>(count * groups * d));
  after.values.reserve(before.values.capacity());
  std::vector<double> at;
  at.reserve(static_cast<std::size_t>(count));
  for (const long s : indices) {
    at.push_back(positions[static_cast<std::size_t>(s)][0]);
    for (long g = 0; g < groups; ++g) {
      const auto [x, y] = source.vector_at(start + s, g);
      before.values.insert(before.values.end(), x.begin(), x.end());
      after.values.insert(after.values.end(), y.begin(), y.end());
    }
  }
  // One measurement per dump: a sample's diagnosis (check_sample.hpp) reads the vectors of the source it samples,
  // the same ones the whole range's diagnosis reads after it; the second is handed what the first measured of the
  // same values at the same positions.
  struct Last {
    DType dtype = DType::F32;
    std::vector<double> before, after, at;
    std::optional<CheckDiagnosis::Measured> measured;
  };
  thread_local Last last;
  if (last.dtype == before.dtype && last.at == at && last.before == before.values && last.after == after.values)
    return last.measured;
  last = {before.dtype, before.values, after.values, at, measure_identified(before, after, at)};
  return last.measured;
}

namespace {

std::optional<CheckDiagnosis::Measured> measure_identified(const DumpVectors& before, const DumpVectors& after,
                                                           const std::vector<double>& at) {
  const long count = before.seq, groups = before.heads;
  Identification id;
  try {
    id = identify_rope(before, after, at);
  } catch (const InvalidArgument&) {  // nothing to measure (every position 0, no channel turns)
    return std::nullopt;
  }
  CheckDiagnosis::Measured m;
  m.layout = to_string(id.layout);
  m.rotary_dim = id.rotary_dim;
  m.rotary_offset = id.rotary_offset;
  m.pairs = id.pairs;
  m.family = to_string(id.fit.family);
  m.base = id.fit.base;
  m.factor = id.fit.factor;
  m.attention_factor = id.attention_factor;
  m.position_offset = id.position_offset;
  m.restarts = static_cast<long>(id.jumps.size());
  m.reversed = id.reversed;
  m.theta = id.theta;
  m.theta_sigma = id.theta_sigma;
  m.indices = count;
  m.groups = groups;
  return m;
}

}  // namespace

std::optional<double> measure_one_turn(const DumpSource& source, long start, long seq,
                                       const RopeExpectation& expected) {
  const int half = expected.rotary_dim() / 2;
  if (half < 1 || seq < 1) return std::nullopt;
  std::vector<std::complex<double>> u(static_cast<std::size_t>(half));
  for (long s = 0; s < seq; ++s) {
    for (long g = 0; g < source.groups(); ++g) {
      const auto [x, y] = source.vector_at(start + s, g);
      for (int j = 0; j < half; ++j) {
        const auto [ia, ib] = pair_channels(expected, j, false);
        const auto [oa, ob] = pair_channels(expected, j, true);
        const std::complex<double> zx(x[static_cast<std::size_t>(ia)], x[static_cast<std::size_t>(ib)]);
        const std::complex<double> zy(y[static_cast<std::size_t>(oa)], y[static_cast<std::size_t>(ob)]);
        u[static_cast<std::size_t>(j)] += std::conj(zx) * zy;
      }
    }
  }
  std::vector<double> c, theta, w;
  for (int j = 0; j < half; ++j) {
    const std::complex<double> z = u[static_cast<std::size_t>(j)];
    if (std::abs(z) == 0 || !(expected.theta()[j] > 0)) continue;
    c.push_back(std::arg(z));
    theta.push_back(expected.theta()[j]);
    w.push_back(std::abs(z));
  }
  if (c.empty()) return std::nullopt;
  return static_cast<double>(detail::best_integer_shift(c, theta, w, detail::kMaxPositionOffset));
}

}  // namespace rope
