// A cos/sin table given as the reference (rope/analysis/check/cos_sin_table.hpp): its forms, the tolerance (T1) at
// its bound, and the check of a dump rotated by a random table (as ONNX's test caches are) with each mistake a table
// can be applied with, every comparison made by the fast path made again by the exact path and held to the same bits.
// The dumps are rotated here by the complex product (c + i·s)·(x_a + i·x_b), not by the library's code.
#include <cmath>
#include <complex>
#include <cstring>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "analysis/dumps/test_dump_fixtures.hpp"
#include "rope/analysis/check/check.hpp"
#include "rope/analysis/check/check_table.hpp"
#include "rope/analysis/check/compare_exact.hpp"
#include "rope/analysis/check/cos_sin_table.hpp"
#include "rope/analysis/check/fast/check_kernel.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "support/expectation.hpp"

namespace rope {
namespace {

using test::expect_half;
using test::random_dump;

TensorData tensor(std::vector<long> shape, std::vector<double> values, DType type = DType::F32) {
  TensorData t;
  t.shape = std::move(shape), t.values = std::move(values), t.dtype = type;
  return t;
}

/// A random table of `rows` rows of `half` entries in [0, 1), float32 values.
TensorData random_half(long rows, int half, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> v(static_cast<std::size_t>(rows * half));
  for (double& x : v) x = static_cast<float>(u(gen));
  return tensor({rows, half}, std::move(v));
}

/// Each row's entries written twice: as halves (Hugging Face's cat) or as pairs (repeat_interleave).
TensorData repeated(const TensorData& t, bool pairs) {
  const long rows = t.shape[0], h = t.shape[1];
  std::vector<double> v(static_cast<std::size_t>(rows * 2 * h));
  for (long r = 0; r < rows; ++r) {
    for (long i = 0; i < h; ++i) {
      const double x = t.values[static_cast<std::size_t>(r * h + i)];
      v[static_cast<std::size_t>(r * 2 * h + (pairs ? 2 * i : i))] = x;
      v[static_cast<std::size_t>(r * 2 * h + (pairs ? 2 * i + 1 : h + i))] = x;
    }
  }
  return tensor({rows, 2 * h}, std::move(v));
}

TEST(GivenTable, RepeatedHalvesOrPairsAreReadAsHalfTheWidthUnlessTheFactorSaysOtherwise) {
  const TensorData c = random_half(10, 4, 1), s = random_half(10, 4, 2);
  const GivenTable half = given_table(c, s, false, std::nullopt, 16, "t");
  EXPECT_EQ(half.half, 4);
  EXPECT_EQ(half.form, GivenTable::Form::Half);
  const GivenTable halves = given_table(repeated(c, false), repeated(s, false), false, std::nullopt, 16, "t");
  EXPECT_EQ(halves.half, 4);
  EXPECT_EQ(halves.form, GivenTable::Form::RepeatedHalves);
  EXPECT_EQ(halves.cos, half.cos);
  const GivenTable pairs = given_table(repeated(c, true), repeated(s, true), true, std::nullopt, 16, "t");
  EXPECT_EQ(pairs.form, GivenTable::Form::RepeatedPairs);
  EXPECT_EQ(pairs.sin, half.sin);
  // Repeated pairs are no repeated halves: with the half layout the table is 8 pairs wide.
  EXPECT_EQ(given_table(repeated(c, true), repeated(s, true), false, std::nullopt, 16, "t").half, 8);
  // Both fit: r = int(16·0.5) = 8 is the repeated form's width, r = 16 twice the plain form's.
  EXPECT_EQ(given_table(repeated(c, false), repeated(s, false), false, 0.5, 16, "t").half, 4);
  EXPECT_EQ(given_table(repeated(c, false), repeated(s, false), false, 1.0, 16, "t").half, 8);
  EXPECT_THROW(given_table(c, s, false, 0.75, 16, "t"), InvalidArgument);         // 4 wide: neither 12 nor 6
  EXPECT_THROW(given_table(c, s, false, std::nullopt, 6, "t"), InvalidArgument);  // 8 channels in a head of 6
  EXPECT_THROW(given_table(c, random_half(9, 4, 3), false, std::nullopt, 16, "t"), InvalidArgument);  // shapes
  TensorData bad = c;
  bad.values[5] = NAN;
  EXPECT_THROW(given_table(bad, s, false, std::nullopt, 16, "t"), InvalidArgument);
  TensorData cache = tensor({10, 8}, {});
  for (long r = 0; r < 10; ++r) {
    for (int i = 0; i < 4; ++i) cache.values.push_back(c.values[static_cast<std::size_t>(r * 4 + i)]);
    for (int i = 0; i < 4; ++i) cache.values.push_back(s.values[static_cast<std::size_t>(r * 4 + i)]);
  }
  const GivenTable vllm = given_cache_table(cache, false, std::nullopt, 16, "t");
  EXPECT_EQ(vllm.cos, half.cos);
  EXPECT_EQ(vllm.sin, half.sin);
  EXPECT_TRUE(vllm.cache);
}

/// A mistake a kernel makes with its table.
enum class Mistake { None, Layout, SinSign, SinMissing, Swapped, ByIndex, PlusOne, Offset };

struct TableCase {
  const char* name;
  bool interleaved;
  Mistake mistake;
  const char* matches;  ///< the variant named; nullptr: passes
};

std::string case_name(const ::testing::TestParamInfo<TableCase>& i) { return i.param.name; }

class TableCheck : public ::testing::TestWithParam<TableCase> {
 protected:
  void TearDown() override { set_compare_witness(nullptr); }
};

/// Pair i's channels in a head: (i, i + half) or (2i, 2i + 1).
std::pair<int, int> channels(bool interleaved, int half, int i) {
  return interleaved ? std::pair{2 * i, 2 * i + 1} : std::pair{i, i + half};
}

TEST_P(TableCheck, IsNamedAndTheFastPathIsTheExactOneBitForBit) {
  const TableCase& c = GetParam();
  constexpr long kSeq = 24, kHeads = 3, kRows = 50;
  constexpr int kD = 12, kHalf = 4;  // 8 of 12 channels rotated, 4 passed through
  const DumpVectors x = random_dump(kSeq, kHeads, kD, 92);
  const TensorData cos = random_half(kRows, kHalf, 7), sin = random_half(kRows, kHalf, 8);
  std::mt19937_64 gen(5);
  std::uniform_int_distribution<long> id(5, kRows - 6);
  std::vector<double> positions(kSeq);
  for (double& p : positions) p = static_cast<double>(id(gen));
  DumpVectors y = x;
  for (long s = 0; s < kSeq; ++s) {
    long row = static_cast<long>(positions[static_cast<std::size_t>(s)]);
    if (c.mistake == Mistake::PlusOne) row += 1;
    if (c.mistake == Mistake::Offset) row += 5;
    if (c.mistake == Mistake::ByIndex) row = s;
    for (long g = 0; g < kHeads; ++g) {
      for (int i = 0; i < kHalf; ++i) {
        double cv = cos.values[static_cast<std::size_t>(row * kHalf + i)];
        double sv = sin.values[static_cast<std::size_t>(row * kHalf + i)];
        if (c.mistake == Mistake::SinSign) sv = -sv;
        if (c.mistake == Mistake::SinMissing) sv = 0;
        if (c.mistake == Mistake::Swapped) std::swap(cv, sv);
        const bool layout = c.mistake == Mistake::Layout ? !c.interleaved : c.interleaved;
        const auto [a, b] = channels(layout, kHalf, i);
        const std::complex<double> z =
            std::complex<double>(cv, sv) * std::complex<double>(x.value(s, g, a), x.value(s, g, b));
        y.values[static_cast<std::size_t>((s * kHeads + g) * kD + a)] = z.real();
        y.values[static_cast<std::size_t>((s * kHeads + g) * kD + b)] = z.imag();
      }
    }
  }
  RopeExpectation e = expect_half(kD);
  e.rope.layout = c.interleaved ? Layout::Interleaved : Layout::Half;
  expect_table(e, std::make_shared<const GivenTable>(given_table(cos, sin, c.interleaved, std::nullopt, kD, "t")));
  ASSERT_EQ(e.rotary_dim(), 2 * kHalf);
  std::mutex lock;
  long comparisons = 0;
  std::vector<std::string> differences;
  set_compare_witness([&](const BlockShape& shape, const std::vector<AxisPosition>& p,
                          const std::vector<Variant>& variants, const BlockFetch& fetch, const ComparePass& pass,
                          const std::vector<DumpComparison>& fast) {
    const std::vector<DumpComparison> exact = compare_exact(shape, p, variants, fetch, pass);
    std::lock_guard<std::mutex> hold(lock);
    ++comparisons;
    for (std::size_t k = 0; k < variants.size(); ++k) {
      const DumpComparison &f = fast[k], &x2 = exact[k];
      const bool counts = k >= pass.counts_from || (variants[k].norms && !pass.exact_norms);
      const bool same = f.failing == x2.failing && f.total == x2.total && f.first_seq == x2.first_seq &&
                        f.first_channel == x2.first_channel &&
                        (counts || std::memcmp(&f.max_ratio, &x2.max_ratio, sizeof(double)) == 0) &&
                        std::memcmp(&f.first_tolerance, &x2.first_tolerance, sizeof(double)) == 0;
      if (!same)
        differences.push_back(fmt::format("comparison {}, variant {} ({}): fast {} failing, max {:a}; exact {}, {:a}",
                                          comparisons, k, to_string(variants[k].kind), f.failing, f.max_ratio,
                                          x2.failing, x2.max_ratio));
    }
  });
  const CheckReport r = check_dump(x, y, positions, e);
  set_compare_witness(nullptr);
  EXPECT_GT(comparisons, 0);
  for (const std::string& d : differences) ADD_FAILURE() << d;
  if (c.matches == nullptr) {
    EXPECT_TRUE(r.comparison.passed()) << r.comparison.max_ratio;
    EXPECT_LT(r.comparison.max_ratio, 0.1);  // float64 products of the table's values: far inside (T1)
    return;
  }
  EXPECT_FALSE(r.comparison.passed());
  ASSERT_TRUE(r.diagnosis.matches) << r.diagnosis.message.en;
  EXPECT_STREQ(to_string(*r.diagnosis.matches), c.matches) << r.diagnosis.message.en;
  if (c.mistake == Mistake::Offset) {
    ASSERT_FALSE(r.diagnosis.found.empty());
    EXPECT_EQ(r.diagnosis.found[0].second, 5.0);
  }
}

INSTANTIATE_TEST_SUITE_P(Mistakes, TableCheck,
                         ::testing::Values(TableCase{"half", false, Mistake::None, nullptr},
                                           TableCase{"interleaved", true, Mistake::None, nullptr},
                                           TableCase{"half_layout", false, Mistake::Layout, "layout-swapped"},
                                           TableCase{"interleaved_layout", true, Mistake::Layout, "layout-swapped"},
                                           TableCase{"sin_sign", false, Mistake::SinSign, "rotation-reversed"},
                                           TableCase{"sin_missing", true, Mistake::SinMissing, "table-sin-missing"},
                                           TableCase{"swapped", false, Mistake::Swapped, "table-cos-sin-swapped"},
                                           TableCase{"by_index", true, Mistake::ByIndex, "table-gathered-by-index"},
                                           TableCase{"plus_one", false, Mistake::PlusOne, "positions-plus-one"},
                                           TableCase{"offset", true, Mistake::Offset, "positions-offset"}),
                         case_name);

TEST(GivenTable, ToleranceIsT1AtItsBound) {
  // (T1) at pair 1 of vector (3, 0): κ·|c + i·s|·‖x‖·(2·ε_T + 2·ε_U), a float64 dump and a float32 table.
  constexpr int kD = 8, kHalf = 4;
  const DumpVectors x = random_dump(6, 1, kD, 3);
  const TensorData cos = random_half(6, kHalf, 11), sin = random_half(6, kHalf, 12);
  DumpVectors y = x;
  for (long s = 0; s < 6; ++s) {
    for (int i = 0; i < kHalf; ++i) {
      const std::complex<double> z = std::complex<double>(cos.values[static_cast<std::size_t>(s * kHalf + i)],
                                                          sin.values[static_cast<std::size_t>(s * kHalf + i)]) *
                                     std::complex<double>(x.value(s, 0, i), x.value(s, 0, i + kHalf));
      y.values[static_cast<std::size_t>(s * kD + i)] = z.real();
      y.values[static_cast<std::size_t>(s * kD + i + kHalf)] = z.imag();
    }
  }
  RopeExpectation e = expect_half(kD);
  expect_table(e, std::make_shared<const GivenTable>(given_table(cos, sin, false, std::nullopt, kD, "t")));
  const std::vector<double> p = test::range_positions(6);
  const double cv = cos.values[3 * kHalf + 1], sv = sin.values[3 * kHalf + 1];
  const double tol = kToleranceSafety * std::hypot(cv, sv) * std::hypot(x.value(3, 0, 1), x.value(3, 0, 5)) *
                     (2 * epsilon(DType::F64) + 2 * epsilon(DType::F32));
  y.values[3 * kD + 1] += 0.9 * tol;
  EXPECT_TRUE(check_dump(x, y, p, e).comparison.passed());
  y.values[3 * kD + 1] += 0.2 * tol;
  const CheckReport bad = check_dump(x, y, p, e);
  EXPECT_EQ(bad.comparison.failing, 1);
  EXPECT_EQ(bad.comparison.first_seq, 3);
  EXPECT_EQ(bad.comparison.first_channel, 1);
  EXPECT_NEAR(bad.comparison.first_tolerance, tol, 1e-12 * tol);
}

}  // namespace
}  // namespace rope
