// A large failing check (rope/analysis/check/fast/check_sample.hpp) reads its dumps once where it fails at every index
// RoPE turns (issue 78): the sample's diagnosis is made before the pass over the whole, on the sample that the failing
// indices will give, and the variant it names is compared in that pass. The diagnosis is the one the sample of the
// failing indices gives when made after the pass (what check did before), field by field; a dump whose failures begin
// later reads its dumps twice and says the same. Dumps of 1040 × 32 × 128 elements (2^22 and more: diagnosed on a
// sample), rotated here by std::polar (analysis/dumps/test_dump_fixtures.hpp), not by rope's kernels.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <string>

#include "analysis/dumps/test_dump_fixtures.hpp"
#include "rope/analysis/check/check.hpp"
#include "rope/analysis/check/fast/check_sample.hpp"
#include "support/expectation.hpp"

namespace rope {
namespace {

constexpr long kSeq = 1040, kHeads = 32;
constexpr int kD = 128;

/// A source that counts its comparisons of the whole range (its passes over the dumps) and of a sample.
class CountingSource final : public DumpSource {
 public:
  explicit CountingSource(const DumpSource& inner) : inner_(inner) {}
  long seq() const override { return inner_.seq(); }
  long groups() const override { return inner_.groups(); }
  long heads() const override { return inner_.heads(); }
  int d() const override { return inner_.d(); }
  DType dtype() const override { return inner_.dtype(); }
  std::vector<DumpComparison> compare(long start, const std::vector<AxisPosition>& positions,
                                      const std::vector<Variant>& variants,
                                      const ComparePass& pass = {}) const override {
    ++(pass.only.empty() ? passes : sampled);
    return inner_.compare(start, positions, variants, pass);
  }
  bool after_looks_like_bf16() const override { return inner_.after_looks_like_bf16(); }
  std::pair<std::vector<double>, std::vector<double>> vector_at(long index, long group) const override {
    return inner_.vector_at(index, group);
  }
  mutable std::atomic<int> passes{0}, sampled{0};

 private:
  const DumpSource& inner_;
};

struct SampleCase {
  const char* name;
  double base;          ///< the dump's base (the expectation's is 10^4)
  double shift;         ///< positions given: the dump's plus this
  long restart;         ///< from this index on the dump's positions start again at 0 (0: none)
  long heads_ahead;     ///< the heads from this one on rotated one position ahead (−1: none)
  long unrotated;       ///< at this index head 3's channels 64 … 127 keep their input (−1: none)
  int passes;           ///< passes over the whole dump
  const char* matches;  ///< the variant named, or "" when none matches
  bool f32 = false;     ///< both dumps rounded to float32 (the named variant's rows then turned: check_kernel.cpp)
};

/// The values rounded to float32, the dump's type float32.
DumpVectors rounded_f32(DumpVectors v) {
  for (double& x : v.values) x = static_cast<double>(static_cast<float>(x));
  v.dtype = DType::F32;
  return v;
}

class CheckSample : public ::testing::TestWithParam<SampleCase> {};

TEST_P(CheckSample, ReadsTheDumpsOnceWhereThePredictedSampleIsTheFailingOne) {
  const SampleCase& c = GetParam();
  ASSERT_TRUE(diagnosed_on_sample(kSeq, kHeads, kD));
  const DumpVectors x =
      c.f32 ? rounded_f32(test::random_dump(kSeq, kHeads, kD, 78)) : test::random_dump(kSeq, kHeads, kD, 78);
  std::vector<double> at(static_cast<std::size_t>(kSeq));
  for (long s = 0; s < kSeq; ++s)
    at[static_cast<std::size_t>(s)] = static_cast<double>(c.restart > 0 && s >= c.restart ? s - c.restart : s);
  DumpVectors y = test::rotate_dump_at(x, true, kD, c.base, at);
  if (c.heads_ahead >= 0) {
    const DumpVectors ahead = test::rotate_dump(x, true, kD, c.base, 1.0, 1.0);
    for (long s = 0; s < kSeq; ++s) {
      for (long h = c.heads_ahead; h < kHeads; ++h) {
        for (int ch = 0; ch < kD; ++ch) {
          const auto k = static_cast<std::size_t>((s * kHeads + h) * kD + ch);
          y.values[k] = ahead.values[k];
        }
      }
    }
  }
  if (c.unrotated >= 0) {
    for (int ch = kD / 2; ch < kD; ++ch) {
      const auto k = static_cast<std::size_t>((c.unrotated * kHeads + 3) * kD + ch);
      y.values[k] = x.values[k];
    }
  }
  const RopeExpectation e = test::expect_half(kD);
  std::vector<AxisPosition> positions;
  for (long s = 0; s < kSeq; ++s) positions.push_back(AxisPosition::single(static_cast<double>(s) + c.shift));
  if (c.f32) y = rounded_f32(std::move(y));
  const MemorySource memory(x, y);
  const CountingSource source(memory);
  const CheckReport got = check_source(source, 0, positions, e);
  ASSERT_FALSE(got.comparison.passed());
  EXPECT_EQ(source.passes.load(), c.passes);
  const CheckDiagnosis& dg = got.diagnosis;
  EXPECT_EQ(dg.matches ? std::string(to_string(*dg.matches)) : std::string(), c.matches);
  // No closest is ever offered: with no variant named, what the measurement shows or where the dump departs.
  EXPECT_FALSE(dg.closest.has_value());
  if (!dg.matches) {
    EXPECT_TRUE(!dg.difference.empty() || dg.departure.has_value()) << dg.message.en;
  }
  if (c.unrotated >= 0) {  // the index the sample does not hold: the sample matches what the whole does not confirm
    for (const auto& [a, b] : predicted_sample(positions, kHeads * kD))
      EXPECT_FALSE(a <= c.unrotated && c.unrotated < b);
    const auto said = [&got](const char* words) {
      return std::any_of(got.notes.begin(), got.notes.end(),
                         [&](const Message& n) { return n.en.find(words) != std::string::npos; });
    };
    EXPECT_TRUE(said("what matches the sample does not hold over the whole dump, and is not named"));
    // What the whole dump's measurement shows: its positions one behind the ones given, which do not explain it all.
    ASSERT_EQ(dg.difference.size(), 1u) << dg.message.en;
    EXPECT_EQ(dg.difference.front().parameter, "position_offset");
    EXPECT_EQ(dg.difference.front().found, -1.0);
  }
  ASSERT_TRUE(dg.sample.has_value());
  // A variant named is measured over the whole dump; with none named (no closest is offered), nothing is.
  EXPECT_EQ(dg.sample->total, *c.matches == 0 ? 0 : x.seq * x.groups() * x.d);
  // The diagnosis made after the pass, on the failing indices' sample, as before: the same, field by field.
  CheckReport whole;
  whole.expected = e;
  whole.comparison = got.comparison;
  const CheckReport want = diagnose_on_sample(memory, 0, positions, e, whole);
  const CheckDiagnosis& w = want.diagnosis;
  EXPECT_EQ(dg.matches, w.matches);
  EXPECT_EQ(dg.closest, w.closest);
  EXPECT_EQ(dg.closest_explained, w.closest_explained);
  EXPECT_EQ(dg.found, w.found);
  EXPECT_EQ(dg.restarts, w.restarts);
  EXPECT_EQ(dg.correct_until, w.correct_until);
  EXPECT_EQ(dg.message.en, w.message.en);
  EXPECT_EQ(dg.sample->indices, w.sample->indices);
  EXPECT_EQ(dg.sample->elements, w.sample->elements);
  EXPECT_EQ(dg.sample->explained, w.sample->explained);
  EXPECT_EQ(dg.sample->total, w.sample->total);
  ASSERT_EQ(got.notes.size(), want.notes.size());
  for (std::size_t k = 0; k < got.notes.size(); ++k) EXPECT_EQ(got.notes[k].en, want.notes[k].en);
}

INSTANTIATE_TEST_SUITE_P(
    Dumps, CheckSample,
    ::testing::Values(
        // Every index fails: the sample is the predicted one, and the variant it names was measured in the pass.
        SampleCase{"positions_shifted", kDefaultBase, 1, 0, -1, -1, 1, "positions-minus-one"},
        // The same, and 64 elements of one index the sample does not hold keep their input: the sample's match does
        // not hold over the whole dump, so it is not named (nor offered as the closest): the measured difference.
        SampleCase{"positions_shifted_some_unrotated", kDefaultBase, 1, 0, -1, 10, 1, ""},
        // Every index but position 0's fails.
        SampleCase{"wrong_base", 500000, 0, 0, -1, -1, 1, "base-other"},
        // In float32: the named variant's count over the whole dump, its cos and sin turned from the row before, is
        // the one the pass after the sample's diagnosis makes with the exact rows.
        SampleCase{"positions_shifted_f32", kDefaultBase, 1, 0, -1, -1, 1, "positions-minus-one", true},
        SampleCase{"wrong_base_f32", 500000, 0, 0, -1, -1, 1, "base-other", true},
        // Half the heads fail at every index, position 0's too: the failing indices' sample is not the predicted
        // one and is diagnosed again; no variant matches it, and none is offered as the closest (positions shifted
        // by +1 explain half of the dump without being the whole cause): where the dump departs instead.
        SampleCase{"half_the_heads_ahead", kDefaultBase, 0, 0, 16, -1, 1, ""},
        // Right until index 600, where the positions start again: another sample, and a second pass.
        SampleCase{"positions_restart", kDefaultBase, 0, 600, -1, -1, 2, "positions-restart"}),
    [](const ::testing::TestParamInfo<SampleCase>& info) { return std::string(info.param.name); });

/// A packed segment diagnosed on its own sample (diagnose_segment_on_sample, as check_segments calls it): the sample's
/// match is named only where the whole segment confirms it; else what the segment's measurement shows.
struct SegmentCase {
  const char* name;
  long unrotated;       ///< at this index head 3's channels 64 … 127 keep their input (−1: none)
  const char* matches;  ///< the variant named, or "" when none matches
};

class SegmentSample : public ::testing::TestWithParam<SegmentCase> {};

TEST_P(SegmentSample, NamesOnlyWhatTheWholeSegmentConfirms) {
  const SegmentCase& c = GetParam();
  const DumpVectors x = test::random_dump(kSeq, kHeads, kD, 91);
  DumpVectors y = test::rotate_dump(x, true, kD, kDefaultBase, 1.0, 0.0);
  if (c.unrotated >= 0) {
    for (int ch = kD / 2; ch < kD; ++ch) {
      const auto k = static_cast<std::size_t>((c.unrotated * kHeads + 3) * kD + ch);
      y.values[k] = x.values[k];
    }
  }
  const RopeExpectation e = test::expect_half(kD);
  std::vector<AxisPosition> positions;  // the given ones one ahead of the dump's
  for (long s = 0; s < kSeq; ++s) positions.push_back(AxisPosition::single(static_cast<double>(s) + 1));
  const MemorySource source(x, y);
  Variant expected;
  expected.spec = e;
  const DumpComparison whole = source.compare(0, positions, {expected}).front();
  ASSERT_FALSE(whole.passed());
  const Eigen::VectorXd& ratio = whole.position_ratio;
  for (const auto& [a, b] : failing_sample(ratio, kHeads * kD)) EXPECT_FALSE(a <= c.unrotated && c.unrotated < b);
  const CheckReport got = diagnose_segment_on_sample(source, 0, positions, e, ratio);
  const CheckDiagnosis& dg = got.diagnosis;
  EXPECT_EQ(dg.matches ? std::string(to_string(*dg.matches)) : std::string(), c.matches) << dg.message.en;
  EXPECT_FALSE(dg.closest.has_value());
  ASSERT_TRUE(dg.sample.has_value());
  const auto said = [&got](const char* words) {
    return std::any_of(got.notes.begin(), got.notes.end(),
                       [&](const Message& n) { return n.en.find(words) != std::string::npos; });
  };
  if (*c.matches != 0) {  // confirmed over the whole segment: every element explained
    EXPECT_EQ(dg.sample->total, x.seq * x.groups() * x.d);
    EXPECT_EQ(dg.sample->explained, dg.sample->total);
    EXPECT_TRUE(said("measured over the whole dump: it explains"));
  } else {  // the segment's own comparison, and its measured difference: positions one behind the ones given
    EXPECT_EQ(got.comparison.failing, whole.failing);
    EXPECT_TRUE(said("what matches the sample does not hold over the whole dump, and is not named"));
    ASSERT_EQ(dg.difference.size(), 1u) << dg.message.en;
    EXPECT_EQ(dg.difference.front().parameter, "position_offset");
    EXPECT_EQ(dg.difference.front().found, -1.0);
  }
}

INSTANTIATE_TEST_SUITE_P(Segments, SegmentSample,
                         ::testing::Values(SegmentCase{"positions_shifted", -1, "positions-minus-one"},
                                           SegmentCase{"positions_shifted_some_unrotated", 10, ""}),
                         [](const ::testing::TestParamInfo<SegmentCase>& info) {
                           return std::string(info.param.name);
                         });

/// predicted_sample is failing_sample's sample of a range that fails at every index whose position is not 0.
TEST(CheckSample, PredictedSampleIsTheFailingSampleOfEveryTurnedIndex) {
  for (const long n : {300L, 1040L, 8192L}) {
    for (const long per_index : {64L * 128, 4096L, 1L << 16}) {
      std::vector<AxisPosition> positions;
      Eigen::VectorXd ratio(n);
      for (long s = 0; s < n; ++s) {
        const double p = static_cast<double>(s % 500);  // packed: position 0 at 0, 500, 1000, …
        positions.push_back(AxisPosition::single(p));
        ratio[s] = p != 0 ? 3.0 : 0.5;
      }
      EXPECT_EQ(predicted_sample(positions, per_index), failing_sample(ratio, per_index)) << n << " " << per_index;
    }
  }
  EXPECT_TRUE(predicted_sample({AxisPosition::single(0), AxisPosition::single(0)}, 4096).empty());
}

}  // namespace
}  // namespace rope
