// rope/models/rope_float32.hpp: HF's float32 frequencies, angles and rotation against the independent
// NumPy float32 reimplementation tests/reference/float32.py, bitwise.
#include <cmath>
#include <cstring>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <map>

#include "rope/core/error.hpp"
#include "rope/models/presets.hpp"
#include "rope/models/rope_float32.hpp"
#include "support/model_apply_reference.hpp"
#include "support/reference_data.hpp"

namespace rope {
namespace {

using ::testing::HasSubstr;

/// (preset, position, kind) → the float32 values of tests/reference/float32.csv.
std::map<std::tuple<std::string, std::string, std::string>, std::vector<float>> float32_reference() {
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<float>> out;
  for (const auto& row : test::read_reference("float32.csv").rows) {
    out[{row.at(0), row.at(1), row.at(2)}].push_back(static_cast<float>(std::stod(row.at(4))));
  }
  return out;
}

/// The same bits (the reference's values are float32 values written as doubles: exact).
bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

TEST(RopeFloat32, EqualsTheNumpyFloat32ReferenceBitwise) {
  // Every operation is IEEE float32 in HF's order, and pow/cos/sin are libm's float64 rounded once, in
  // both programs: so the same bits, a tolerance of 0 ULP (tests/reference/float32.py's docstring).
  const auto ref = float32_reference();
  const auto heads = test::model_apply_cases();
  ASSERT_GE(ref.size(), 20u);
  int checked = 0;
  for (const auto& [key, values] : ref) {
    const auto& [preset, position, kind] = key;
    const RopeSpec spec = spec_at_position(make_spec(load_preset(preset)), std::stod(position));
    if (kind == "inv_freq") {
      const Eigen::VectorXf inv = inv_freq_float32(spec);
      ASSERT_EQ(static_cast<std::size_t>(inv.size()), values.size()) << preset;
      for (Eigen::Index i = 0; i < inv.size(); ++i) {
        EXPECT_TRUE(same_bits(inv[i], values[static_cast<std::size_t>(i)]))
            << preset << " m=" << position << " pair " << i << ": " << inv[i] << " vs "
            << values[static_cast<std::size_t>(i)];
        ++checked;
      }
    } else {
      const Eigen::VectorXd x = heads.at({preset, position == "1.0" ? "1.0" : position}).input;
      const Eigen::VectorXd y = spec_apply_float32(spec, x, std::stod(position));
      ASSERT_EQ(static_cast<std::size_t>(y.size()), values.size()) << preset;
      for (Eigen::Index i = 0; i < y.size(); ++i) {
        EXPECT_TRUE(same_bits(static_cast<float>(y[i]), values[static_cast<std::size_t>(i)]))
            << preset << " m=" << position << " channel " << i << ": " << y[i] << " vs "
            << values[static_cast<std::size_t>(i)];
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 1500);
}

TEST(RopeFloat32, DefaultFrequenciesByHand) {
  // d = 4, base 10000: exponents 0 and 0.5 (exact in float32), inv = 1 and 1/100 rounded to float32.
  ModelConfig m;
  m.name = "hand";
  m.rope.head_dim = 4;
  const Eigen::VectorXf inv = inv_freq_float32(make_spec(m));
  ASSERT_EQ(inv.size(), 2);
  EXPECT_EQ(inv[0], 1.0f);
  EXPECT_EQ(inv[1], 0.01f);
}

TEST(RopeFloat32, PositionsMustBeFloat32Values) {
  EXPECT_EQ(float32_position(16777216.0), 16777216.0f);
  EXPECT_THROW(float32_position(16777217.0), InvalidArgument);  // 2^24 + 1: not a float32
  EXPECT_THROW(float32_position(0.1), InvalidArgument);
  try {
    float32_position(0.1);
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("not a float32 value"));
  }
}

TEST(RopeFloat32, ValuesBeyondFloat32AreRefused) {
  // PyTorch would turn base 1e39 into inf; rope says so instead of converting out of range.
  ModelConfig m;
  m.name = "hand";
  m.rope.head_dim = 4;
  m.rope.base = 1e39;
  try {
    inv_freq_float32(make_spec(m));
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("--float32: base 1e+39 is beyond float32's range"));
  }
  EXPECT_THROW(float32_position(1e300), InvalidArgument);
}

TEST(RopeFloat32, FloatDiffersFromDoubleByFloatRounding) {
  // llama-3.1-8b at m = 100000: the float32 rotation differs from the float64 one by about
  // ε_f32·|m·θ_0|·‖x‖ (the angle's rounding), i.e. 1e-3 … 1e-1 here, far above float64's 1e-11.
  const RopeSpec spec = make_spec(load_preset("llama-3.1-8b"));
  const Eigen::VectorXd x = test::model_apply_cases().at({"llama-3.1-8b", "100000.0"}).input;
  const double diff = (spec_apply_float32(spec, x, 100000.0) - spec_apply(spec, x, 100000.0)).cwiseAbs().maxCoeff();
  EXPECT_GT(diff, 1e-4);
  EXPECT_LT(diff, 0.5);
}

}  // namespace
}  // namespace rope
