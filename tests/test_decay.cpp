#include "rope/decay.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "reference_data.hpp"
#include "rope/error.hpp"
#include "rope/frequencies.hpp"

namespace rope {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

TEST(Decay, AtDistanceZeroIsHalfOfPairsPlusOne) {
  // f(0) = (1/(d/2)) Σ_{j} (j + 1) = (d/2 + 1)/2, exactly (known-values.md §3): every term is an
  // integer, so the sum is exact.
  EXPECT_EQ(decay_bound(frequencies(64, 1e4), 0.0), 16.5);
  EXPECT_EQ(decay_bound(frequencies(128, 1e4), 0.0), 32.5);
  EXPECT_EQ(decay_bound(frequencies(256, 5e5), 0.0), 64.5);
}

TEST(Decay, MatchesPublishedTable) {
  // known-values.md §3, d = 128, base 1e4, quoted to 3 decimals (hence 5e-4).
  const Eigen::VectorXd theta = frequencies(128, 1e4);
  const std::pair<double, double> table[] = {{1, 31.538},  {2, 28.956},  {5, 20.845},  {10, 17.954},
                                             {20, 15.242}, {50, 12.629}, {100, 10.227}, {150, 7.588},
                                             {200, 7.245}, {250, 6.548}, {256, 6.543}};
  for (const auto& [m, f] : table) EXPECT_NEAR(decay_bound(theta, m), f, 5e-4) << "m=" << m;
}

TEST(Decay, LinspaceReproducesNumpyBitForBit) {
  // np.linspace(0, 256, 1000), as written by tests/reference/decay.py.
  const auto ref = test::read_reference("decay_d128_base10000.csv");
  EXPECT_EQ(linspace(256, 1000), ref.column(0));
  const auto ref64 = test::read_reference("decay_d64_base500000.csv");
  EXPECT_EQ(linspace(4096, 200), ref64.column(0));
}

TEST(Decay, MatchesNumpyReferenceToOneInATrillion) {
  // tests/reference/decay.py sums the inner series directly (O(d²), NumPy complex exp); we use a
  // running prefix sum (O(d)). Same terms, different association: rounding-level differences only.
  struct Case {
    const char* file;
    int d;
    std::vector<double> bases;
  };
  for (const Case& c : {Case{"decay_d128_base10000.csv", 128, {1e4}}, Case{"decay_d64_base500000.csv", 64, {5e5}},
                        Case{"decay_d128_two_bases.csv", 128, {1e4, 1e6}}}) {
    const auto ref = test::read_reference(c.file);
    const Eigen::VectorXd distances = ref.column(0);
    for (std::size_t b = 0; b < c.bases.size(); ++b) {
      const Eigen::VectorXd expected = ref.column(b + 1);
      const Eigen::VectorXd got = decay_bound(frequencies(c.d, c.bases[b]), distances);
      for (Eigen::Index k = 0; k < got.size(); ++k) {
        EXPECT_NEAR(got[k], expected[k], 1e-12 * expected[k]) << c.file << " m=" << distances[k];
      }
    }
  }
}

TEST(Decay, LinspaceEdgeCases) {
  EXPECT_EQ(linspace(5, 1), Eigen::VectorXd::Zero(1));
  EXPECT_EQ(linspace(0, 3), Eigen::VectorXd::Zero(3));
  Eigen::VectorXd expected(3);
  expected << 0, 0.5, 1;
  EXPECT_EQ(linspace(1, 3), expected);
}

TEST(Decay, LinspaceRejectsBadInput) {
  EXPECT_THAT([] { linspace(10, 0); }, ThrowsMessage<InvalidArgument>(HasSubstr("points must be >= 1 (got 0)")));
  EXPECT_THAT([] { linspace(-1, 10); }, ThrowsMessage<InvalidArgument>(HasSubstr("must be a finite number >= 0 (got -1)")));
  EXPECT_THROW(linspace(std::nan(""), 10), InvalidArgument);
}

}  // namespace
}  // namespace rope
