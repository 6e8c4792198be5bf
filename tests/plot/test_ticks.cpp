// rope/plot/ticks.hpp: the ticks of logarithmic axes.
#include "rope/plot/ticks.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "plot/helpers.hpp"
#include "rope/core/error.hpp"

namespace rope::plot {
namespace {

using ::testing::ElementsAre;
using ::testing::Not;
using namespace plot_test;

TEST(Plot, LogTicksUseOneTwoFiveStepsOverAboutTwoDecades) {
  // 1-2-5 values m·10^k inside the range, by hand.
  EXPECT_THAT(log_ticks(5, 50), ElementsAre(5, 10, 20, 50));
  EXPECT_THAT(log_ticks(5, 40), ElementsAre(5, 10, 20));
  EXPECT_THAT(log_ticks(0.01, 1), ElementsAre(0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1));
}

TEST(Plot, LogTicksUsePowersOfTenOverWideRanges) {
  // 1e6 / 1 > 300: powers of ten only.
  EXPECT_THAT(log_ticks(1, 1e6), ElementsAre(1, 10, 100, 1000, 1e4, 1e5, 1e6));
  EXPECT_THAT(log_ticks(3, 5e4), ElementsAre(10, 100, 1000, 1e4));
}

TEST(Plot, LogTicksGiveAtLeastTwoTicks) {
  // No 1-2-5 value in [3, 4.5] but 3 and 4 are steps of 1; [1.1, 1.9] has neither: its ends.
  EXPECT_THAT(log_ticks(3, 4.5), ElementsAre(3, 4));
  EXPECT_THAT(log_ticks(1.1, 1.9), ElementsAre(1.1, 1.9));
}

TEST(Plot, OneAxisWritesItsTicksInOneNotation) {
  // 1000 beside 1e5 on one axis read as two notations (issue 68): once a tick needs an exponent, every tick is a
  // power of ten, in ASCII (the Chinese figures' font has no superscript digits).
  EXPECT_THAT(tick_labels({1, 10, 100, 1000, 1e4, 1e5}), ElementsAre("10⁰", "10¹", "10²", "10³", "10⁴", "10⁵"));
  EXPECT_THAT(tick_labels({10, 100, 1000, 1e4}), ElementsAre("10", "100", "1000", "10000"));  // no exponent needed
  EXPECT_THAT(tick_labels({2e4, 5e4, 1e5}), ElementsAre("2×10⁴", "5×10⁴", "10⁵"));
  EXPECT_THAT(tick_labels({1e-5, 1e-4, 1e-3, 0.01, 0.1}), ElementsAre("10⁻⁵", "10⁻⁴", "10⁻³", "10⁻²", "10⁻¹"));
  EXPECT_THAT(tick_labels({0.001, 0.002, 0.005, 0.01}), ElementsAre("0.001", "0.002", "0.005", "0.01"));
}

// Exponents in Unicode superscripts, which the figures' fonts hold (DejaVu Sans; WenQuanYi Micro Hei through the
// cairo terminals' fallback, plot/text.hpp in_cjk_font for libgd's).
TEST(Plot, ATickAloneIsPlainBetweenTenToTheMinusFourAndTenToTheFive) {
  EXPECT_EQ(tick_label(99999), "99999");
  EXPECT_EQ(tick_label(1e5), "10⁵");
  EXPECT_EQ(tick_label(2.5e6), "2.5×10⁶");
  EXPECT_EQ(tick_label(1e-4), "0.0001");
  EXPECT_EQ(tick_label(5e-5), "5×10⁻⁵");
  EXPECT_EQ(tick_label(9.9999999e5), "10⁶");  // the mantissa rounded up to 10 moves to the next power
}

TEST(Plot, LogTicksRejectARangeThatIsNotPositive) {
  EXPECT_THROW(log_ticks(0, 10), InvalidArgument);
  EXPECT_THROW(log_ticks(10, 1), InvalidArgument);
}

}  // namespace
}  // namespace rope::plot
