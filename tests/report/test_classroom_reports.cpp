// rope explain, layouts and lesson as library calls (analysis/teaching/explain_run.hpp, layouts_run.hpp,
// lesson_run.hpp) and their reports (report/explain_report.hpp, layouts_report.hpp, lesson_report.hpp); the cos/sin
// cache of `rope layouts --cache`, the lesson page and the live page (layout_cache) against its definition.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/report/explain_report.hpp"
#include "rope/report/layouts_report.hpp"
#include "rope/report/lesson_report.hpp"
#include "rope/report/text.hpp"
#include "report/plain_rope.hpp"

namespace rope {
namespace {

struct CacheCase {
  int d;
  double base;
  int positions;
};

class LayoutCacheTables : public ::testing::TestWithParam<CacheCase> {};

// Each table's column c holds m·θ of the pair that channel c uses: c mod d/2 (half, cat(freqs, freqs)), c/2
// (interleaved, repeat_interleave(2)), c (gpt-oss's half-width table); pair 0's partners are the two columns
// it multiplies.
TEST_P(LayoutCacheTables, HoldEachChannelsPairAngle) {
  const CacheCase c = GetParam();
  const Eigen::VectorXd theta = frequencies(c.d, c.base);
  const LayoutCache cache = layout_cache(theta, c.positions);
  ASSERT_EQ(cache.tables.size(), 3u);
  EXPECT_EQ(cache.dim, c.d);
  const int half = c.d / 2;
  const struct {
    CacheTable kind;
    int width, a, b;
    int (*pair)(int c, int half);
  } expected[] = {{CacheTable::Half, c.d, 0, half, [](int ch, int h) { return ch % h; }},
                  {CacheTable::Interleaved, c.d, 0, 1, [](int ch, int) { return ch / 2; }},
                  {CacheTable::HalfWidth, half, 0, 0, [](int ch, int) { return ch; }}};
  for (std::size_t k = 0; k < 3; ++k) {
    const LayoutCacheTable& t = cache.tables[k];
    EXPECT_EQ(t.kind, expected[k].kind);
    ASSERT_EQ(t.cos.cols(), expected[k].width);
    ASSERT_EQ(t.cos.rows(), c.positions);
    EXPECT_EQ(t.partner_a, expected[k].a);
    EXPECT_EQ(t.partner_b, expected[k].b);
    for (int m = 0; m < c.positions; ++m) {
      for (int ch = 0; ch < expected[k].width; ++ch) {
        const double angle = m * theta[expected[k].pair(ch, half)];
        EXPECT_EQ(t.cos(m, ch), std::cos(angle));
        EXPECT_EQ(t.sin(m, ch), std::sin(angle));
        EXPECT_NEAR(t.angle(m, ch) * kPi, std::remainder(angle, 2 * kPi), 1e-12);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Dims, LayoutCacheTables,
                         ::testing::Values(CacheCase{2, 10000, 1}, CacheCase{8, 10000, 16}, CacheCase{64, 500000, 16},
                                           CacheCase{12, 100, 40}));

TEST(LayoutCacheTables, RefuseNoFrequencyAndBadPositions) {
  EXPECT_THROW(layout_cache(Eigen::VectorXd(0)), InvalidArgument);
  EXPECT_THROW(layout_cache(frequencies(8, 10000), 0), InvalidArgument);
  EXPECT_THROW(layout_cache(frequencies(8, 10000), 4097), InvalidArgument);
}

TEST(LayoutsRun, IsTheDemonstrationOfItsRequest) {
  LayoutsRequest r;
  r.positions = {5, 12};
  r.rope = plain_rope(8, 10000);
  r.cache = true;
  const LayoutsRun run = run_layouts(r);
  EXPECT_EQ(run.demo.dim, 8);
  EXPECT_TRUE(run.demo.passed());
  EXPECT_EQ(run.demo.max_fixed_change, 0.0);
  ASSERT_TRUE(run.cache.has_value());
  EXPECT_EQ(run.cache->tables[0].cos.cols(), 8);
  const Value v = layouts_value(run);
  ASSERT_NE(v.find("passed"), nullptr);
  EXPECT_EQ(v.find("score_fixed")->number(), v.find("score_interleaved")->number());
  EXPECT_TRUE(v.find("passed")->boolean());
  std::ostringstream text;
  emit(text, run, {Format::Text, Lang::En, std::nullopt});
  EXPECT_NE(text.str().find("rope layouts: d = 8, base = 10000"), std::string::npos);
  std::ostringstream csv;
  emit(csv, run, {Format::Csv, Lang::En, std::nullopt});
  EXPECT_EQ(csv.str().rfind("distance,score_interleaved,score_mixed,score_fixed\n", 0), 0u);
  const plot::Figure fig = layouts_figure(run, Text(Lang::En));
  ASSERT_TRUE(fig.heatmap.has_value());  // --cache: the heat map of the three tables
  EXPECT_EQ(fig.heatmap->z.rows(), 3 * kCachePositions + 2);
}

TEST(LayoutsRun, RefusesOtherThanTwoPositionsAndVectorsOfAnotherLength) {
  LayoutsRequest r;
  r.rope = plain_rope(8, 10000);
  r.positions = {5};
  EXPECT_THROW(run_layouts(r), InvalidArgument);
  r.positions = {5, 12};
  r.q = Eigen::VectorXd::Ones(4);
  r.k = Eigen::VectorXd::Ones(4);
  EXPECT_THROW(run_layouts(r), InvalidArgument);
}

TEST(ExplainRun, ThetaComesFromThePairOrTheRequest) {
  ExplainRequest r;
  r.pair = 2;
  ExplainRun run = run_explain(r);
  EXPECT_EQ(run.theta_source, ThetaSource::Pair);
  EXPECT_EQ(run.walkthrough.setup.theta, frequencies(8, kDefaultBase)[2]);
  EXPECT_TRUE(run.passed());
  r.pair.reset();
  r.theta = 0.5;
  run = run_explain(r);
  EXPECT_EQ(run.theta_source, ThetaSource::Given);
  EXPECT_EQ(run.walkthrough.setup.theta, 0.5);
  const Value v = explain_value(run);
  EXPECT_EQ(v.find("score")->number(), run.walkthrough.step5.score);
  EXPECT_EQ(v.find("checks")->items().size(), explain::checks(run.walkthrough, 0).size());
  std::ostringstream out;
  EXPECT_TRUE(print_explain(out, run, Text(Lang::En)));
  EXPECT_NE(out.str().find("θ = 0.5 rad per position in steps 1–6 (" + option_name("theta") + ")"), std::string::npos)
      << out.str();
}

TEST(ExplainRun, RefusesBadStepsPairsAndPositions) {
  ExplainRequest r;
  r.step = 9;
  EXPECT_THROW(run_explain(r), InvalidArgument);
  r.step = 1;
  r.pair = 4;  // d = 8 has pairs 0 … 3
  EXPECT_THROW(run_explain(r), InvalidArgument);
  r.pair.reset();
  r.positions = {1, 2, 3};
  EXPECT_THROW(run_explain(r), InvalidArgument);
}

TEST(LessonRun, RefusesABadNameAndWritesThePage) {
  const auto page = [](Lang lang) { return std::string(lang == Lang::Zh ? "<p>中文</p>" : "<p>en</p>"); };
  EXPECT_THROW(run_lesson({"", Lang::En}, page), InvalidArgument);
  EXPECT_THROW(run_lesson({"page.txt", Lang::En}, page), InvalidArgument);
  EXPECT_THROW(run_lesson({".html", Lang::En}, page), InvalidArgument);
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "rope_lesson_run_test";
  std::filesystem::create_directories(dir);
  const std::string file = (dir / "l.html").string();
  const LessonRun run = run_lesson({file, Lang::Zh}, page);
  std::ifstream in(file);
  std::stringstream body;
  body << in.rdbuf();
  EXPECT_EQ(body.str(), "<p>中文</p>");
  EXPECT_EQ(lesson_value(run).find("lang")->text(), "zh");
  std::ostringstream out;
  emit(out, run, {Format::Text, Lang::En, std::nullopt});
  EXPECT_EQ(out.str(), "wrote the lesson page " + file + ": open it in a browser, it needs no network\n");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace rope
