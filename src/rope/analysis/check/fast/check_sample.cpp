// A large failing check diagnosed on a sample of its failing indices (check_sample.hpp).
#include "rope/analysis/check/fast/check_sample.hpp"

#include <algorithm>

#include "rope/core/error.hpp"

namespace rope {

bool diagnosed_on_sample(long length, long groups, int d) {
  const double elements = static_cast<double>(length) * static_cast<double>(groups) * d;
  return elements >= static_cast<double>(kSampleMinElements) && length > kSampleWindows * kSampleWidth;
}

std::vector<std::pair<long, long>> failing_sample(const Eigen::VectorXd& ratio, long per_index) {
  const long n = ratio.size();
  const long budget = std::clamp(kSampleElements / std::max<long>(1, per_index), 16L, kSampleWindows * kSampleWidth);
  const long width = budget >= 128 ? kSampleWidth : budget >= 32 ? 2 : 1, windows = budget / width;
  std::vector<long> failing;  // every failing index
  std::vector<long> runs;     // the first index of each maximal run of failing indices
  for (long s = 0; s < n; ++s) {
    if (ratio[s] <= 1.0) continue;  // a NaN fails
    if (failing.empty() || failing.back() != s - 1) runs.push_back(s);
    failing.push_back(s);
  }
  if (failing.empty()) return {};
  std::vector<long> starts;
  // Evenly chosen, the first and the last included: `count` of `from`.
  const auto spread = [&starts](const std::vector<long>& from, long count) {
    const long m = static_cast<long>(from.size());
    if (count >= m) {
      starts.insert(starts.end(), from.begin(), from.end());
      return;
    }
    for (long j = 0; j < count; ++j) {
      starts.push_back(from[static_cast<std::size_t>(count > 1 ? j * (m - 1) / (count - 1) : 0)]);
    }
  };
  spread(runs, windows / 2);
  spread(failing, windows - static_cast<long>(starts.size()));
  std::sort(starts.begin(), starts.end());
  std::vector<std::pair<long, long>> out;
  for (const long a : starts) {
    const long b = std::min(n, a + width);
    if (!out.empty() && a <= out.back().second) {
      out.back().second = std::max(out.back().second, b);  // overlapping or adjacent: one range
    } else {
      out.emplace_back(a, b);
    }
  }
  return out;
}

std::vector<std::pair<long, long>> predicted_sample(const std::vector<AxisPosition>& positions, long per_index) {
  // The indices RoPE turns: a wrong frequency, base, scaling or position fails at every one of them, and RoPE at
  // position 0 is the identity whatever its frequencies.
  Eigen::VectorXd turned(static_cast<Eigen::Index>(positions.size()));
  for (std::size_t s = 0; s < positions.size(); ++s)
    turned[static_cast<Eigen::Index>(s)] = positions[s].max_abs() != 0 ? 2.0 : 0.0;
  return failing_sample(turned, per_index);
}

SampleDiagnosis diagnose_sample(const DumpSource& source, long start, const std::vector<AxisPosition>& positions,
                                const RopeExpectation& expected, std::vector<std::pair<long, long>> ranges) {
  const SampledSource sample(source, ranges);
  SampleDiagnosis out{std::move(ranges), check_source(sample, start, positions, expected), std::nullopt, 0};
  const CheckDiagnosis& dg = out.report.diagnosis;
  const std::optional<VariantId> kind = dg.matches;
  if (const Variant* v = kind ? sample.named(*kind, dg) : nullptr) out.named = *v;
  out.indices = sample.indices();
  return out;
}

std::optional<SampleDiagnosis> predicted_diagnosis(const DumpSource& source, long start,
                                                   const std::vector<AxisPosition>& positions,
                                                   const RopeExpectation& expected) {
  std::vector<std::pair<long, long>> ranges = predicted_sample(positions, source.groups() * source.d());
  if (ranges.empty()) return std::nullopt;
  try {
    // The prediction holds where the sample fails at every index RoPE turns (a wrong frequency, base, scaling or
    // position): one comparison of the sample says whether it does. Where some turned indices pass (elements of some
    // tokens departed), the failing indices' sample after the pass is another one, and diagnosing this one would be
    // work thrown away.
    Variant as_expected;
    as_expected.spec = expected;
    const DumpComparison c = SampledSource(source, ranges).compare(start, positions, {as_expected}).front();
    for (const auto& [a, b] : ranges) {
      for (long s = a; s < b; ++s) {
        if (positions[static_cast<std::size_t>(s)].max_abs() != 0 && c.position_ratio.size() > s &&
            c.position_ratio[s] <= 1.0)
          return std::nullopt;
      }
    }
    SampleDiagnosis d = diagnose_sample(source, start, positions, expected, std::move(ranges));
    if (d.report.comparison.passed()) return std::nullopt;
    return d;
  } catch (const InvalidArgument&) {  // the whole pass says it, of the first such value
    return std::nullopt;
  }
}

SampledSource::SampledSource(const DumpSource& whole, std::vector<std::pair<long, long>> ranges)
    : whole_(whole), ranges_(std::move(ranges)) {}

std::vector<DumpComparison> SampledSource::compare(long start, const std::vector<AxisPosition>& positions,
                                                   const std::vector<Variant>& variants,
                                                   const ComparePass& pass) const {
  ComparePass p = pass;
  p.only = ranges_;
  seen_.insert(seen_.end(), variants.begin(), variants.end());
  return whole_.compare(start, positions, variants, p);
}

long SampledSource::indices() const {
  long n = 0;
  for (const auto& [a, b] : ranges_) n += b - a;
  return n;
}

bool names_variant(const Variant& v, VariantId kind, const CheckDiagnosis& d) {
  if (v.kind != kind || v.norms) return false;
  return kind == known_variant("positions-restart") ? v.restarts == d.restarts : v.found == d.found;
}

const Variant* SampledSource::named(VariantId kind, const CheckDiagnosis& d) const {
  for (auto v = seen_.rbegin(); v != seen_.rend(); ++v) {
    if (names_variant(*v, kind, d)) return &*v;
  }
  return nullptr;
}

CheckReport diagnose_on_sample(const DumpSource& source, long start, const std::vector<AxisPosition>& positions,
                               const RopeExpectation& expected, CheckReport whole,
                               std::optional<SampleDiagnosis> predicted, const DumpComparison* measured) {
  std::vector<std::pair<long, long>> ranges =
      failing_sample(whole.comparison.position_ratio, source.groups() * source.d());
  // The variant the pass measured, and the sample's diagnosis: the predicted one where the sample is the predicted one
  // (the same computation).
  const std::optional<Variant> measured_named = predicted && measured != nullptr ? predicted->named : std::nullopt;
  const bool as_predicted = predicted && predicted->ranges == ranges;
  SampleDiagnosis sampled =
      as_predicted ? std::move(*predicted) : diagnose_sample(source, start, positions, expected, std::move(ranges));
  CheckReport& r = sampled.report;
  CheckDiagnosis& dg = r.diagnosis;
  CheckDiagnosis::Sample size;
  size.indices = sampled.indices;
  size.elements = size.indices * source.groups() * source.d();
  const std::optional<VariantId> kind = dg.matches;
  const std::optional<Variant>& v = sampled.named;
  if (v && kind) {  // measured over the whole range: in the pass that found it failing, or one more
    const bool known = measured_named && names_variant(*measured_named, *kind, dg);  // the diagnosis names it
    const DumpComparison all = known ? *measured : source.compare(start, positions, {*v}).front();
    if (all.passed()) {
      size.explained = all.total - all.failing;
      size.total = all.total;
      const double share = all.total > 0 ? 100.0 : 0.0;  // every element explained
      r.notes.push_back(
          msg("diagnosed on a sample of {0} sequence indices ({1} elements; every failing range "
              "represented); {2} measured over the whole dump: it explains {3} of {4} elements "
              "({5:.4g} %)",
              size.indices, size.elements, describe(*kind, expected), size.explained, size.total, share));
    } else {
      // The sample's match does not hold everywhere: not named, nor offered as the closest (one that is not the
      // cause is no lead); the whole range diagnosed as one where nothing matches.
      r.comparison = whole.comparison;
      diagnose_unconfirmed(r, source, start, positions, all);
      if (dg.matches) size.explained = dg.difference_explained, size.total = dg.difference_total;
      r.notes.push_back(
          msg("diagnosed on a sample of {0} sequence indices ({1} elements; every failing range "
              "represented); what matches the sample does not hold over the whole dump, and is not named",
              size.indices, size.elements));
    }
  } else if (kind) {
    // Named on the sample by a search or a measurement that is no variant to compare over the whole range (elements
    // of one kind, counted text ids): its counts are the sample's, so it is not named from them; the whole range
    // diagnosed as one where nothing matches, which measures it there (the elements classified at the whole range's
    // failing indices: check_diagnosis.cpp) and names what that confirms.
    r.comparison = whole.comparison;
    diagnose_unconfirmed(r, source, start, positions, whole.comparison);
    if (dg.matches) {
      size.explained = dg.difference_explained, size.total = dg.difference_total;
      r.notes.push_back(
          msg("diagnosed on a sample of {0} sequence indices ({1} elements; every failing range "
              "represented); {2} measured over the whole dump: it explains {3} of {4} elements "
              "({5:.4g} %)",
              size.indices, size.elements, describe(*dg.matches, expected), size.explained, size.total,
              size.total > 0 ? 100.0 * static_cast<double>(size.explained) / static_cast<double>(size.total) : 0.0));
    } else {
      r.notes.push_back(
          msg("diagnosed on a sample of {0} sequence indices ({1} elements; every failing range "
              "represented); what matches the sample does not hold over the whole dump, and is not named",
              size.indices, size.elements));
    }
  } else {
    r.notes.push_back(
        msg("diagnosed on a sample of {0} sequence indices ({1} elements; every failing range "
            "represented)",
            size.indices, size.elements));
  }
  dg.sample = size;
  whole.notes.insert(whole.notes.end(), r.notes.begin(), r.notes.end());
  r.notes = std::move(whole.notes);
  r.comparison = std::move(whole.comparison);
  r.element_ratio = whole.element_ratio, r.norm_ratio = whole.norm_ratio;  // the whole dump's tests, as comparison
  r.comparison_is_norms = whole.comparison_is_norms;
  return std::move(r);
}

CheckReport diagnose_segment_on_sample(const DumpSource& source, long start, const std::vector<AxisPosition>& positions,
                                       const RopeExpectation& expected, const Eigen::VectorXd& ratio) {
  const SampledSource sample(source, failing_sample(ratio, source.groups() * source.d()));
  CheckReport r = check_source(sample, start, positions, expected);
  CheckDiagnosis& dg = r.diagnosis;
  CheckDiagnosis::Sample size;
  size.indices = sample.indices();
  size.elements = size.indices * source.groups() * source.d();
  if (const std::optional<VariantId> kind = dg.matches) {
    // Named only where the whole segment confirms it: the variant the sample matched compared over the segment; else
    // the segment's own comparison with the expectation, diagnosed as one where nothing matches (what is measured,
    // located), the unconfirmed variant neither named nor offered as the closest.
    const Variant* v = sample.named(*kind, dg);
    const DumpComparison all = v != nullptr ? source.compare(start, positions, {*v}).front() : DumpComparison{};
    if (v != nullptr && all.passed()) {
      size.explained = all.total - all.failing;
      size.total = all.total;
      r.notes.push_back(
          msg("diagnosed on a sample of {0} sequence indices ({1} elements; every failing range "
              "represented); {2} measured over the whole dump: it explains {3} of {4} elements "
              "({5:.4g} %)",
              size.indices, size.elements, describe(*kind, expected), size.explained, size.total,
              all.total > 0 ? 100.0 : 0.0));
    } else {
      Variant as_expected;
      as_expected.spec = expected;
      r.comparison = source.compare(start, positions, {as_expected}).front();
      diagnose_unconfirmed(r, source, start, positions, v != nullptr ? all : r.comparison);
      if (dg.matches) size.explained = dg.difference_explained, size.total = dg.difference_total;
      r.notes.push_back(
          msg("diagnosed on a sample of {0} sequence indices ({1} elements; every failing range "
              "represented); what matches the sample does not hold over the whole dump, and is not named",
              size.indices, size.elements));
    }
  }
  dg.sample = size;
  return r;
}

}  // namespace rope
