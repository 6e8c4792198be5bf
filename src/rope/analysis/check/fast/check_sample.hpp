/// @file
/// A large failing check diagnosed on a sample (docs/check.md "A failing check of a large dump"): the expected
/// variant's pass over the whole range says which sequence indices fail; the diagnosis (every known variant, the
/// restarts, a base measured where the dump departs) runs on a bounded sample of them, in which every failing run
/// of indices is represented (the start of each, or of as many as the sample holds, evenly spread), and every
/// group (head, batch × heads) of each sampled index; the variant the sample names is then measured over the whole
/// range, which confirms it or gives its share. Where the dump fails at every index RoPE turns, its sample is known
/// before the pass over the whole (predicted_sample): its diagnosis is then made first, and the variant it names
/// compared in that pass beside the expectation, so that a failing check reads its dumps once; otherwise twice.
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "rope/analysis/check/check.hpp"

namespace rope {

/// Windows of consecutive indices in a sample, at most, and the indices of one window, at most.
inline constexpr long kSampleWindows = 64;
inline constexpr long kSampleWidth = 4;
/// Elements a sample holds at most when it has 16 indices or more (2^19: each of the ~30 variants compared on it costs
/// a 256th of a pass over a dump of 2^27 elements); its indices are 16 … 256.
inline constexpr long kSampleElements = 1L << 19;
/// Elements of a range (indices × groups × d) from which a failing check is diagnosed on a sample (2^22: below it the
/// diagnosis's passes over the whole range cost less than a pass over a large dump's sample's blocks would save).
inline constexpr long kSampleMinElements = 1L << 22;

/// Whether a failing range of `length` indices of `groups` × `d` elements is diagnosed on a sample.
bool diagnosed_on_sample(long length, long groups, int d);

/// The sample of a failing range whose indices' largest ratios are `ratio` (the expected variant's position_ratio,
/// index 0 the range's start) and whose indices hold `per_index` elements each: increasing, disjoint ranges [first,
/// second) of at most B = clamp(kSampleElements / per_index, 16, 256) indices, in windows of 4 consecutive indices (2
/// when B < 128, 1 when B < 32), each starting at a failing index: one at the start of every maximal run of failing
/// indices (of half the windows, evenly chosen, the first and the last among them, when there are more runs), the
/// others spread evenly over the failing indices. Empty when no index fails.
std::vector<std::pair<long, long>> failing_sample(const Eigen::VectorXd& ratio, long per_index);

/// The sample failing_sample takes of a range that fails at every index RoPE turns (every position but 0: a wrong
/// base, frequency, scaling or position), for `per_index` elements an index: what the sample of such a dump will be,
/// known before its pass over the whole range. Empty when every position is 0.
std::vector<std::pair<long, long>> predicted_sample(const std::vector<AxisPosition>& positions, long per_index);

/// A failing range's diagnosis on a sample (check_source on a SampledSource of `ranges`): the report, and the variant
/// it names (its match) as compared there, to be measured over the whole range.
struct SampleDiagnosis {
  std::vector<std::pair<long, long>> ranges;
  CheckReport report;
  std::optional<Variant> named;
  long indices = 0;  ///< sequence indices in the sample
};

SampleDiagnosis diagnose_sample(const DumpSource& source, long start, const std::vector<AxisPosition>& positions,
                                const RopeExpectation& expected, std::vector<std::pair<long, long>> ranges);

/// The diagnosis on predicted_sample, taken before the range's pass over the whole (so that a failing check reads its
/// dumps once): the variant it names is compared in that pass beside the expectation, for its counts; and where the
/// range's failing indices give that very sample, it is the diagnosis (diagnose_on_sample), the same computation. None
/// when the sample passes, or is refused (a value before RoPE that is not finite: the whole pass refuses it, naming the
/// first).
std::optional<SampleDiagnosis> predicted_diagnosis(const DumpSource& source, long start,
                                                   const std::vector<AxisPosition>& positions,
                                                   const RopeExpectation& expected);

/// Whether `v` is the variant a diagnosis `d` names as `kind`: its row, and the parameters the diagnosis found (its
/// restarts, for a restart), which every row's builder and search records of what it took from the dump, so that two
/// samples of one range that name the same variant name one comparison.
bool names_variant(const Variant& v, VariantId kind, const CheckDiagnosis& d);

/// A source whose comparisons visit a sample of another's range only (ComparePass::only), and which keeps the
/// variants it was asked to compare, so that the one a diagnosis names can be measured over the whole range.
class SampledSource final : public DumpSource {
 public:
  /// `ranges`: the sample, as failing_sample gives it, counted from the start of the range every comparison
  /// names.
  SampledSource(const DumpSource& whole, std::vector<std::pair<long, long>> ranges);
  long seq() const override { return whole_.seq(); }
  long groups() const override { return whole_.groups(); }
  long heads() const override { return whole_.heads(); }
  int d() const override { return whole_.d(); }
  DType dtype() const override { return whole_.dtype(); }
  std::vector<DumpComparison> compare(long start, const std::vector<AxisPosition>& positions,
                                      const std::vector<Variant>& variants,
                                      const ComparePass& pass = {}) const override;
  bool after_looks_like_bf16() const override { return whole_.after_looks_like_bf16(); }
  bool sampled() const override { return true; }
  std::string before_setting() const override { return whole_.before_setting(); }
  std::pair<std::vector<double>, std::vector<double>> vector_at(long index, long group) const override {
    return whole_.vector_at(index, group);
  }

  /// Sequence indices in the sample.
  long indices() const;
  /// The variant of the diagnosis `d` as last compared (its kind, its parameters and restarts), or nullptr.
  const Variant* named(VariantId kind, const CheckDiagnosis& d) const;

 private:
  const DumpSource& whole_;
  std::vector<std::pair<long, long>> ranges_;
  mutable std::vector<Variant> seen_;
};

/// The diagnosis of a failing range on a sample of it (`whole`: the report of the whole range so far, its comparison
/// with the expected variant failing): check_source on a SampledSource, then the variant it matches compared over the
/// whole range: a match the whole range does not confirm is not named (diagnose_unconfirmed diagnoses the whole range
/// instead). The report's comparison is the whole range's; diagnosis.sample and a note say what was
/// sampled.
/// `predicted`: predicted_diagnosis's, taken before the whole range's pass, and `measured` that pass's counts of the
/// variant it named (ComparePass::counts_from): the sample's diagnosis is not made again where its sample is the
/// predicted one, and the variant it names is not measured again where it is the one measured (names_variant).
CheckReport diagnose_on_sample(const DumpSource& source, long start, const std::vector<AxisPosition>& positions,
                               const RopeExpectation& expected, CheckReport whole,
                               std::optional<SampleDiagnosis> predicted = std::nullopt,
                               const DumpComparison* measured = nullptr);

/// The diagnosis of a failing range whose sample named a variant that the whole range does not confirm (`nearest`: that
/// variant's comparison over the whole range), made on the whole range (`report.comparison`: its comparison with the
/// expected variant) as check_source makes one where no variant matches: the measured difference, named where it is
/// confirmed over the whole range, else listed; else where the range first departs. The unconfirmed variant is not
/// named, nor offered as the closest. Defined in check_diagnosis.cpp.
void diagnose_unconfirmed(CheckReport& report, const DumpSource& source, long start,
                          const std::vector<AxisPosition>& positions, const DumpComparison& nearest);

/// A failing segment's own diagnosis on a sample of it (check_segments, for a segment as large as
/// diagnosed_on_sample says): `ratio` the whole dump's largest ratio per index of the segment; the variant named is
/// not measured again (the whole dump's diagnosis measures its own).
CheckReport diagnose_segment_on_sample(const DumpSource& source, long start, const std::vector<AxisPosition>& positions,
                                       const RopeExpectation& expected, const Eigen::VectorXd& ratio);

}  // namespace rope
