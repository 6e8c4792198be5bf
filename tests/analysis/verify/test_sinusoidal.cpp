#include "rope/analysis/verify/sinusoidal.hpp"

#include <gtest/gtest.h>

#include "support/matrix_near.hpp"
#include "support/reference_data.hpp"
#include "rope/core/error.hpp"

namespace rope {
namespace {

TEST(Sinusoidal, AtPositionZeroAlternatesZeroAndOne) {
  Eigen::VectorXd expected(4);
  expected << 0, 1, 0, 1;  // sin 0, cos 0, …
  EXPECT_EQ(sinusoidal_encoding(4, 0.0), expected);
}

TEST(Sinusoidal, MatchesNumpyReference) {
  // tests/reference/sinusoidal.py (Vaswani et al. 2017 §3.5); values in [−1, 1], angles up to 100 rad:
  // angle rounding 100·ε plus NumPy's sin/cos ulps, 1e-13 covers it.
  const auto ref = test::read_reference("sinusoidal_d8.csv");
  ASSERT_EQ(ref.rows.size(), 4u);
  for (const auto& row : ref.rows) {
    const double position = std::stod(row[0]);
    EXPECT_TRUE(test::MatrixNear(sinusoidal_encoding(8, position), test::parse_vector(row[1]), 1e-13)) << position;
  }
}

TEST(Sinusoidal, RejectsBadInput) {
  EXPECT_THROW(sinusoidal_encoding(5, 1.0), InvalidArgument);
  EXPECT_THROW(sinusoidal_encoding(8, std::nan("")), InvalidArgument);
}

}  // namespace
}  // namespace rope
