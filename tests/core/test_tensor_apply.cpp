#include "rope/core/tensor_apply.hpp"

#include <cmath>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <vector>

#include "rope/core/apply.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/core/random_lanes.hpp"
#include "rope/core/tolerance.hpp"

namespace rope {
namespace {

TEST(CosSinTable, RecurrenceMatchesDirectInDouble) {
  // Both round the angle (p·θ_i directly, or aK·θ_i and b·θ_i), each to ulp(p·θ_i)/2 <= ε·p, and
  // the product adds a few ε: (M13)'s ε·(d + M) per entry with d = 2 terms, M = p.
  for (double base : {1e4, 5e5}) {
    const Eigen::VectorXd theta = frequencies(128, base);
    const long positions = 5000;
    const auto fast = cos_sin_table<double>(theta, positions);
    const auto direct = cos_sin_table_direct<double>(theta, positions);
    ASSERT_EQ(fast.positions, positions);
    ASSERT_EQ(fast.half, 64);
    double worst = 0;
    for (long p = 0; p < positions; ++p) {
      const double tol = relative_tolerance(machine_epsilon<double>(), 2, static_cast<double>(p));
      for (int i = 0; i < 64; ++i) {
        const long at = p * 64 + i;
        EXPECT_NEAR(fast.cos[at], direct.cos[at], tol) << "p=" << p << " i=" << i;
        EXPECT_NEAR(fast.sin[at], direct.sin[at], tol) << "p=" << p << " i=" << i;
        worst = std::max({worst, std::abs(fast.cos[at] - direct.cos[at]), std::abs(fast.sin[at] - direct.sin[at])});
      }
    }
    EXPECT_LT(worst, 1e-12);
    // Rows 0 … K−1 are B itself and row 0 is exactly (1, 0).
    EXPECT_EQ(fast.cos[0], 1.0);
    EXPECT_EQ(fast.sin[0], 0.0);
  }
}

TEST(CosSinTable, FloatTableIsTheDoubleOneRounded) {
  const Eigen::VectorXd theta = frequencies(64, 1e4);
  const auto f = cos_sin_table<float>(theta, 3000);
  const auto d = cos_sin_table_direct<double>(theta, 3000);
  for (std::size_t at = 0; at < f.cos.size(); ++at) {
    EXPECT_NEAR(f.cos[at], d.cos[at], 6e-8 + 1e-12);  // half a float ulp of numbers <= 1
    EXPECT_NEAR(f.sin[at], d.sin[at], 6e-8 + 1e-12);
  }
}

TEST(CosSinTable, RejectsBadRequests) {
  EXPECT_THROW(cos_sin_table<float>(frequencies(8, 1e4), 0), InvalidArgument);
  EXPECT_THROW(cos_sin_table<float>(Eigen::VectorXd(0), 10), InvalidArgument);
}

std::vector<float> random_tensor(long n, std::uint64_t seed) {
  std::vector<double> v(n);
  RandomLanes(seed).fill_normal(v.data(), n);
  return std::vector<float>(v.begin(), v.end());
}

/// Every head vector of y against apply_rotary in double of the same float input at its position;
/// (M13) in float with S = ‖x‖.
void expect_rope_of(const std::vector<float>& x, const std::vector<float>& y, const TensorShape& s,
                    const Eigen::VectorXd& theta, Layout layout, const std::string& what) {
  for (long p = 0; p < s.seq; ++p) {
    for (long h = 0; h < s.heads; ++h) {
      const long base = (p * s.heads + h) * s.d;
      Eigen::VectorXd v(s.d);
      for (int c = 0; c < s.d; ++c) v[c] = x[base + c];
      const Eigen::VectorXd expected = apply_rotary(v, theta, static_cast<double>(p), layout);
      const double tol = relative_tolerance(machine_epsilon<float>(), s.d, static_cast<double>(p)) * v.norm();
      double err = 0;
      for (int c = 0; c < s.d; ++c) err = std::max(err, std::abs(y[base + c] - expected[c]));
      ASSERT_LE(err, tol) << what << " p=" << p << " h=" << h;
    }
  }
}

TEST(TensorApply, MatchesApplyRotaryVectorByVectorInBothLayouts) {
  for (const TensorShape shape : {TensorShape{70, 3, 16}, TensorShape{33, 2, 128}, TensorShape{5, 1, 2}}) {
    const Eigen::VectorXd theta = frequencies(shape.d, 1e4);
    const auto table = cos_sin_table<float>(theta, shape.seq + 7);
    const std::vector<float> x = random_tensor(shape.size(), 4);
    for (Layout layout : {Layout::Interleaved, Layout::Half}) {
      std::vector<float> y(shape.size(), -99.0f);
      apply_rotary_tensor(x.data(), y.data(), shape, table, layout);
      expect_rope_of(x, y, shape, theta, layout, "out of place");
      std::vector<float> z = x;
      apply_rotary_tensor_inplace(z.data(), shape, table, layout);
      EXPECT_EQ(z, y) << "in place and out of place give the same floats";
    }
  }
}

TEST(TensorApply, LadderFormsAllGiveTheRotation) {
  const TensorShape shape{40, 3, 64};
  const Eigen::VectorXd theta = frequencies(shape.d, 1e4);
  const auto table = cos_sin_table<float>(theta, shape.seq);
  const std::vector<float> x = random_tensor(shape.size(), 5);
  for (LadderForm form : {LadderForm::Dense, LadderForm::Block2x2, LadderForm::Elementwise, LadderForm::Complex}) {
    std::vector<float> y(shape.size(), -99.0f);
    apply_ladder(form, x.data(), y.data(), shape, table);
    expect_rope_of(x, y, shape, theta, Layout::Interleaved, to_string(form));
  }
}

TEST(TensorApply, RejectsATableThatDoesNotCoverTheTensor) {
  const auto table = cos_sin_table<float>(frequencies(16, 1e4), 10);
  std::vector<float> x(11 * 2 * 16);
  EXPECT_THROW(apply_rotary_tensor_inplace(x.data(), TensorShape{11, 2, 16}, table, Layout::Half), InvalidArgument);
  EXPECT_THROW(apply_rotary_tensor_inplace(x.data(), TensorShape{10, 2, 32}, table, Layout::Half), InvalidArgument);
  EXPECT_THROW(apply_rotary_tensor_inplace(x.data(), TensorShape{10, 2, 15}, table, Layout::Half), InvalidArgument);
}

}  // namespace
}  // namespace rope
