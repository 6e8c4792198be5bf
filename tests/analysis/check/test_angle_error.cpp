// The error models of the angles (rope/analysis/check/angle_error.hpp (C2)) against float32 emulations of the
// implementations they model, written here from their source: ggml's ladder (ggml-org/llama.cpp
// ggml/src/ggml-cpu/ops.cpp:5975-5989 and :6143 at the node-llama-cpp 3.22.1 bundle, de3ff815ea7d) and
// Hugging Face's float32 inv_freq and angles (transformers _compute_default_rope_parameters). The bound must
// hold without κ: κ is the safety on top.
#include <cmath>
#include <gtest/gtest.h>

#include "rope/analysis/check/angle_error.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"

namespace rope {
namespace {

/// θ_i = base^(−2i/r) in float64 (M1).
Eigen::VectorXd exact_theta(double base, int r) { return frequencies(r, base); }

TEST(AngleError, NamesAndDefaults) {
  EXPECT_EQ(to_string(AngleModel::Ggml), "ggml");
  EXPECT_EQ(parse_angle_model("float32"), AngleModel::Float32);
  EXPECT_THROW(parse_angle_model("pytorch"), InvalidArgument);
  EXPECT_EQ(default_angle_model(DType::F64), AngleModel::Float64);
  EXPECT_EQ(default_angle_model(DType::F32), AngleModel::Float32);
  EXPECT_EQ(default_angle_model(DType::BF16), AngleModel::Float32);
  EXPECT_EQ(angle_epsilon(AngleModel::Float64), epsilon(DType::F64));
  EXPECT_EQ(angle_epsilon(AngleModel::Ggml), epsilon(DType::F32));
  // ggml, base 1e4, r = 128: 2 + i·(1.5 + ln(1e4)/128).
  const Eigen::VectorXd c = angle_error_factors(AngleModel::Ggml, exact_theta(1e4, 128), 1e4, 128);
  EXPECT_DOUBLE_EQ(c[0], 2.0);
  EXPECT_DOUBLE_EQ(c[13], 2.0 + 13 * (1.5 + std::log(1e4) / 128));
  EXPECT_EQ(angle_error_formula(AngleModel::Ggml, 1e4, 128), "2 + i·(1.5 + ln(base)/r) = 2 + 1.57·i");
  EXPECT_THROW(angle_error_factors(AngleModel::Ggml, exact_theta(1e4, 128), 0.0, 128), InvalidArgument);
}

/// Largest |φ_impl − m·θ| / (ε·c_i·|m·θ| + ε) over pairs and positions (ε the float32 one): <= 1 means (C2)
/// holds without κ.
template <class Angle>
double worst_ratio(AngleModel model, double base, int r, Angle angle) {
  const Eigen::VectorXd theta = exact_theta(base, r);
  const Eigen::VectorXd c = angle_error_factors(model, theta, base, r);
  const double eps = epsilon(DType::F32);
  double worst = 0;
  for (int m : {1, 2, 3, 7, 100, 1000, 3808, 4097, 8700, 16383, 30000, 32767, 65535, 131071, 500000}) {
    for (int i = 0; i < r / 2; ++i) {
      const double exact = m * theta[i];
      const double err = std::abs(angle(m, i) - exact);
      worst = std::max(worst, err / (eps * c[i] * exact + eps));
    }
  }
  return worst;
}

TEST(AngleError, GgmlLadderBoundHoldsWithoutSafety) {
  for (double base : {1e4, 5e5, 1e6, 5e6, 1e8}) {
    for (int r : {32, 64, 128, 256}) {
      SCOPED_TRACE(testing::Message() << "base " << base << ", r " << r);
      // theta = m; per pair: the angle, then theta *= theta_scale, all float32 (ggml_rope_cache_init).
      const float theta_scale = std::pow(static_cast<float>(base), -2.0f / static_cast<float>(r));
      const auto ladder = [&](int m, int i) {
        float theta = static_cast<float>(m);
        for (int k = 0; k < i; ++k) theta *= theta_scale;
        return static_cast<double>(theta);
      };
      const double w = worst_ratio(AngleModel::Ggml, base, r, ladder);
      EXPECT_LE(w, 1.0);
      // The old (C1), c_i = 1 with κ = 8, did not hold for the ladder at large i and m.
      if (base == 1e4 && r == 128) {
        EXPECT_GT(worst_ratio(AngleModel::Float64, base, r, ladder), 8.0);
      }
    }
  }
}

TEST(AngleError, PyTorchFloat32BoundHoldsWithoutSafety) {
  for (double base : {1e4, 5e5, 1e6, 5e6}) {
    for (int r : {32, 64, 128}) {
      SCOPED_TRACE(testing::Message() << "base " << base << ", r " << r);
      // inv_freq = 1 / (base ** (arange(0, r, 2).float() / r)), then position.float() * inv_freq.
      const auto torch = [&](int m, int i) {
        const float x = static_cast<float>(2 * i) / static_cast<float>(r);
        const float inv = 1.0f / std::pow(static_cast<float>(base), x);
        return static_cast<double>(static_cast<float>(m) * inv);
      };
      EXPECT_LE(worst_ratio(AngleModel::Float32, base, r, torch), 1.0);
    }
  }
}

}  // namespace
}  // namespace rope
