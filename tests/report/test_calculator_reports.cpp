// rope bound, extrapolation, precision and bench as library calls (analysis/calculators/bound_run.hpp,
// extrapolation_run.hpp, precision_run.hpp, bench.hpp) and their reports through the one emit (report/emit.hpp).
#include <cmath>
#include <gtest/gtest.h>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

#include "rope/core/constants.hpp"
#include "rope/core/dtype.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/report/bench_report.hpp"
#include "rope/report/bound_report.hpp"
#include "rope/report/check_report.hpp"
#include "rope/report/extrapolation_report.hpp"
#include "rope/report/json.hpp"
#include "rope/report/precision_report.hpp"
#include "rope/report/text.hpp"

namespace rope {
namespace {

template <class Run>
std::string emitted_as(const Run& run, Format format) {
  std::ostringstream out;
  emit(out, run, {format, Lang::En, std::nullopt});
  return out.str();
}

// Every grid base's minimum is B's minimum over 0 … L computed term by term (bound_minimum_direct, one cos per
// term, not the fast path of scan_bound), in the value, the CSV and the text's count.
TEST(BoundReport, EveryGridBaseIsTheDirectMinimumInValueCsvAndText) {
  const BoundRun run = run_bound({300, 16, "2,1e6", 20, false});
  const Value v = Report<BoundRun>::value(run);
  const Value& bases = *v.find("bases");
  ASSERT_EQ(bases.items().size(), run.scan.bases.size());
  ASSERT_GT(bases.items().size(), 100u);
  std::size_t passing = 0;
  for (const Value& b : bases.items()) {
    const double base = b.find("base")->number();
    const BoundMinimum direct = bound_minimum_direct(frequencies(16, base), 300);
    EXPECT_NEAR(b.find("min_b")->number(), direct.value, 1e-9) << base;
    EXPECT_EQ(b.find("passes")->boolean(), direct.passes()) << base;
    passing += direct.passes() ? 1 : 0;
  }
  const Table table = Report<BoundRun>::csv(run);
  EXPECT_EQ(table.header, (std::vector<std::string>{"base", "min_B", "argmin_m", "passes"}));
  EXPECT_EQ(table.columns[0].size(), static_cast<Eigen::Index>(run.scan.bases.size()));
  EXPECT_EQ(emitted_as(run, Format::Csv), to_csv(table));
  EXPECT_EQ(emitted_as(run, Format::Json), json_text(v) + "\n");
  const std::string text = emitted_as(run, Format::Text);
  EXPECT_NE(text.find(std::to_string(passing) + " of " + std::to_string(run.scan.bases.size()) + " grid bases pass."),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("--csv FILE)"), std::string::npos);  // no CSV asked: the text points to it
  const plot::Figure fig = bound_figure(run, Text(Lang::En));
  EXPECT_EQ(fig.series[0].x.size(), static_cast<Eigen::Index>(run.scan.bases.size()));
}

struct BadBound {
  const char* name;
  BoundRequest request;
  const char* says;
};

class BoundRequestRules : public ::testing::TestWithParam<BadBound> {};

TEST_P(BoundRequestRules, IsRefusedBeforeAnyWork) {
  const BadBound c = GetParam();
  try {
    run_bound(c.request);
    FAIL() << "accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos) << e.what();
  }
}

const BadBound kBadBounds[] = {
    {"ContextZero", {0, 128, "", std::nullopt, false}, "between 1 and 10000000 (got 0)"},
    {"ContextOverTheLimit", {kMaxBoundContext + 1, 128, "", std::nullopt, false}, "between 1 and"},
    {"NoGridPoint", {100, 128, "", 0, false}, "between 1 and 10000 (got 0)"},
    {"OneNumber", {100, 128, "5", std::nullopt, false}, "two numbers LO,HI (got '5')"},
    {"Descending", {100, 128, "5,2", std::nullopt, false}, "1 < LO < HI (got 5,2)"},
    {"BaseOne", {100, 128, "1,10", std::nullopt, false}, "1 < LO < HI"},
    {"OddDimension", {100, 7, "2,10", std::nullopt, false}, "even"},
};
INSTANTIATE_TEST_SUITE_P(Rules, BoundRequestRules, ::testing::ValuesIn(kBadBounds),
                         [](const ::testing::TestParamInfo<BadBound>& i) { return std::string(i.param.name); });

// (C6)–(C9) of docs/calculators.md written out here: x = (d/2)·ln(T/2π)/ln(base), d_extra = 2⌈x⌉,
// T_extra = 2π·β^(d_extra/d), β₀ = base^(ln(T_tune/2π)/ln(T/2π)), β₁ β₂ β₃ = 2T/π, T/π, T/2π.
TEST(ExtrapolationReport, TheFormulasOfLiuEtAl) {
  const double base = 1e4, T = 4096, T_tune = 16384;
  const ExtrapolationRun run = run_extrapolation({128, base, T, T_tune, {500, 1e6}});
  const double x = 64 * std::log(T / kTwoPi) / std::log(base);
  EXPECT_NEAR(run.critical.x, x, 1e-12);
  const int d_extra = 2 * static_cast<int>(std::ceil(x));
  EXPECT_EQ(run.critical.dimension, d_extra);
  const Value v = Report<ExtrapolationRun>::value(run);
  const Value& bounds = *v.find("bounds");
  ASSERT_EQ(bounds.items().size(), 2u);
  EXPECT_NEAR(bounds.items()[1].find("t_extra")->number(), kTwoPi * std::pow(1e6, d_extra / 128.0), 1e-6);
  EXPECT_FALSE(bounds.items()[0].find("applies")->boolean());  // β = 500 < base: outside (C7)'s domain
  EXPECT_NEAR(v.find("critical_base")->number(), std::pow(base, std::log(T_tune / kTwoPi) / std::log(T / kTwoPi)),
              1e-6);
  EXPECT_DOUBLE_EQ(v.find("small_base")->find("quarter")->number(), 2 * T_tune / kPi);
  EXPECT_DOUBLE_EQ(v.find("small_base")->find("full")->number(), T_tune / kTwoPi);
  const std::string text = emitted_as(run, Format::Text);
  EXPECT_NE(text.find("d_extra = 2·⌈x⌉ = " + std::to_string(d_extra)), std::string::npos) << text;
  EXPECT_THROW(emitted_as(run, Format::Csv), std::logic_error);  // a report without CSV rows
  ExtrapolationRequest many{128, base, T, std::nullopt, std::vector<double>(kMaxTuneBases + 1, 2e4)};
  EXPECT_THROW(run_extrapolation(many), InvalidArgument);
}

// The positions float16 merges, counted here: 0 … 2048 exact, then a step of 2 up to 4096 (1024 more values).
TEST(PrecisionReport, MergesCsvAndTablesOfOneRun) {
  PrecisionRequest q;
  q.settings.dim = 8;
  q.settings.samples = 4;
  q.max_position = 4096;
  q.points = 6;
  q.dtypes = {DType::F64, DType::F16};
  const PrecisionRun run = run_precision(q);
  const Value v = Report<PrecisionRun>::value(run);
  const Value& merges = *v.find("merges");
  ASSERT_EQ(merges.items().size(), 2u);
  EXPECT_EQ(merges.items()[1].find("type")->text(), "f16");
  EXPECT_EQ(merges.items()[1].find("distinct")->integer(), 2049 + 1024);
  EXPECT_EQ(merges.items()[1].find("merged")->integer(), 4097 - 2049 - 1024);
  EXPECT_EQ(merges.items()[0].find("merged")->integer(), 0);  // float64 keeps every integer apart
  const Table table = Report<PrecisionRun>::csv(run);
  EXPECT_EQ(table.header.size(), 1 + 3 * run.curves.size());
  EXPECT_EQ(table.columns[0].size(), 6);
  EXPECT_EQ(v.find("table")->find("positions")->items().size(), run.at.size());
  EXPECT_EQ(run.at.back(), 4096);  // the table ends at P
  std::ostringstream wide, narrow;
  emit(wide, run, {Format::Text, Lang::En, 4, true});
  emit(narrow, run, {Format::Text, Lang::En, 4, false});
  EXPECT_GT(wide.str().size(), narrow.str().size());  // --wide: every merge group
  q.points = 1;
  EXPECT_THROW(run_precision(q), InvalidArgument);
}

TEST(BenchReport, TheValueAndTheTextOfOneReport) {
  BenchReport r;
  r.settings.seq = 16;
  r.ladder.push_back({64, {4e-3, 2e-3, 1e-3, 1.5e-3}, 1e-7});
  r.decay_direct_seconds = 1.5e-3;
  r.decay_fast_seconds = 5e-4;
  r.decay_max_rel_diff = 1e-12;
  const Value v = Report<BenchReport>::value(r);
  EXPECT_EQ(v.find("ladder")->items()[0].find("seconds")->find("dense")->number(), 4e-3);
  EXPECT_EQ(v.find("decay")->find("recurrence_seconds")->number(), 5e-4);
  const std::string text = emitted_as(r, Format::Text);
  EXPECT_NE(text.find("(4×)"), std::string::npos) << text;  // dense against element-wise
  EXPECT_NE(text.find("1.50 ms"), std::string::npos) << text;
  EXPECT_NE(text.find("(3× faster)"), std::string::npos) << text;
  EXPECT_THROW(run_bench({16, 32, 1'000'000, 100}), InvalidArgument);  // above kMaxBenchWork, before any work
}

}  // namespace
}  // namespace rope
