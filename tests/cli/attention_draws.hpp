/// @file
/// The random queries and keys of rope attention and rope encodings drawn again here, and their scores
/// computed independently (support/attention_reference.hpp). Used by test_cmd_attention.cpp,
/// test_cmd_attention_model.cpp and test_cmd_encodings.cpp.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <gtest/gtest.h>
#include <string>

#include "rope/analysis/teaching/attention.hpp"
#include "rope/core/random.hpp"
#include "support/attention_reference.hpp"
#include "support/reference_data.hpp"

namespace rope::test::attention_draws {

// The independent computation: q_i, k_j from rope::Random in the documented order (q rows, then k rows),
// RoPE as complex numbers, sinusoidal channel by channel, ALiBi as a subtraction, softmax in long double.

struct Draws {
  Eigen::MatrixXd q, k;
};

inline Draws draws(int n, int d, std::uint64_t seed) {
  Random rng(seed);
  Draws r{Eigen::MatrixXd(n, d), Eigen::MatrixXd(n, d)};
  for (Eigen::MatrixXd* m : {&r.q, &r.k}) {
    for (int i = 0; i < n; ++i) {
      for (int c = 0; c < d; ++c) (*m)(i, c) = rng.normal();
    }
  }
  return r;
}

/// s_ij for positions first + i. `encoding`: "rope", "sinusoidal", "alibi", "none".
inline Eigen::MatrixXd scores(const Draws& x, const std::string& encoding, double first = 0, double slope = 0.5,
                              double base = 10000) {
  const Eigen::Index n = x.q.rows();
  const Eigen::VectorXd p = Eigen::VectorXd::LinSpaced(n, first, first + static_cast<double>(n - 1));
  return test::independent_scores(x.q, x.k, p, parse_encoding(encoding), base, slope);
}

/// HF's rotate_half apply (half layout, every channel rotates) with a in cos and sin, written out here.
inline Eigen::VectorXd hf_half(const Eigen::VectorXd& x, const Eigen::VectorXd& inv, double a, double p) {
  const Eigen::Index h = inv.size();
  Eigen::VectorXd y(2 * h);
  for (Eigen::Index i = 0; i < h; ++i) {
    const double c = std::cos(p * inv[i]) * a, s = std::sin(p * inv[i]) * a;
    y[i] = x[i] * c - x[i + h] * s;
    y[i + h] = x[i + h] * c + x[i] * s;
  }
  return y;
}

/// `rope attention … --csv -` output (a header, then one row per query) against `want`, entry by entry within `tol`.
inline void expect_csv_near(const std::string& out, const Eigen::MatrixXd& want, double tol) {
  const auto rows = test::split(out, '\n');
  ASSERT_EQ(rows.size(), static_cast<std::size_t>(want.rows()) + 1);
  for (Eigen::Index i = 0; i < want.rows(); ++i) {
    const auto cells = test::split(rows[static_cast<std::size_t>(i) + 1], ',');
    for (Eigen::Index j = 0; j < want.cols(); ++j) {
      EXPECT_NEAR(std::stod(cells[static_cast<std::size_t>(j)]), want(i, j), tol) << i << "," << j;
    }
  }
}

}  // namespace rope::test::attention_draws
