#include "rope/analysis/calculators/precision.hpp"

#include <cmath>
#include <limits>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/reference_data.hpp"
#include "rope/core/apply.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/core/tolerance.hpp"

namespace rope {
namespace {

const std::vector<DType> kTypes(std::begin(kAllDTypes), std::end(kAllDTypes));
const std::vector<Strategy> kStrategies(std::begin(kAllStrategies), std::end(kAllStrategies));

const CurveErrors& find(const std::vector<CurveErrors>& all, const std::string& name) {
  for (const auto& c : all) {
    if (c.spec.name() == name) return c;
  }
  throw std::runtime_error("no curve " + name);
}

TEST(Precision, StrategyNames) {
  for (Strategy s : kAllStrategies) EXPECT_EQ(parse_strategy(to_string(s)), s);
  EXPECT_THAT([] { parse_strategy("bf16"); },
              ::testing::ThrowsMessage<InvalidArgument>(::testing::HasSubstr("cast-inputs, angle-f32 or cast-result")));
}

TEST(Precision, CurvesDropTheOnesThatCoincide) {
  std::vector<std::string> names;
  for (const auto& c : precision_curves(kTypes, kStrategies)) names.push_back(c.name());
  EXPECT_THAT(names,
              ::testing::ElementsAre("f64", "f32 cast-inputs", "f32 cast-result", "f16 cast-inputs", "f16 angle-f32",
                                     "f16 cast-result", "bf16 cast-inputs", "bf16 angle-f32", "bf16 cast-result"));
  // Alone, float32's angle-f32 is kept (it is then the only float32 curve).
  const auto alone = precision_curves({DType::F32}, {Strategy::AngleF32});
  ASSERT_EQ(alone.size(), 1U);
  EXPECT_EQ(alone[0].column(), "f32_angle-f32");
}

TEST(Precision, CastInputsTurnsPosition257Into256InBfloat16) {
  const Eigen::VectorXd theta = frequencies(128, 1e4);
  const Eigen::VectorXd a = computed_angles({DType::BF16, Strategy::CastInputs}, theta, 257);
  EXPECT_EQ(a[0], 256);  // θ_0 = 1: the angle of pair 0 is the position itself, rounded
  EXPECT_EQ(computed_angles({DType::BF16, Strategy::AngleF32}, theta, 257)[0], 257);
  EXPECT_EQ(computed_angles({DType::BF16, Strategy::CastResult}, theta, 257)[0], 257);
  // f32: θ_1 = 0.8659643233600653 rounds to 0.86596429347991943359375 (float nearest), times 1000
  EXPECT_EQ(computed_angles({DType::F32, Strategy::CastInputs}, theta, 1000)[1],
            static_cast<double>(1000.0F * 0.8659643233600653F));
}

// computed_angles (the angle error's and the crossing's view of an angle) is what T's own
// arithmetic computes, and the rotation from those cos/sin is apply_rotary<T> bit for bit: one test per
// type that computed_angles emulates.
template <typename T>
struct PrecisionDTypeOf;
template <>
struct PrecisionDTypeOf<Eigen::half> {
  static constexpr DType value = DType::F16;
};
template <>
struct PrecisionDTypeOf<Eigen::bfloat16> {
  static constexpr DType value = DType::BF16;
};
template <>
struct PrecisionDTypeOf<float> {
  static constexpr DType value = DType::F32;
};

template <typename T>
class PrecisionArithmetic : public ::testing::Test {};

// No name generator (the empty last argument: clang's -Wpedantic wants one there): CTest names each test by its
// type (PrecisionArithmetic.AnglesAreTheTypesOwnArithmetic<float>, gtest_discover_tests), which it does only for
// GoogleTest's own numbering; GoogleTest names the type on failure.
using PrecisionScalarTypes = ::testing::Types<Eigen::half, Eigen::bfloat16, float>;
TYPED_TEST_SUITE(PrecisionArithmetic, PrecisionScalarTypes, );

TYPED_TEST(PrecisionArithmetic, AnglesAreTheTypesOwnArithmetic) {
  using T = TypeParam;
  const DType type = PrecisionDTypeOf<T>::value;
  const Eigen::VectorXd theta = frequencies(16, 1e4);
  const Vector<T> theta_t = theta.cast<T>();
  Vector<T> x(16);
  for (int i = 0; i < 16; ++i) x[i] = static_cast<T>(0.25 * i - 1.7);
  for (double m : {0.0, 1.0, 7.0, 255.0, 257.0, 1000.0, 3001.0, 40000.0}) {
    const Eigen::VectorXd a = computed_angles({type, Strategy::CastInputs}, theta, m);
    Vector<T> c(8), s(8);
    for (int i = 0; i < 8; ++i) {
      const T angle = static_cast<T>(m) * theta_t[i];
      ASSERT_EQ(a[i], static_cast<double>(static_cast<float>(angle))) << m << " " << i;
      using std::cos;
      using std::sin;
      c[i] = cos(angle);
      s[i] = sin(angle);
    }
    for (Layout layout : {Layout::Interleaved, Layout::Half}) {
      const Vector<T> by_apply = apply_rotary<T>(x, theta_t, static_cast<T>(m), layout);
      const Vector<T> by_cos_sin = apply_rotary_cos_sin<T>(x, c, s, layout);
      for (int i = 0; i < 16; ++i) {
        ASSERT_EQ(static_cast<float>(by_apply[i]), static_cast<float>(by_cos_sin[i])) << m << " " << i;
      }
    }
  }
}

TEST(Precision, Float64CurveIsAtRoundingLevel) {
  // (M13) with ε of float64: identity |Δ| <= 8ε(d + 2m + distance)·‖q‖‖k‖, ‖q‖‖k‖ ≈ d = 128 for
  // Gaussian vectors (RMS over samples, so use a 2× margin on the scale); vector error <= 8ε(d + m).
  PrecisionSettings s;
  Eigen::VectorXd m(5);
  m << 7, 1000, 32768, 1048576, 16777216;
  const auto e = precision_errors(s, {{DType::F64, Strategy::CastInputs}}, m)[0];
  const double eps = epsilon(DType::F64);
  for (Eigen::Index i = 0; i < m.size(); ++i) {
    EXPECT_LE(e.identity[i], relative_tolerance(eps, 128, 2 * m[i] + 5) * 2 * 128) << m[i];
    EXPECT_LE(e.vector[i], relative_tolerance(eps, 128, m[i])) << m[i];
    EXPECT_LE(e.angle[i], 2 * eps * m[i]) << m[i];
    EXPECT_GT(e.identity[i], 0) << m[i];
  }
  // One NumPy draw of tests/reference/precision.py: 3.6e-15, 1.8e-13, 3.0e-12, 1.7e-10; same magnitudes within 4×.
  const double known[] = {3.6e-15, 1.8e-13, 3.0e-12, 1.7e-10};
  for (int i = 0; i < 4; ++i) {
    EXPECT_GT(e.identity[i], known[i] / 4) << m[i];
    EXPECT_LT(e.identity[i], known[i] * 4) << m[i];
  }
}

TEST(Precision, Float32IdentityErrorReproducesKnownMagnitudes) {
  // NumPy draws of the same experiment, float32 with angles in float32 (one draw each): 1.9e-6 at m = 7, 1.2e-4 at
  // 1e3, 8.8e-4 at 32768, 7.5e-2 at m ≈ 1e6. Here the RMS over 16 draws. One draw |Δ| of a roughly
  // normal error with RMS σ lies within [σ/4, 4σ] four times in five, while every plausible slip moves
  // the value by more than that: angles in float64 leave ≈ 1.4e-6 at every m (the cast-result curve),
  // positions cast to bfloat16 give ≈ 1 from m ≈ 300 on.
  PrecisionSettings s;
  Eigen::VectorXd m(4);
  m << 7, 1000, 32768, 1048576;
  const auto all = precision_errors(s, precision_curves({DType::F32}, kStrategies), m);
  const auto& e = find(all, "f32 cast-inputs");
  const double known[] = {1.9e-6, 1.2e-4, 8.8e-4, 7.5e-2};
  for (int i = 0; i < 4; ++i) {
    EXPECT_GT(e.identity[i], known[i] / 4) << m[i];
    EXPECT_LT(e.identity[i], known[i] * 4) << m[i];
  }
  // The error grows with m: over five decades by more than 10^3.
  EXPECT_GT(e.identity[3] / e.identity[0], 1e3);
  // Everything in float64, result cast: flat, about ε_f32 relative, the angle at float64 level.
  const auto& r = find(all, "f32 cast-result");
  for (int i = 0; i < 4; ++i) {
    EXPECT_LT(r.vector[i], epsilon(DType::F32)) << m[i];
    EXPECT_GT(r.vector[i], epsilon(DType::F32) / 16) << m[i];
    EXPECT_LT(r.angle[i], 1e-9) << m[i];
  }
}

TEST(Precision, SixteenBitCurvesOrderAndOverflow) {
  PrecisionSettings s;
  Eigen::VectorXd m(3);
  m << 1000, 32768, 70000;
  const auto all = precision_errors(s, precision_curves({DType::F16, DType::BF16}, kStrategies), m);
  // Where the precision enters decides the angle error: cast-inputs ≫ angle-f32 ≫ cast-result.
  for (const char* t : {"f16", "bf16"}) {
    const std::string type(t);
    EXPECT_GT(find(all, type + " cast-inputs").angle[0], 100 * find(all, type + " angle-f32").angle[0]);
    EXPECT_GT(find(all, type + " angle-f32").angle[0], 1e6 * find(all, type + " cast-result").angle[0]);
    // cast-result: the rotated vector is only rounded to the type, ≈ ε relative at every position.
    for (int i = 0; i < 3; ++i) {
      EXPECT_LT(find(all, type + " cast-result").vector[i], epsilon(parse_dtype(type))) << type;
    }
  }
  // bf16 cast-inputs has lost the angle entirely at m = 1000: errors of order 1 rad.
  EXPECT_GT(find(all, "bf16 cast-inputs").angle[0], 0.5);
  // float16 cannot hold position 70000 (max 65504): infinite error, not a silent number.
  EXPECT_TRUE(std::isinf(find(all, "f16 cast-inputs").angle[2]));
  EXPECT_TRUE(std::isinf(find(all, "f16 cast-inputs").identity[2]));
  EXPECT_TRUE(std::isfinite(find(all, "f16 angle-f32").identity[2]));
}

TEST(Precision, SameSeedSameNumbers) {
  PrecisionSettings s;
  s.samples = 3;
  const Eigen::VectorXd m = integer_log_positions(1e5, 10);
  const auto curves = precision_curves(kTypes, kStrategies);
  const auto a = precision_errors(s, curves, m);
  const auto b = precision_errors(s, curves, m);
  s.seed += 1;
  const auto c = precision_errors(s, curves, m);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].identity, b[i].identity);
    EXPECT_EQ(a[i].vector, b[i].vector);
    EXPECT_NE(a[i].identity, c[i].identity);
    EXPECT_EQ(a[i].angle, c[i].angle);  // the angle does not depend on the draw
  }
}

/// Brute force, written independently: the angle as T's own arithmetic computes it against
/// m·base^(−2i/d) in long double, every integer from 0.
template <typename T>
double first_crossing_brute(double threshold, double limit) {
  const int d = 128;
  std::vector<long double> exact_theta;
  std::vector<T> theta;
  for (int i = 0; i < d / 2; ++i) {
    exact_theta.push_back(std::pow(10000.0L, -2.0L * i / d));
    theta.push_back(static_cast<T>(std::pow(10000.0, -2.0 * i / d)));
  }
  for (double m = 0; m <= limit; ++m) {
    for (int i = 0; i < d / 2; ++i) {
      const long double exact = static_cast<long double>(m) * exact_theta[i];
      const T angle = static_cast<T>(m) * theta[i];
      long double err = std::fabs(static_cast<long double>(static_cast<float>(angle)) - exact);
      if (err > 3.14159L) err = std::fabs(std::remainder(err, 2 * 3.14159265358979323846L));
      if (err > threshold) return m;
    }
  }
  return -1;
}

TEST(Precision, CrossingsMatchBruteForce) {
  PrecisionSettings s;
  const auto at = [&](DType t, Strategy st, double thr) {
    const auto c = angle_crossing(s, {t, st}, thr, 1048576);
    return c ? *c : -1.0;
  };
  EXPECT_EQ(at(DType::BF16, Strategy::CastInputs, 1e-2), first_crossing_brute<Eigen::bfloat16>(1e-2, 1000));
  EXPECT_EQ(at(DType::F16, Strategy::CastInputs, 1e-2), first_crossing_brute<Eigen::half>(1e-2, 1000));
  EXPECT_EQ(at(DType::BF16, Strategy::CastInputs, 0.5), first_crossing_brute<Eigen::bfloat16>(0.5, 1000));
  const double f32 = at(DType::F32, Strategy::CastInputs, 1e-2);
  EXPECT_EQ(f32, first_crossing_brute<float>(1e-2, 1048576));
  // angle-f32 computes the angle exactly as float32 does, whatever the type it casts cos/sin to.
  EXPECT_EQ(at(DType::BF16, Strategy::AngleF32, 1e-2), f32);
  // float32's angle error passes 1e-2 rad where half its spacing does: beyond 2^17 (spacing 2^-6)
  // and by 2^18 (spacing 2^-5, half of it 0.0156 > 1e-2).
  EXPECT_GT(f32, 131072);
  EXPECT_LE(f32, 262144);
  // Angles in float64 never reach 1e-2 rad below 2^24 (their error is below 1e-8): none.
  EXPECT_FALSE(angle_crossing(s, {DType::BF16, Strategy::CastResult}, 1e-2, 16777216));
  EXPECT_FALSE(angle_crossing(s, {DType::F64, Strategy::CastInputs}, 1e-2, 16777216));
  EXPECT_EQ(at(DType::F64, Strategy::CastInputs, 1e-12), [] {
    const Eigen::VectorXd theta = frequencies(128, 1e4);
    for (double m = 0;; ++m) {
      for (int i = 0; i < 64; ++i) {
        const long double exact = static_cast<long double>(m) * std::pow(10000.0L, -2.0L * i / 128);
        if (std::fabs(static_cast<long double>(m * theta[i]) - exact) > 1e-12L) return m;
      }
    }
  }());
}

TEST(Precision, RejectsBadSettings) {
  PrecisionSettings s;
  s.samples = 0;
  EXPECT_THROW(precision_errors(s, precision_curves(kTypes, kStrategies), Eigen::VectorXd::Ones(1)), InvalidArgument);
  s = PrecisionSettings{};
  EXPECT_THROW(precision_errors(s, precision_curves(kTypes, kStrategies), Eigen::VectorXd::Constant(1, 2e7)),
               InvalidArgument);
  EXPECT_THROW(angle_crossing(s, {DType::F32, Strategy::CastInputs}, 0, 100), InvalidArgument);
  s.distance = 2.5;
  EXPECT_THROW(check_precision_settings(s), InvalidArgument);
}

TEST(Precision, IntegerLogPositions) {
  const Eigen::VectorXd m = integer_log_positions(1000, 4);
  ASSERT_EQ(m.size(), 4);
  EXPECT_EQ(m[0], 1);
  EXPECT_EQ(m[1], 10);
  EXPECT_EQ(m[2], 100);
  EXPECT_EQ(m[3], 1000);
  const Eigen::VectorXd dense = integer_log_positions(10, 50);  // duplicates removed
  EXPECT_EQ(dense.size(), 10);
}

}  // namespace
}  // namespace rope

// Against tests/reference/precision.py: NumPy's float32/float16 arithmetic, bfloat16 emulated by bit
// truncation with round-to-nearest-even, long double references, the same draws (4 pairs, seed 2104).
namespace rope {
namespace {

TEST(Precision, MatchesNumpyReference) {
  const test::ReferenceCsv ref = test::read_reference("precision_d128_base10000.csv");
  PrecisionSettings s;
  s.samples = 4;
  const std::vector<double> positions_list{1, 7, 100, 257, 1000, 4097, 32768, 65536, 70000, 1048576};
  const Eigen::VectorXd positions = Eigen::Map<const Eigen::VectorXd>(positions_list.data(), 10);
  const auto curves = precision_errors(s, precision_curves(kTypes, kStrategies), positions);
  ASSERT_EQ(ref.rows.size(), curves.size() * positions_list.size());
  std::size_t row = 0;
  for (const auto& c : curves) {
    const double eps = epsilon(c.spec.type);
    for (Eigen::Index p = 0; p < positions.size(); ++p, ++row) {
      const auto& r = ref.rows[row];
      ASSERT_EQ(r[0], c.spec.name());
      ASSERT_EQ(std::stod(r[1]), positions[p]);
      const double angle = std::stod(r[2]), vector = std::stod(r[3]), identity = std::stod(r[4]);
      const std::string where = c.spec.name() + " at m = " + r[1];
      if (std::isinf(angle)) {
        EXPECT_TRUE(std::isinf(c.angle[p]) && std::isinf(c.vector[p]) && std::isinf(c.identity[p])) << where;
        continue;
      }
      // The angles are the same IEEE products on both sides; only the long double reference may
      // differ in its last bits (2^-64 relative of m·θ).
      EXPECT_NEAR(c.angle[p], angle, 1e-9 * angle + 1e-18 * positions[p]) << where;
      if (c.spec.type == DType::F16 || c.spec.type == DType::BF16) {
        // Every rotated element is the same IEEE operations on both sides, but the error measure itself
        // (a norm of differences, in float64) is summed in another order, and with fused multiply-adds
        // on CPUs whose fast kernels use them (measured on an AVX-512 machine: up to 1.4e-15 relative):
        // allow 64 units in the last place of float64. A score is summed in float32 in another order,
        // then rounded to the type: allow one unit in the last place of a score of size up to 64.
        EXPECT_NEAR(c.vector[p], vector, 64 * std::numeric_limits<double>::epsilon() * vector) << where;
        EXPECT_NEAR(c.identity[p], identity, eps * 64) << where;
      } else {
        // float64 and float32 cos/sin may differ by one unit in the last place between NumPy and the C
        // library, and the sums run in another order: 4ε of the type for the vector (relative to ‖q‖),
        // 8ε·d for a score (at most d products of size ‖q‖‖k‖/d each). Measured: float32's identity
        // error at m = 1048576 (0.042) agrees to 3e-4 relative.
        EXPECT_NEAR(c.vector[p], vector, 4 * eps) << where;
        EXPECT_NEAR(c.identity[p], identity, 8 * eps * 128) << where;
      }
    }
  }
}

}  // namespace
}  // namespace rope
