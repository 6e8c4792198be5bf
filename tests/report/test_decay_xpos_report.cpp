// rope decay --xpos as a library call (analysis/teaching/decay_xpos_run.hpp) and its report
// (report/decay_xpos_report.hpp): the request's rules refuse what the command refused, the run's curves are
// xpos_decay's at the distances decay's grid gives, and the value, the CSV and the figure hold those numbers.
// The numbers themselves are held to the NumPy port (xpos_bound.csv) in tests/cli/test_cmd_decay.cpp.
#include <gtest/gtest.h>
#include <sstream>
#include <string>

#include "rope/analysis/calculators/decay.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/core/message.hpp"
#include "rope/report/decay_xpos_report.hpp"
#include "rope/report/json.hpp"
#include "rope/report/text.hpp"

namespace rope {
namespace {

DecayRequest xpos_request() {
  DecayRequest r;
  r.xpos_scale_base = 512;
  return r;
}

struct XposRule {
  const char* name;
  void (*change)(DecayRequest&);
  const char* says;  ///< a part of the error that names no setting (the front end names those)
};

class XposDecayRules : public ::testing::TestWithParam<XposRule> {};

TEST_P(XposDecayRules, RefuseBeforeAnyWork) {
  DecayRequest r = xpos_request();
  GetParam().change(r);
  try {
    (void)run_xpos_decay(r);
    FAIL() << "accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find(GetParam().says), std::string::npos) << e.what();
  }
}

constexpr const char* kPlain = "draws plain RoPE's bound with one";

INSTANTIATE_TEST_SUITE_P(
    Table, XposDecayRules,
    ::testing::Values(XposRule{"Ones", [](DecayRequest& r) { r.kind = DecayKind::Ones; }, kPlain},
                      XposRule{"Random", [](DecayRequest& r) { r.kind = DecayKind::Random; }, kPlain},
                      XposRule{"TwoBases",
                               [](DecayRequest& r) {
                                 r.bases = {1e4, 5e5};
                               },
                               kPlain},
                      XposRule{"Normalize", [](DecayRequest& r) { r.normalize = true; }, kPlain},
                      XposRule{"LogY", [](DecayRequest& r) { r.log_y = true; }, kPlain},
                      XposRule{"Rerope", [](DecayRequest& r) { r.rerope_window = 64; }, kPlain},
                      XposRule{"Model", [](DecayRequest& r) { r.model.emplace(); }, kPlain},
                      XposRule{"ScaleBaseZero", [](DecayRequest& r) { r.xpos_scale_base = 0; },
                               "must be a finite number > 0 (got 0)"},
                      XposRule{"ScaleBaseNan", [](DecayRequest& r) { r.xpos_scale_base = std::nan(""); },
                               "must be a finite number > 0 (got nan)"},
                      XposRule{"Power", [](DecayRequest& r) { r.max_distance = 1e6, r.points = 10; },
                               " 512 is over 500: ζ^(m/s) would leave the range"},
                      XposRule{"Cells", [](DecayRequest& r) { r.points = 4'000'000; },
                               "4000000 × 6 columns is 2.4e+07 values, over the limit of 2e+07"},
                      XposRule{"Terms", [](DecayRequest& r) { r.dim = 65536, r.max_distance = 65535; },
                               "65536 distances × d/2 = 32768 pairs is 2.14748e+09 terms of (X5)"},
                      XposRule{"OddDim", [](DecayRequest& r) { r.dim = 3; }, "dimension d"}),
    [](const ::testing::TestParamInfo<XposRule>& info) { return std::string(info.param.name); });

// The curves at every distance and at the text's round ones are xpos_decay's, with decay's grid of distances.
TEST(XposDecayRun, CurvesAreXposDecayOnDecaysGrid) {
  DecayRequest r = xpos_request();
  r.dim = 64;
  r.bases = {5e5};
  r.max_distance = 300;
  const XposDecayRun run = run_xpos_decay(r);
  const Eigen::VectorXd theta = frequencies(64, 5e5);
  EXPECT_EQ(run.x, linspace(300, 301));
  EXPECT_EQ(run.curves.xpos_bound, xpos_decay(theta, 512, run.x).xpos_bound);
  EXPECT_EQ(run.zeta, xpos_zeta(64));
  const std::vector<double> shown{0, 1, 2, 5, 10, 20, 50, 100, 200, 300};
  ASSERT_EQ(run.shown.size(), static_cast<Eigen::Index>(shown.size()));
  for (std::size_t k = 0; k < shown.size(); ++k) EXPECT_EQ(run.shown[static_cast<Eigen::Index>(k)], shown[k]);
  EXPECT_EQ(run.at_shown.zeta_last, xpos_decay(theta, 512, run.shown).zeta_last);
  r.log_x = true;
  EXPECT_EQ(run_xpos_decay(r).shown[0], 1.0);  // a log axis starts at 1
}

// The value holds the table's numbers, the CSV every distance, the figure the five curves.
TEST(XposDecayReport, ValueCsvAndFigureHoldTheRunsNumbers) {
  DecayRequest r = xpos_request();
  r.max_distance = 20;
  const XposDecayRun run = run_xpos_decay(r);
  const Value v = xpos_decay_value(run);
  const std::vector<double> round{0, 1, 2, 5, 10, 20};
  ASSERT_EQ(v.find("distances")->items().size(), round.size());
  for (std::size_t k = 0; k < round.size(); ++k) {
    EXPECT_EQ(v.find("distances")->items()[k].number(), round[k]);
    EXPECT_EQ(v.find("xpos_bound")->items()[k].number(), run.at_shown.xpos_bound[static_cast<Eigen::Index>(k)]);
  }
  EXPECT_EQ(v.find("scale_base")->number(), 512.0);
  const Table table = xpos_decay_table(run);
  ASSERT_EQ(table.columns.size(), 6u);
  EXPECT_EQ(table.columns[2], run.curves.xpos_bound);
  const plot::Figure fig = xpos_decay_figure(run, Text(Lang::En));
  ASSERT_EQ(fig.series.size(), 5u);
  EXPECT_EQ(fig.title, "xPos scale factor ζ^(m/s) next to the decay bound, d = 128, s = 512");
  std::ostringstream text;
  print_xpos_decay(text, run, Text(Lang::En));
  EXPECT_NE(text.str().find("(every distance of the figure: " + option_name("csv") + " FILE)"), std::string::npos)
      << text.str();
  r.csv = true;
  std::ostringstream with_csv;
  print_xpos_decay(with_csv, run_xpos_decay(r), Text(Lang::En));
  EXPECT_EQ(with_csv.str().find("every distance of the figure"), std::string::npos);
}

}  // namespace
}  // namespace rope
