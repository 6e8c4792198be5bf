// The screen of rope check's kernel (rope/analysis/check/fast/check_screen.hpp) changes no number: every position's and
// every channel's largest |Δ|/tolerance is the exact (C1) ratio of docs/check.md, computed here element by
// element with the kernel's operations, compared with ==, on float64 dumps with exact ties (a head copied into
// another), a zero vector, both layouts and an attention factor; and on failing dumps, whose failing elements the
// kernel counts by the same vectorized loop after a thread's first failure: the counts, per group too, and the maxima
// of the exact loop. The pair norms (N1) screened in the loop of (C1) (the passing path's one pass) give what two
// separate passes give, bit for bit; a variant compared for its counts alone counts what its own comparison counts,
// its cos and sin turned from the row before included (an element failing by one float32 step is counted).
#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>

#include "analysis/dumps/test_dump_fixtures.hpp"
#include "rope/analysis/check/angle_error.hpp"
#include "rope/analysis/check/check.hpp"
#include "rope/analysis/check/fast/check_screen.hpp"
#include "rope/core/constants.hpp"
#include "support/expectation.hpp"

namespace rope {
namespace {

struct Exact {
  std::vector<double> position, channel;
  long failing = 0;
  std::vector<long> group_failing;
};

/// (C1) element by element: tolerance κ·a·√(x_a² + x_b²)·(2·ε_T + ε_A·(1 + c_i·|m|·θ_i)), as the kernel computes it.
Exact exact_ratios(const DumpVectors& x, const DumpVectors& y, const RopeExpectation& e, double shift = 0) {
  const int half = static_cast<int>(e.theta().size());
  const AngleModel model = default_angle_model(x.dtype);
  const Eigen::VectorXd c = angle_error_factors(model, e.theta(), e.base(), 2 * half);
  const double k = kToleranceSafety * e.attention_factor(), et = epsilon(x.dtype), ea = angle_epsilon(model);
  Exact out{std::vector<double>(static_cast<std::size_t>(x.seq), 0.0),
            std::vector<double>(static_cast<std::size_t>(x.d), 0.0), 0,
            std::vector<long>(static_cast<std::size_t>(x.groups()), 0)};
  for (long s = 0; s < x.seq; ++s) {
    const double m = static_cast<double>(s) + shift;
    for (long g = 0; g < x.groups(); ++g) {
      for (int i = 0; i < half; ++i) {
        const int ca = e.rope.layout == Layout::Half ? i : 2 * i,
                  cb = e.rope.layout == Layout::Half ? i + half : 2 * i + 1;
        const double phi = m * e.theta()[i], cs = std::cos(phi), sn = std::sin(phi);
        const double term = 2 * et + ea * (1 + c[i] * std::abs(m) * e.theta()[i]);
        const double x1 = x.value(s, g, ca), x2 = x.value(s, g, cb);
        const double exact_tol = k * std::sqrt(x1 * x1 + x2 * x2) * term;
        const double tol = std::max(exact_tol, std::numeric_limits<double>::min());
        const double a = e.attention_factor();
        const double da = std::abs(y.value(s, g, ca) - a * (x1 * cs - x2 * sn));
        const double db = std::abs(y.value(s, g, cb) - a * (x1 * sn + x2 * cs));
        const long fails = static_cast<long>(!(da <= exact_tol)) + static_cast<long>(!(db <= exact_tol));
        out.failing += fails;
        out.group_failing[static_cast<std::size_t>(g)] += fails;
        const double ra = std::min(da / tol, 1e300), rb = std::min(db / tol, 1e300);
        auto& p = out.position[static_cast<std::size_t>(s)];
        p = std::max(p, std::max(ra, rb));
        out.channel[static_cast<std::size_t>(ca)] = std::max(out.channel[static_cast<std::size_t>(ca)], ra);
        out.channel[static_cast<std::size_t>(cb)] = std::max(out.channel[static_cast<std::size_t>(cb)], rb);
      }
    }
  }
  return out;
}

TEST(CheckScreen, EveryMaximumIsTheExactRatioBitForBit) {
  for (const bool half : {true, false}) {
    for (const double a : {1.0, 1.0 + 0.1 * std::log(4.0)}) {
      DumpVectors x = test::random_dump(96, 4, 32, 7);
      for (int ch = 0; ch < 32; ++ch) x.values[static_cast<std::size_t>((5 * 4 + 3) * 32 + ch)] = 0.0;  // a zero vector
      for (long s = 0; s < x.seq; ++s) {  // head 2 a copy of head 1: ties everywhere
        for (int ch = 0; ch < 32; ++ch) x.values[static_cast<std::size_t>((s * 4 + 2) * 32 + ch)] = x.value(s, 1, ch);
      }
      const DumpVectors y = test::rotate_dump(x, half, 32, kDefaultBase, a);
      RopeExpectation e = test::expect_half(32, 32, kDefaultBase, a);
      e.rope.layout = half ? Layout::Half : Layout::Interleaved;
      const CheckReport r = check_dump(x, y, test::range_positions(x.seq), e);
      ASSERT_TRUE(r.comparison.passed());
      const Exact want = exact_ratios(x, y, e);
      const DumpComparison& c = r.comparison;
      for (long s = 0; s < x.seq; ++s)
        EXPECT_EQ(c.position_ratio[s], want.position[static_cast<std::size_t>(s)]) << "s " << s;
      for (int ch = 0; ch < 32; ++ch)
        EXPECT_EQ(c.channel_ratio[ch], want.channel[static_cast<std::size_t>(ch)]) << "channel " << ch;
      EXPECT_EQ(c.max_ratio, *std::max_element(want.position.begin(), want.position.end()));
      EXPECT_EQ(c.total, x.seq * x.groups() * x.d);
    }
  }
}

/// A dump checked at positions shifted by `shift` (every element fails but a few of the slowest pairs near 0): the
/// failing elements counted, per group, and every maximum, as the exact loop computes them; the same with one thread
/// (the count path after its first failure) as with every core.
class CheckScreenFailing : public ::testing::TestWithParam<std::tuple<bool, double>> {};

TEST_P(CheckScreenFailing, CountsAndMaximaAreTheExactLoopsBitForBit) {
  const auto [half, shift] = GetParam();
  DumpVectors x = test::random_dump(600, 4, 32, 11);  // 5 blocks of 128 indices: both cores
  for (long s = 0; s < x.seq; ++s) {                  // head 2 a copy of head 1: ties everywhere
    for (int ch = 0; ch < 32; ++ch) x.values[static_cast<std::size_t>((s * 4 + 2) * 32 + ch)] = x.value(s, 1, ch);
  }
  const DumpVectors y = test::rotate_dump(x, half, 32, kDefaultBase, 1.0);
  RopeExpectation e = test::expect_half(32, 32, kDefaultBase, 1.0);
  e.rope.layout = half ? Layout::Half : Layout::Interleaved;
  std::vector<AxisPosition> positions;
  for (long s = 0; s < x.seq; ++s) positions.push_back(AxisPosition::single(static_cast<double>(s) + shift));
  Variant expected;
  expected.spec = e;
  const DumpComparison c = compare_dump(x, y, positions, expected);
  const Exact want = exact_ratios(x, y, e, shift);
  ASSERT_GT(want.failing, 0);
  EXPECT_EQ(c.failing, want.failing);
  EXPECT_EQ(c.group_failing, want.group_failing);
  for (long s = 0; s < x.seq; ++s)
    EXPECT_EQ(c.position_ratio[s], want.position[static_cast<std::size_t>(s)]) << "s " << s;
  for (int ch = 0; ch < 32; ++ch)
    EXPECT_EQ(c.channel_ratio[ch], want.channel[static_cast<std::size_t>(ch)]) << "channel " << ch;
  EXPECT_EQ(c.first_seq, 0);
  EXPECT_EQ(c.total, x.seq * x.groups() * x.d);
}

INSTANTIATE_TEST_SUITE_P(LayoutsAndShifts, CheckScreenFailing,
                         ::testing::Combine(::testing::Bool(), ::testing::Values(1.0, -1.0, 3.0)));

/// One dump of the fused screen's table: the layout, the positions' shift (every element fails (C1): the count path),
/// head 2's output scaled (its pair norms fail (N1): the position compared again by the norms' own loop), one value
/// not a number (in head 2: with the head scaled, every pair of its vector fails (N1)).
struct FusedNormsCase {
  const char* name;
  bool half;
  double shift, head_scale;
  bool nan;
};

class CheckScreenFusedNorms : public ::testing::TestWithParam<FusedNormsCase> {};

DumpVectors as_f32_dump(DumpVectors v) {  // float32 values and rounding, so that the screen of (N1) applies
  for (double& x : v.values) x = static_cast<double>(static_cast<float>(x));
  v.dtype = DType::F32;
  return v;
}

void expect_same_comparison(const DumpComparison& got, const DumpComparison& want) {
  EXPECT_EQ(got.max_ratio, want.max_ratio);
  EXPECT_EQ(got.failing, want.failing);
  EXPECT_EQ(got.total, want.total);
  EXPECT_EQ(got.position_ratio, want.position_ratio);
  EXPECT_EQ(got.channel_ratio, want.channel_ratio);
  EXPECT_EQ(got.group_failing, want.group_failing);
  EXPECT_EQ(got.first_seq, want.first_seq);
  EXPECT_EQ(got.first_group, want.first_group);
  EXPECT_EQ(got.first_channel, want.first_channel);
  EXPECT_EQ(got.first_pair, want.first_pair);
  EXPECT_TRUE(got.first_got == want.first_got || (std::isnan(got.first_got) && std::isnan(want.first_got)))
      << got.first_got << " " << want.first_got;
  EXPECT_EQ(got.first_tolerance, want.first_tolerance);
  EXPECT_EQ(got.after_non_finite.count, want.after_non_finite.count);
  EXPECT_EQ(got.norm_after2, want.norm_after2);  // the sums of the norms: the scale a diagnosis names
  EXPECT_EQ(got.norm_expected2, want.norm_expected2);
}

/// A row's dumps, positions, expected variant and its pair norms.
struct FusedNormsDumps {
  DumpVectors x, y;
  std::vector<AxisPosition> positions;
  Variant expected, norms;
};

FusedNormsDumps fused_norms_dumps(const FusedNormsCase& c) {
  FusedNormsDumps f;
  f.x = as_f32_dump(test::random_dump(600, 4, 32, 19));  // 5 blocks: both cores
  f.y = as_f32_dump(test::rotate_dump(f.x, c.half, 32, kDefaultBase));
  for (long s = 0; s < f.x.seq; ++s) {
    for (int ch = 0; ch < 32; ++ch) {
      double& v = f.y.values[static_cast<std::size_t>((s * 4 + 2) * 32 + ch)];
      v = static_cast<double>(static_cast<float>(v * c.head_scale));
    }
  }
  if (c.nan) f.y.values[static_cast<std::size_t>((300 * 4 + 2) * 32 + 5)] = std::nan("");
  f.expected.spec = test::expect_half(32, 32, kDefaultBase, 1.0);
  f.expected.spec.rope.layout = c.half ? Layout::Half : Layout::Interleaved;
  for (long s = 0; s < f.x.seq; ++s) f.positions.push_back(AxisPosition::single(static_cast<double>(s) + c.shift));
  f.norms = f.expected;
  f.norms.norms = true;
  return f;
}

TEST_P(CheckScreenFusedNorms, BothComparisonsAreTheSeparatePassesBitForBit) {
  const FusedNormsCase& c = GetParam();
  const FusedNormsDumps f = fused_norms_dumps(c);
  const DumpVectors &x = f.x, &y = f.y;
  const std::vector<AxisPosition>& positions = f.positions;
  const Variant &expected = f.expected, &norms = f.norms;
  const MemorySource source(x, y);
  ComparePass together;
  together.norms_as_previous = true;
  const std::vector<DumpComparison> both = source.compare(0, positions, {expected, norms}, together);
  ASSERT_EQ(both.size(), 2u);
  expect_same_comparison(both[0], source.compare(0, positions, {expected}).front());
  expect_same_comparison(both[1], source.compare(0, positions, {norms}).front());
  EXPECT_GT(both[1].norm_after2, 0);
  // A value not a number counted once, as (C1) counts it, however many of its vector's pairs fail (N1).
  EXPECT_EQ(both[1].after_non_finite.count, both[0].after_non_finite.count);
  EXPECT_EQ(both[1].after_non_finite.count, c.nan ? 1 : 0);
}

/// A variant compared for its counts alone (ComparePass::counts_from: the variant a large dump's sample names, measured
/// in the pass that compares the expectation, in its loop where it turns the same pairs) counts what a comparison of
/// its own counts: failing, total, per group, and the values that are not finite numbers; the expectation again, the
/// dump's own RoPE (positions not shifted: it fails only at a value that is not a number, after the expectation has
/// begun to count), failing ones (the positions one ahead, every frequency doubled) and one with an attention factor
/// of its own (the 1.05 of head 2 in some rows).
TEST_P(CheckScreenFusedNorms, CountsAloneAreTheFullComparisonsCounts) {
  const FusedNormsCase& c = GetParam();
  const FusedNormsDumps f = fused_norms_dumps(c);
  const DumpVectors &x = f.x, &y = f.y;
  const std::vector<AxisPosition>& positions = f.positions;
  const Variant &expected = f.expected, &norms = f.norms;
  Variant truth = expected, ahead = expected, doubled = expected, louder = expected;
  truth.position_offset = -c.shift;
  ahead.position_offset = 1;
  doubled.spec.set_theta(expected.spec.theta() * 2);
  louder.spec = test::expect_half(32, 32, kDefaultBase, 1.05);
  louder.spec.rope.layout = expected.spec.rope.layout;
  const MemorySource source(x, y);
  for (const Variant& measured : {expected, truth, ahead, doubled, louder}) {
    ComparePass pass;
    pass.norms_as_previous = true;
    pass.counts_from = 2;
    const std::vector<DumpComparison> all = source.compare(0, positions, {expected, norms, measured}, pass);
    ASSERT_EQ(all.size(), 3u);
    const DumpComparison want = source.compare(0, positions, {measured}).front();
    EXPECT_EQ(all[2].failing, want.failing);
    EXPECT_EQ(all[2].total, want.total);
    EXPECT_EQ(all[2].group_failing, want.group_failing);
    EXPECT_EQ(all[2].after_non_finite.count, want.after_non_finite.count);
    EXPECT_EQ(all[2].passed(), want.passed());
    expect_same_comparison(all[0], source.compare(0, positions, {expected}).front());  // the others as before
  }
}

/// The variant compared for its counts alone in the expectation's loop may take its cos and sin turned from its row at
/// the index before (check_kernel.cpp, RotatedRows): its verdicts stay the exact table's. The dump's own RoPE with one
/// element moved to the first float32 value beyond its tolerance, at an index after the expectation (its positions
/// shifted) has begun to count: counted failing there, as its own comparison counts it.
TEST(CheckScreenVerdictPartner, AnElementFailingByAHairIsCounted) {
  FusedNormsDumps f = fused_norms_dumps(FusedNormsCase{"half_shifted", true, 1, 1, false});
  Variant truth = f.expected;
  truth.position_offset = -1;  // the dump's own positions, 0 … 599
  const std::size_t at = static_cast<std::size_t>((450 * 4 + 1) * 32 + 3);
  // y + δ rounded to float32: δ doubled until the element fails, then halved between the last passing and the
  // first failing δ until the two round to neighbouring float32 values
  const double y0 = f.y.values[at];
  const auto fails_at = [&](double delta) {
    f.y.values[at] = static_cast<double>(static_cast<float>(y0 + delta));
    return exact_ratios(f.x, f.y, f.expected.spec).failing > 0;
  };
  double lo = 0, hi = 1e-9;
  while (!fails_at(hi)) lo = hi, hi *= 2;
  while (std::nextafter(static_cast<float>(y0 + lo), INFINITY) < static_cast<float>(y0 + hi)) {
    const double mid = (lo + hi) / 2;
    (fails_at(mid) ? hi : lo) = mid;
  }
  ASSERT_TRUE(fails_at(hi));
  const MemorySource source(f.x, f.y);
  const DumpComparison want = source.compare(0, f.positions, {truth}).front();
  ASSERT_EQ(want.failing, 1);
  EXPECT_GT(want.position_ratio[450], 1.0);
  EXPECT_LT(want.position_ratio[450], 1.2);  // a hair: one float32 step beyond the tolerance
  ComparePass pass;
  pass.norms_as_previous = true;
  pass.counts_from = 2;
  const std::vector<DumpComparison> all = source.compare(0, f.positions, {f.expected, f.norms, truth}, pass);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[2].failing, 1);
  EXPECT_EQ(all[2].total, want.total);
  EXPECT_EQ(all[2].group_failing, want.group_failing);
}

/// Two expectations, each with its pair norms and a variant compared for its counts alone in its loop: each variant's
/// rows turned from its own row before, never from the other's. The second variant (every frequency doubled) at index
/// 0 would turn from the first's row at index 127 (the end of the block): R(127·θ)·R(−127·2θ) = R(−127·θ), so the
/// dump's index 0 is turned by −127·θ, which that row would pass and the variant's own row (no turn) fails.
TEST(CheckScreenVerdictPartner, EachVariantTurnsItsOwnRows) {
  FusedNormsDumps f = fused_norms_dumps(FusedNormsCase{"half_passes", true, 0, 1, false});
  const DumpVectors back = as_f32_dump(test::rotate_dump(f.x, true, 32, kDefaultBase, 1.0, -127));
  for (long g = 0; g < f.x.groups(); ++g) {
    for (int ch = 0; ch < 32; ++ch) {
      const auto at = static_cast<std::size_t>(g * 32 + ch);  // index 0
      f.y.values[at] = back.values[at];
    }
  }
  Variant doubled = f.expected;
  doubled.spec.set_theta(f.expected.spec.theta() * 2);
  const MemorySource source(f.x, f.y);
  ComparePass pass;
  pass.norms_as_previous = true;
  pass.counts_from = 4;
  const std::vector<DumpComparison> all =
      source.compare(0, f.positions, {f.expected, f.norms, f.expected, f.norms, f.expected, doubled}, pass);
  ASSERT_EQ(all.size(), 6u);
  for (const std::size_t k : {4u, 5u}) {
    const DumpComparison want = source.compare(0, f.positions, {k == 4 ? f.expected : doubled}).front();
    EXPECT_EQ(all[k].failing, want.failing) << "variant " << k;
    EXPECT_EQ(all[k].total, want.total) << "variant " << k;
    EXPECT_EQ(all[k].group_failing, want.group_failing) << "variant " << k;
  }
}

/// The variant compared for its counts alone beside an expectation whose screen does not apply (its heads crossed) is
/// compared by its own compare_position, from its exact rows: an element made to fail by the least position beyond its
/// tolerance (pair 15 alone, the one of the smallest frequency, so that one position's step moves its Δ by far less
/// than a rounding of cos and sin) is counted at every index it is put at, as its own comparison counts it.
TEST(CheckScreenVerdictPartner, BesideAnExpectationNotScreenedItCountsFromExactRows) {
  const DumpVectors x0 = as_f32_dump(test::random_dump(64, 2, 32, 23));
  Variant truth;
  truth.spec = test::expect_half(32, 32, kDefaultBase, 1.0);
  Variant crossed = truth, norms = truth;
  crossed.group_offset = 1;
  norms.group_offset = 1;
  norms.norms = true;
  for (long at = 5; at < 64; at += 4) {
    DumpVectors x = x0;
    for (long g = 0; g < 2; ++g) {
      for (int ch = 0; ch < 32; ++ch) {
        if (g != 0 || (ch != 15 && ch != 31)) x.values[static_cast<std::size_t>((at * 2 + g) * 32 + ch)] = 0;
      }
    }
    const DumpVectors y = as_f32_dump(test::rotate_dump(x, true, 32, kDefaultBase));
    const MemorySource source(x, y);
    std::vector<AxisPosition> positions;
    for (long s = 0; s < x.seq; ++s) positions.push_back(AxisPosition::single(static_cast<double>(s)));
    const auto failing_at = [&](double m) {
      positions[static_cast<std::size_t>(at)] = AxisPosition::single(m);
      return source.compare(0, positions, {truth}).front().failing;
    };
    double lo = static_cast<double>(at), hi = lo + 0.1;
    ASSERT_EQ(failing_at(lo), 0);
    ASSERT_GT(failing_at(hi), 0);
    while (std::nextafter(lo, hi) < hi) {
      const double mid = lo + (hi - lo) / 2;
      (failing_at(mid) > 0 ? hi : lo) = mid;
    }
    const long want = failing_at(hi);
    ASSERT_GT(want, 0);
    ComparePass pass;
    pass.norms_as_previous = true;
    pass.counts_from = 2;
    const std::vector<DumpComparison> all = source.compare(0, positions, {crossed, norms, truth}, pass);
    ASSERT_EQ(all.size(), 3u);
    EXPECT_EQ(all[2].failing, want) << "at index " << at << ", position " << hi;
  }
}

INSTANTIATE_TEST_SUITE_P(Dumps, CheckScreenFusedNorms,
                         ::testing::Values(FusedNormsCase{"half_passes", true, 0, 1, false},
                                           FusedNormsCase{"interleaved_passes", false, 0, 1, false},
                                           FusedNormsCase{"half_head_norm_off_by_4e_7", true, 0, 1 + 4e-7, false},
                                           FusedNormsCase{"interleaved_head_scaled", false, 0, 1.05, false},
                                           FusedNormsCase{"half_positions_shifted", true, 1, 1, false},
                                           FusedNormsCase{"interleaved_shifted_and_scaled", false, -1, 1.05, false},
                                           FusedNormsCase{"half_one_nan", true, 0, 1, true},
                                           FusedNormsCase{"half_shifted_one_nan", true, 1, 1, true},
                                           FusedNormsCase{"interleaved_scaled_one_nan", false, 0, 1.05, true}),
                         [](const ::testing::TestParamInfo<FusedNormsCase>& info) {
                           return std::string(info.param.name);
                         });

/// count_screen_norms (the count path of a failing vector) on one float64 vector of two pairs, pair 0 at angle 0 with
/// x = (3, 4), its first element's error Δ set per row (q = Δ²/25), pair 1 exact: an element within kScreenMargin of
/// its tolerance (q = 1, or 1 ± 10^−12) or not a number leaves the verdict to the exact loop (bit 1 clear); beyond it
/// the failures are counted.
struct CountScreenCase {
  const char* name;
  double delta;
  bool certain;
  int fails;
};

class CheckScreenCount : public ::testing::TestWithParam<CountScreenCase> {};

TEST_P(CheckScreenCount, AnElementAtItsToleranceGoesToTheExactLoop) {
  const CountScreenCase& c = GetParam();
  const double x[4] = {3, 1, 4, 0};  // pairs (x[0], x[2]) and (x[1], x[3])
  const double y[4] = {3 + c.delta, 1, 4, 0};
  const double cs[2] = {1, 1}, sn[2] = {0, 0}, kt2[2] = {1, 1}, w2[2] = {1, 1};
  double q[4] = {}, cq[4] = {}, sy[2] = {}, sx[2] = {};
  int fails = -1;
  const int bits = count_screen_norms(ScreenPairs{BlockElement::F64, false, 2, 1.0}, cs, sn, kt2,
                                      NormBounds{w2, 0.0, 1e300}, x, y, q, cq, sy, sx, &fails);
  EXPECT_EQ((bits & 1) != 0, c.certain);
  if (c.certain) {
    EXPECT_EQ(fails, c.fails);
  }
  EXPECT_EQ(q[1], 0.0);
  EXPECT_EQ(sx[0], 25.0);
  // Without (N1) (a diagnosis's variants): the same verdict, count and q.
  double q2[4] = {}, cq2[4] = {};
  int fails2 = -1;
  const bool certain =
      count_screen_vector(ScreenPairs{BlockElement::F64, false, 2, 1.0}, cs, sn, kt2, x, y, q2, cq2, &fails2);
  EXPECT_EQ(certain, c.certain);
  if (c.certain) {
    EXPECT_EQ(fails2, c.fails);
  }
  for (int k = 0; k < 4; ++k) EXPECT_TRUE(q2[k] == q[k] || (std::isnan(q2[k]) && std::isnan(q[k]))) << k;
}

INSTANTIATE_TEST_SUITE_P(Errors, CheckScreenCount,
                         ::testing::Values(CountScreenCase{"passes", 1.0, true, 0},
                                           CountScreenCase{"fails", 10.0, true, 1},
                                           CountScreenCase{"fails_by_1e_6", 5.0 * (1 + 1e-6), true, 1},
                                           CountScreenCase{"at_its_tolerance", 5.0, false, 0},
                                           CountScreenCase{"above_by_1e_12", 5.0 * (1 + 1e-12), false, 0},
                                           CountScreenCase{"below_by_1e_12", 5.0 * (1 - 1e-12), false, 0},
                                           CountScreenCase{"not_a_number", std::nan(""), false, 0}),
                         [](const ::testing::TestParamInfo<CountScreenCase>& info) {
                           return std::string(info.param.name);
                         });

/// screen_passes (the verdict alone, for a variant measured for its counts) on the vector of CheckScreenCount's table:
/// true only where every element's q lies below 1 − 2^−10, the screen's own bound; an element closer to its tolerance,
/// failing or not a number, and a pair of norm 0, leave the vector to the exact loop.
struct PassesCase {
  const char* name;
  double x0, delta;
  bool passes;
};

class CheckScreenPasses : public ::testing::TestWithParam<PassesCase> {};

TEST_P(CheckScreenPasses, TrueOnlyBelowTheScreensBound) {
  const PassesCase& c = GetParam();
  const double x[4] = {c.x0, 1, 4 * c.x0 / 3, 0};  // pair 0 (x0, 4·x0/3): norm 5·x0/3, tolerance 5·x0/3 (kt2 = 1)
  const double y[4] = {c.x0 + c.delta, 1, 4 * c.x0 / 3, 0};
  const double cs[2] = {1, 1}, sn[2] = {0, 0}, kt2[2] = {1, 1};
  EXPECT_EQ(screen_passes(ScreenPairs{BlockElement::F64, false, 2, 1.0}, cs, sn, kt2, x, y), c.passes);
  // Where it passes, the exact loop's verdict is a pass (q of screen_vector below 1), and the screen's too.
  if (c.passes) {
    double q[4] = {}, cq[4] = {};
    EXPECT_TRUE(screen_vector(ScreenPairs{BlockElement::F64, false, 2, 1.0}, cs, sn, kt2, x, y, q, cq));
  }
}

INSTANTIATE_TEST_SUITE_P(Errors, CheckScreenPasses,
                         ::testing::Values(PassesCase{"exact", 3, 0, true}, PassesCase{"a_fifth", 3, 1, true},
                                           PassesCase{"below_by_2e_3", 3, 5 * (1 - 2e-3), true},
                                           PassesCase{"within_2e_4_of_it", 3, 5 * (1 - 2e-4), false},
                                           PassesCase{"at_its_tolerance", 3, 5, false},
                                           PassesCase{"fails", 3, 10, false},
                                           PassesCase{"not_a_number", 3, std::nan(""), false},
                                           PassesCase{"norm_0", 0, 0, false}),
                         [](const ::testing::TestParamInfo<PassesCase>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace rope
