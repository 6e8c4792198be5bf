#include "rope/core/apply.hpp"

#include <cmath>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/matrix_near.hpp"
#include "support/reference_data.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/core/random.hpp"
#include "rope/core/rotation.hpp"
#include "rope/core/tolerance.hpp"

namespace rope {
namespace {

const double kPositions[] = {0, 1, 2, 7, -3, 0.5, 4095, 4096, 131071};
const Layout kLayouts[] = {Layout::Interleaved, Layout::Half};

Eigen::VectorXd random_vector(int d, std::uint64_t seed) {
  Random rng(seed);
  Eigen::VectorXd x(d);
  for (int i = 0; i < d; ++i) x[i] = rng.normal();
  return x;
}

TEST(Apply, RotatePairsForBothLayouts) {
  Eigen::VectorXd x(4);
  x << 1, 2, 3, 4;
  Eigen::VectorXd interleaved(4), half(4);
  interleaved << -2, 1, -4, 3;  // [−x1, x0, −x3, x2]
  half << -3, -4, 1, 2;         // rotate_half: [−x2, −x3, x0, x1]
  EXPECT_EQ(rotate_pairs(x, Layout::Interleaved), interleaved);
  EXPECT_EQ(rotate_pairs(x, Layout::Half), half);
}

TEST(Apply, ElementwiseAndComplexFormsEqualTheMatrix) {
  // (M9), (M10) vs (M5): same angles, different arithmetic; (M13) with S = ‖x‖.
  for (int d : {2, 4, 64, 128}) {
    const Eigen::VectorXd x = random_vector(d, 7);
    const Eigen::VectorXd theta = frequencies(d, 1e4);
    for (double m : kPositions) {
      for (Layout layout : kLayouts) {
        const Eigen::VectorXd expected = rotation_matrix<double>(theta, m, layout) * x;
        const double tol = relative_tolerance(machine_epsilon<double>(), d, std::abs(m)) * x.norm();
        EXPECT_TRUE(test::MatrixNear(apply_rotary(x, theta, m, layout), expected, tol)) << "d=" << d << " m=" << m;
        EXPECT_TRUE(test::MatrixNear(apply_rotary_complex(x, theta, m, layout), expected, tol))
            << "d=" << d << " m=" << m;
      }
    }
  }
}

TEST(Apply, PreservesTheNorm) {
  const Eigen::VectorXd x = random_vector(128, 11);
  const Eigen::VectorXd theta = frequencies(128, 5e5);
  for (double m : kPositions) {
    EXPECT_NEAR(apply_rotary(x, theta, m, Layout::Half).norm(), x.norm(),
                relative_tolerance(machine_epsilon<double>(), 128, std::abs(m)) * x.norm());
  }
}

TEST(Apply, HalfLayoutOfPermutedVectorIsPermutedInterleavedExactly) {
  // A permutation commutes exactly: RoPE_half(P x) = P · RoPE_interleaved(x), zero difference (M6).
  for (int d : {2, 8, 128}) {
    const auto P = layout_permutation(d);
    const Eigen::VectorXd x = random_vector(d, 3);
    const Eigen::VectorXd theta = frequencies(d, 1e4);
    for (double m : kPositions) {
      EXPECT_EQ(apply_rotary(Eigen::VectorXd(P * x), theta, m, Layout::Half),
                Eigen::VectorXd(P * apply_rotary(x, theta, m, Layout::Interleaved)));
    }
  }
}

TEST(Apply, MatchesNumpyReference) {
  // tests/reference/apply.py: dense matrix from the definition times x, in NumPy. Entries of size
  // up to 3 and NumPy's own cos/sin (not always correctly rounded), so allow a few ulp of the largest
  // entry: 4·ε·‖x‖_∞ plus the angle rounding at m = 4095, (M13) with κ = 8.
  const auto ref = test::read_reference("apply_cases.csv");
  ASSERT_EQ(ref.header, (std::vector<std::string>{"layout", "dim", "base", "position", "input", "output"}));
  ASSERT_EQ(ref.rows.size(), 10u);
  for (const auto& row : ref.rows) {
    const Layout layout = parse_layout(row[0]);
    const int d = std::stoi(row[1]);
    const double base = std::stod(row[2]);
    const double m = std::stod(row[3]);
    const Eigen::VectorXd x = test::parse_vector(row[4]);
    const Eigen::VectorXd expected = test::parse_vector(row[5]);
    const double tol = relative_tolerance(machine_epsilon<double>(), d, std::abs(m)) * x.norm();
    const Eigen::VectorXd theta = frequencies(d, base);
    EXPECT_TRUE(test::MatrixNear(apply_rotary(x, theta, m, layout), expected, tol))
        << row[0] << " d=" << d << " m=" << m;
    EXPECT_TRUE(test::MatrixNear(apply_rotary_complex(x, theta, m, layout), expected, tol))
        << row[0] << " d=" << d << " m=" << m;
  }
}

TEST(Apply, HandWorkedExample) {
  // d = 4, m = 1, x = (1, 0, 0, 1), interleaved: pair 0 rotates (1, 0) by 1 rad → (cos 1, sin 1);
  // pair 1 rotates (0, 1) by 0.01 rad → (−sin 0.01, cos 0.01).
  Eigen::VectorXd x(4);
  x << 1, 0, 0, 1;
  Eigen::VectorXd expected(4);
  expected << std::cos(1.0), std::sin(1.0), -std::sin(0.01), std::cos(0.01);
  EXPECT_TRUE(test::MatrixNear(apply_rotary(x, frequencies(4, 1e4), 1.0, Layout::Interleaved), expected, 2.3e-16));
}

TEST(Apply, RejectsLengthMismatch) {
  EXPECT_THAT([] { apply_rotary(Eigen::VectorXd(Eigen::VectorXd::Ones(6)), frequencies(4, 1e4), 1.0, Layout::Half); },
              ::testing::ThrowsMessage<InvalidArgument>(::testing::HasSubstr("vector length must equal d")));
}

}  // namespace
}  // namespace rope
