// The printers of rope spectrum (report/spectrum_report.hpp) on a report built by hand: the JSON's fields, the
// flagged pairs in the text, and what the two figures draw.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <cmath>
#include <sstream>

#include "rope/core/constants.hpp"
#include "rope/report/spectrum_report.hpp"
#include "rope/report/text.hpp"

namespace rope {
namespace {

using ::testing::HasSubstr;

SpectrumRun spectrum_report_run() {
  SpectrumRun run;
  run.file = "q.npy";
  run.seq = 16, run.heads = 2, run.d = 6;
  run.dump.shape = {16, 2, 6};
  run.dump.axes = DumpAxes::SeqHeadsD;
  run.expected.rope.head_dim = 6;
  run.expected.set_theta(Eigen::Vector3d(1.0, 0.1, 0.01));
  const double shares[] = {0.05, 0.15, 0.8};
  for (int h = 0; h < 2; ++h) {
    std::vector<PairSpectrum> head;
    for (int j = 0; j < 3; ++j) {
      PairSpectrum p;
      p.pair = j, p.wavelength = kTwoPi / run.expected.theta()[j], p.energy_share = shares[j];
      p.frequency_entropy = j == 0 ? 0 : 0.5 * j;
      p.series = 1, p.flat_series = j == 0 ? 1 : 0;
      head.push_back(p);
    }
    run.tallies.heads.push_back(head);
  }
  run.tallies.pooled = run.tallies.heads[0];
  for (PairSpectrum& p : run.tallies.pooled) p.series = 2, p.flat_series *= 2;
  run.bands = spectrum_bands(run.tallies.pooled);
  return run;
}

TEST(SpectrumReport, JsonFields) {
  const Value v = spectrum_value(spectrum_report_run());
  const Value& pairs = *v.find("pairs");
  ASSERT_EQ(pairs.items().size(), 3u);
  EXPECT_TRUE(pairs.items()[0].find("flat")->boolean());
  EXPECT_EQ(pairs.items()[0].find("flat_series")->integer(), 2);
  EXPECT_DOUBLE_EQ(pairs.items()[2].find("energy_share")->number(), 0.8);
  EXPECT_EQ(v.find("heads")->items().size(), 2u);
  const Value& bands = *v.find("bands");
  EXPECT_EQ(bands.find("energy")->find("first")->integer(), 1);
  EXPECT_EQ(bands.find("energy")->find("last")->integer(), 2);
  EXPECT_EQ(bands.find("lowest_entropy")->integer(), 1);  // pair 0 is flat: left out
  EXPECT_EQ(bands.find("highest_entropy")->integer(), 2);
  EXPECT_EQ(v.find("frequency_bins")->integer(), 8);
}

TEST(SpectrumReport, TextFlagsTheFlatPair) {
  std::ostringstream out;
  print_spectrum(out, spectrum_report_run(), Text(Lang::En));
  EXPECT_THAT(out.str(), HasSubstr("pairs 1 … 2 hold 95.0 % (2 of 3 pairs)"));
  EXPECT_THAT(out.str(), HasSubstr("0 (flat)"));
  EXPECT_THAT(out.str(), HasSubstr("head 1: pairs 1 … 2 hold"));
}

TEST(SpectrumReport, FiguresDrawBarsLineAndHeatMap) {
  const SpectrumRun run = spectrum_report_run();
  const plot::Figure f = spectrum_figure(run, Text(Lang::En));
  EXPECT_TRUE(f.log_x);
  ASSERT_EQ(f.bands.size(), 3u);  // one bar per pair, around its wavelength
  EXPECT_LT(f.bands[1].x[0], kTwoPi / 0.1);
  EXPECT_GT(f.bands[1].x[1], kTwoPi / 0.1);
  EXPECT_DOUBLE_EQ(f.bands[2].upper[0], 1.0);  // over the largest share, 0.8
  EXPECT_DOUBLE_EQ(f.bands[1].upper[0], 0.15 / 0.8);
  ASSERT_FALSE(f.series.empty());
  EXPECT_NEAR(f.series[0].y[2], 1.0 / std::log(8.0), 1e-15);  // FE / ln⌊T/2⌋
  const plot::Figure h = spectrum_heads_figure(run, Text(Lang::En));
  ASSERT_TRUE(h.heatmap.has_value());
  EXPECT_EQ(h.heatmap->z.rows(), 2);
  EXPECT_EQ(h.heatmap->z.cols(), 3);
}

}  // namespace
}  // namespace rope
