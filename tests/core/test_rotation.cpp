#include "rope/core/rotation.hpp"

#include <Eigen/Dense>
#include <cmath>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/matrix_near.hpp"
#include "support/reference_data.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/core/tolerance.hpp"

namespace rope {
namespace {

// Awkward inputs: dimensions, bases and positions (negative, fractional, large) every
// property is checked on.
const int kDims[] = {2, 4, 64, 128};
const double kBases[] = {1e4, 5e5};
const double kRotationPositions[] = {0, 1, 2, 7, -3, 0.5, 4095, 4096, 131071};
const Layout kRotationLayouts[] = {Layout::Interleaved, Layout::Half};

/// (M13) for matrix entries (S = 1).
double tol(int d, double position_budget) { return relative_tolerance(machine_epsilon<double>(), d, position_budget); }

TEST(Rotation, TwoByTwoIsCounterClockwise) {
  const Eigen::Matrix2d r = rotation_2d(M_PI / 2);
  // R(π/2) e_x = e_y: cos(π/2) is 6.1e-17, not 0, hence the 1e-16.
  EXPECT_TRUE(test::MatrixNear(r * Eigen::Vector2d(1, 0), Eigen::Vector2d(0, 1), 1e-16));
  EXPECT_EQ(rotation_2d(0.0), Eigen::Matrix2d::Identity());
}

TEST(Rotation, AtPositionZeroIsExactlyTheIdentity) {
  for (int d : kDims) {
    for (Layout layout : kRotationLayouts)
      EXPECT_EQ(rotation_matrix(d, 0.0, 1e4, layout), Eigen::MatrixXd::Identity(d, d));
  }
}

TEST(Rotation, IsOrthogonalWithDeterminantOne) {
  for (int d : kDims) {
    for (double base : kBases) {
      for (double m : kRotationPositions) {
        for (Layout layout : kRotationLayouts) {
          const Eigen::MatrixXd r = rotation_matrix(d, m, base, layout);
          EXPECT_TRUE(test::MatrixNear(r.transpose() * r, Eigen::MatrixXd::Identity(d, d), tol(d, 0)))
              << "d=" << d << " m=" << m;
          EXPECT_NEAR(r.determinant(), 1.0, tol(d, 0)) << "d=" << d << " m=" << m;
        }
      }
    }
  }
}

TEST(Rotation, RelativePositionDependsOnlyOnDifference) {
  // (M7) R_mᵀ R_n = R_{n−m}: the angles mθ, nθ and (n−m)θ are rounded separately, ε·|m| each.
  for (int d : kDims) {
    for (double base : kBases) {
      for (double m : kRotationPositions) {
        for (double n : kRotationPositions) {
          const double budget = 2 * (std::abs(m) + std::abs(n));
          EXPECT_TRUE(test::MatrixNear(rotation_matrix(d, m, base).transpose() * rotation_matrix(d, n, base),
                                       rotation_matrix(d, n - m, base), tol(d, budget)))
              << "d=" << d << " base=" << base << " m=" << m << " n=" << n;
        }
      }
    }
  }
}

TEST(Rotation, ComposesByAddingPositions) {
  for (int d : kDims) {
    for (double a : kRotationPositions) {
      for (double b : kRotationPositions) {
        for (Layout layout : kRotationLayouts) {
          EXPECT_TRUE(test::MatrixNear(rotation_matrix(d, a, 1e4, layout) * rotation_matrix(d, b, 1e4, layout),
                                       rotation_matrix(d, a + b, 1e4, layout), tol(d, 2 * (std::abs(a) + std::abs(b)))))
              << "d=" << d << " a=" << a << " b=" << b;
        }
      }
    }
  }
}

TEST(Rotation, RepeatedUnitStepsDriftOnlyAtRoundingLevel) {
  // Composing R_1 a thousand times accumulates about one rounding per product and entry.
  const int d = 64;
  const int steps = 1000;
  const Eigen::MatrixXd r1 = rotation_matrix(d, 1.0);
  Eigen::MatrixXd r = Eigen::MatrixXd::Identity(d, d);
  for (int s = 0; s < steps; ++s) r = r * r1;
  EXPECT_TRUE(test::MatrixNear(r, rotation_matrix(d, steps), tol(d, steps)));
}

TEST(Rotation, DimensionTwoIsThePlainRotation) {
  for (double m : kRotationPositions) EXPECT_EQ(rotation_matrix(2, m, 1e4), Eigen::MatrixXd(rotation_2d(m)));
}

TEST(Rotation, LayoutsAreConjugateByThePermutationExactly) {
  // (M6): a pure permutation of entries, so the difference is exactly zero.
  for (int d : kDims) {
    const auto P = layout_permutation(d);
    for (double m : kRotationPositions) {
      const Eigen::MatrixXd interleaved = rotation_matrix(d, m, 1e4, Layout::Interleaved);
      const Eigen::MatrixXd half = rotation_matrix(d, m, 1e4, Layout::Half);
      EXPECT_EQ(half, Eigen::MatrixXd(P * interleaved * P.transpose())) << "d=" << d << " m=" << m;
    }
  }
}

TEST(Rotation, PermutationSendsEvenChannelsToTheFirstHalf) {
  // (M6): (P x)_i = x_{2i}, (P x)_{i+d/2} = x_{2i+1}. For d = 6, x = (0, 1, 2, 3, 4, 5) ↦ (0, 2, 4, 1, 3, 5).
  Eigen::VectorXd x(6);
  x << 0, 1, 2, 3, 4, 5;
  Eigen::VectorXd expected(6);
  expected << 0, 2, 4, 1, 3, 5;
  EXPECT_EQ(Eigen::VectorXd(layout_permutation(6) * x), expected);
}

// tests/reference/rotation.py builds each entry from the definition; the entries are cos and sin of
// the same double angle, so they agree to an ulp or two of 1 (NumPy's cos/sin are not always
// correctly rounded): 4.5e-16. One case per reference file.
struct RotationReferenceCase {
  const char* name;
  const char* file;
  int d;
  double m;
  Layout layout;
};

class RotationNumpyReference : public ::testing::TestWithParam<RotationReferenceCase> {};

TEST_P(RotationNumpyReference, MatchesTheMatrix) {
  const RotationReferenceCase& c = GetParam();
  EXPECT_TRUE(
      test::MatrixNear(rotation_matrix(c.d, c.m, 1e4, c.layout), test::read_reference(c.file, false).matrix(), 4.5e-16))
      << c.file;
}

INSTANTIATE_TEST_SUITE_P(
    Files, RotationNumpyReference,
    ::testing::Values(RotationReferenceCase{"d8_m3_interleaved", "rotation_d8_m3_interleaved.csv", 8, 3.0,
                                            Layout::Interleaved},
                      RotationReferenceCase{"d8_m3_half", "rotation_d8_m3_half.csv", 8, 3.0, Layout::Half},
                      RotationReferenceCase{"d6_m_minus2_5_interleaved", "rotation_d6_m-2.5_interleaved.csv", 6, -2.5,
                                            Layout::Interleaved}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(Rotation, FloatInstantiationAgreesWithinFloatTolerance) {
  const Eigen::VectorXf theta = frequencies(64, 1e4).cast<float>();
  const Eigen::MatrixXf r = rotation_matrix<float>(theta, 100.0f, Layout::Interleaved);
  EXPECT_TRUE(test::MatrixNear(r, rotation_matrix(64, 100.0), relative_tolerance(machine_epsilon<float>(), 64, 100)));
}

TEST(Rotation, RejectsNonFinitePosition) {
  EXPECT_THAT([] { rotation_matrix(4, std::nan("")); },
              ::testing::ThrowsMessage<InvalidArgument>(::testing::HasSubstr("position must be a finite number")));
  EXPECT_THROW(layout_permutation(3), InvalidArgument);
}

}  // namespace
}  // namespace rope
