// rope frequencies and rope inspect as library calls (analysis/teaching/frequency_table.hpp, analysis/inspect.hpp) and
// their values (report/frequencies_report.hpp, report/inspect_report.hpp): the fields --json prints, built once.
#include <cmath>
#include <gtest/gtest.h>
#include <sstream>

#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/report/frequencies_report.hpp"
#include "rope/report/inspect_report.hpp"
#include "report/plain_rope.hpp"

namespace rope {
namespace {

ModelRope preset(const std::string& name) { return resolve_model_rope({name, ""}, RopeOverrides{}); }

struct PlainCase {
  int d;
  double base;
  std::optional<double> position;
};

class PlainTable : public ::testing::TestWithParam<PlainCase> {};

TEST_P(PlainTable, IsThetaWithItsExponentWavelengthAndAngle) {
  const PlainCase c = GetParam();
  const FrequencyTable t = frequency_table({plain_rope(c.d, c.base), c.position, false});
  ASSERT_TRUE(t.plain());
  ASSERT_EQ(t.pairs(), c.d / 2);
  EXPECT_TRUE(t.theta.isApprox(frequencies(c.d, c.base)));
  for (Eigen::Index i = 0; i < t.pairs(); ++i) {
    EXPECT_DOUBLE_EQ(t.exponent[i], -2.0 * static_cast<double>(i) / c.d);
    EXPECT_DOUBLE_EQ(t.wavelength[i] * t.theta[i], kTwoPi);
    EXPECT_EQ(t.ratio[i], 1.0);
  }
  EXPECT_EQ(t.angle.size(), c.position ? t.pairs() : 0);
  const Value v = frequencies_value(t);
  EXPECT_EQ(v.find("angle") != nullptr, c.position.has_value());
  EXPECT_EQ(v.find("dim")->integer(), c.d);
  EXPECT_EQ(v.find("inv_freq")->items().size(), static_cast<std::size_t>(c.d / 2));
  EXPECT_EQ(v.find("original_inv_freq"), nullptr);  // plain RoPE: no scaling, no second set
}

INSTANTIATE_TEST_SUITE_P(Frequencies, PlainTable,
                         ::testing::Values(PlainCase{8, 10000, std::nullopt}, PlainCase{8, 10000, 3.0},
                                           PlainCase{128, 500000, std::nullopt}, PlainCase{4, 2, 1e6}));

TEST(Frequencies, AModelHasItsOriginalFrequenciesBandsAndFloat32) {
  const FrequencyTable t = frequency_table({preset("llama-3.1-8b"), 5.0, true});
  ASSERT_FALSE(t.plain());
  EXPECT_EQ(t.theta_float32.size(), t.pairs());
  const Value v = frequencies_value(t);
  for (const char* key : {"original_inv_freq", "band", "inv_freq_float32", "angle", "factor_rule", "notes"}) {
    EXPECT_NE(v.find(key), nullptr) << key;
  }
  EXPECT_EQ(frequencies_csv(t).substr(0, 68), "pair,theta,wavelength,original_theta,original_wavelength,ratio,band,");
}

TEST(Frequencies, APositionWithPositionAxesIsRefused) {
  EXPECT_THROW(frequency_table({preset("qwen2.5-vl-7b"), 3.0, false}), InvalidArgument);
  EXPECT_NO_THROW(frequency_table({preset("qwen2.5-vl-7b"), std::nullopt, false}));
}

TEST(Inspect, TheValueAndTheTextShareTheReport) {
  const InspectReport r = inspect_model(preset("qwen2.5-vl-7b"));
  const Value v = inspect_value(r);
  EXPECT_EQ(v.find("model")->text(), "qwen2.5-vl-7b");
  EXPECT_NE(v.find("pair_axis"), nullptr);  // the axes (report/axes_value.hpp)
  EXPECT_EQ(v.find("inv_freq")->items().size(), static_cast<std::size_t>(r.rope.spec.params.inv_freq.size()));
  std::ostringstream text;
  emit(text, r, Printing{});
  EXPECT_EQ(text.str(), inspect_text(r.rope, Lang::En));
}

}  // namespace
}  // namespace rope
