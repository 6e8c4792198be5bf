// rope sections, rope positions (M-RoPE) and rope encodings as library calls (analysis/teaching/sections_run.hpp,
// positions_run.hpp, encodings_run.hpp) and their reports (report/sections_report.hpp, positions_report.hpp,
// encodings_report.hpp): each run gives what the functions it is made of give, the request's rules refuse what
// the command refused, and the value, the CSV and the figure hold the run's numbers. The numbers themselves are
// held to independent code where the commands are tested (tests/cli/test_cmd_sections.cpp, test_cmd_positions.cpp,
// test_cmd_encodings.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>

#include "plain_rope.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/core/message.hpp"
#include "rope/report/encodings_report.hpp"
#include "rope/report/json.hpp"
#include "rope/report/positions_report.hpp"
#include "rope/report/sections_report.hpp"
#include "rope/report/text.hpp"

namespace rope {
namespace {

struct SectionsCase {
  const char* name;
  const char* model;     ///< a preset, or "" for plain RoPE of d = 128, base 5e6
  const char* sections;  ///< typed, or ""
  std::vector<std::string> columns;
  SectionsFrom from;
};

class SectionsMaps : public ::testing::TestWithParam<SectionsCase> {};

// The maps are make_axis_map's of the sections: HF's two for three sections (or a fourth 0 adding up to d/2),
// llama.cpp's two for four; the CSV has one column per map, the figure one row.
TEST_P(SectionsMaps, AreMakeAxisMapsOfTheSections) {
  const SectionsCase c = GetParam();
  SectionsRequest q{*c.model ? resolve_model_rope({c.model, ""}, {}) : plain_rope(128, 5e6), c.sections};
  const SectionsRun run = run_sections(q);
  ASSERT_FALSE(run.vision);
  EXPECT_EQ(run.from, c.from);
  ASSERT_EQ(run.maps.size(), c.columns.size());
  for (std::size_t m = 0; m < c.columns.size(); ++m) EXPECT_EQ(run.maps[m].column, c.columns[m]);
  const std::vector<int> three(run.sections.begin(), run.sections.begin() + 3);
  if (c.columns.front() == "chunked") {
    EXPECT_EQ(run.maps[0].map.pair_axis, make_axis_map({three, SectionOrder::Chunked}, run.pairs()).pair_axis);
    EXPECT_EQ(run.maps[1].map.pair_axis, make_axis_map({three, SectionOrder::Interleaved}, run.pairs()).pair_axis);
  }
  const std::string csv = sections_csv(run);
  std::string header = "pair,theta,wavelength";
  for (const std::string& col : c.columns) header += "," + col;
  EXPECT_EQ(csv.substr(0, csv.find('\n')), header);
  EXPECT_EQ(static_cast<int>(std::count(csv.begin(), csv.end(), '\n')), run.pairs() + 1);
  const plot::Figure fig = sections_figure(run, Text(Lang::En));
  EXPECT_EQ(fig.labels.size(), c.columns.size());
  const Value v = sections_value(run);
  ASSERT_EQ(v.find("maps")->items().size(), c.columns.size());
  EXPECT_EQ(v.find("maps")->items()[0].find("name")->text(), c.columns[0]);
  EXPECT_EQ(v.find("maps")->items()[0].find("axes")->items().size(), static_cast<std::size_t>(run.pairs()));
}

INSTANTIATE_TEST_SUITE_P(
    Table, SectionsMaps,
    ::testing::Values(SectionsCase{"QwenDefault", "", "", {"chunked", "interleaved"}, SectionsFrom::QwenDefault},
                      SectionsCase{"Typed", "", "16,24,24", {"chunked", "interleaved"}, SectionsFrom::Typed},
                      SectionsCase{"FourAddingUp",
                                   "",
                                   "24,20,20,0",
                                   {"chunked", "interleaved", "llama_cpp_mrope", "llama_cpp_imrope"},
                                   SectionsFrom::Typed},
                      SectionsCase{
                          "FourSlots", "", "16,24,20,4", {"llama_cpp_mrope", "llama_cpp_imrope"}, SectionsFrom::Typed},
                      SectionsCase{"Model", "qwen2-vl-7b", "", {"chunked", "interleaved"}, SectionsFrom::Model}),
    [](const ::testing::TestParamInfo<SectionsCase>& info) { return std::string(info.param.name); });

struct BadSections {
  const char* name;
  const char* sections;
  const char* says;
};

class SectionsRules : public ::testing::TestWithParam<BadSections> {};

TEST_P(SectionsRules, AreRefusedBeforeAnyMap) {
  try {
    (void)run_sections({plain_rope(128, 5e6), GetParam().sections});
    FAIL() << "accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find(GetParam().says), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Table, SectionsRules,
    ::testing::Values(BadSections{"Two", "1,2", "needs 3 numbers t,h,w (HF) or 4 t,h,w,e (llama.cpp) (got 2)"},
                      BadSections{"Five", "1,2,3,4,5", "(got 5)"},
                      BadSections{"Fraction", "1.5,2,3", "every section is a whole number in 0 … 65536 (got 1.5)"},
                      BadSections{"Negative", "-1,2,3", "every section is a whole number in 0 … 65536 (got -1)"}),
    [](const ::testing::TestParamInfo<BadSections>& info) { return std::string(info.param.name); });

// A vision tower's map is fixed: typed sections are refused; its run holds the six implementations at its d and base.
TEST(SectionsRun, VisionTowerHasTheSixImplementations) {
  RopeOverrides o;
  o.vision = "pixtral";
  o.head_dim = 64;
  o.base = 10000;
  const ModelRope tower = resolve_model_rope({}, o);
  const SectionsRun run = run_sections({tower, ""});
  ASSERT_TRUE(run.vision);
  ASSERT_EQ(run.towers.size(), 6u);
  EXPECT_EQ(run.chosen, VisionRope::Pixtral);
  EXPECT_EQ(run.towers[2].theta, vision_pairs(VisionRope::Pixtral, 64, 10000).theta);
  EXPECT_EQ(sections_csv(run).substr(0, 30), "pair,theta_qwen2_vl,axis_qwen2");
  EXPECT_THROW((void)run_sections({tower, "1,2,3"}), InvalidArgument);
}

// (Q1)–(Q5): the ids are rope_index's, the decoded ones decode_positions', rope_deltas rope_delta's.
TEST(PositionsRun, IdsAreRopeIndexThenTheDecodedOnes) {
  PositionsRequest q;
  q.segments = {{SegmentKind::Text, 4, {}}, {SegmentKind::Image, 0, {1, 8, 8}}, {SegmentKind::Text, 4, {}}};
  q.decode = 3;
  const PositionsRun run = run_positions(q);
  const std::vector<TokenPosition> prefill = rope_index(q.segments, run.rules);
  ASSERT_EQ(run.prefill, prefill.size());
  EXPECT_EQ(run.prefill, 4u + 16u + 4u);
  EXPECT_EQ(run.delta, rope_delta(prefill, run.rules));
  ASSERT_EQ(run.ids.size(), run.prefill + 3);
  EXPECT_EQ(run.ids.back().thw[0], static_cast<long>(run.prefill) + 2 + run.delta);
  const std::string csv = positions_csv(run);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "token,segment,kind,t,h,w");
  EXPECT_EQ(static_cast<std::size_t>(std::count(csv.begin(), csv.end(), '\n')), run.ids.size() + 1);
  EXPECT_EQ(positions_figure(run, Text(Lang::En)).series.size(), 3u);
  EXPECT_EQ(positions_value(run).find("prefill")->uinteger(), 24u);
  EXPECT_EQ(positions_value(run).find("tokens")->items().size(), run.ids.size());
}

TEST(PositionsRun, RulesNameTheirSettings) {
  PositionsRequest q;
  q.segments = {{SegmentKind::Video, 0, {2, 4, 4}}};
  q.second_per_grid = 2;
  try {
    (void)run_positions(q);
    FAIL() << "accepted";
  } catch (const InvalidArgument& e) {
    const std::string want = option_name("second_per_grid") + " scales video time (Qwen2.5-VL): give it with " +
                             option_name("tokens_per_second");
    EXPECT_EQ(e.what(), want);
  }
  q.second_per_grid.reset();
  q.merge_size = 0;
  try {
    (void)run_positions(q);
    FAIL() << "accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(std::string(e.what()).rfind(option_name("merge_size") + " must be", 0), 0u) << e.what();
  }
}

// The shift test of each encoding is shift_test's; T5 and ALiBi give exactly 0 and RoPE passes at the defaults.
TEST(EncodingsRun, ShiftTestsAndTablesAreTheFunctionsItIsMadeOf) {
  const EncodingsRun run = run_encodings({});
  ASSERT_EQ(run.shifts.size(), std::size(kEncodingsColumns));
  EXPECT_EQ(run.shifts[2].max_abs_change, 0.0);
  EXPECT_EQ(run.shifts[3].max_abs_change, 0.0);
  EXPECT_GT(run.shifts[0].max_abs_change, 0.0);
  EXPECT_TRUE(run.passed());
  EXPECT_EQ(run.t5_starts.front(), 0);
  // Bidirectional, 32 buckets: 16 per direction, the last of them from |j − i| = 91 (log-spaced up to 128).
  EXPECT_EQ(run.t5_starts.size(), 16u);
  EXPECT_EQ(run.t5_starts.back(), 91);
  for (std::size_t s = 0; s < run.t5_starts.size(); ++s) {
    EXPECT_EQ(run.t5_before[s], t5_relative_position_bucket(-run.t5_starts[s], run.t5));
  }
  const Eigen::VectorXd theta = frequencies(64, kDefaultBase);
  EXPECT_EQ(run.bound[2], decay_bound(theta, 100.0));
  EXPECT_EQ(run.ones[3], ones_score(theta, 1000.0));
  EXPECT_EQ(run.first_beyond, first_pair_beyond(wavelengths(theta), 512));
  std::ostringstream text;
  print_encodings(text, run, Text(Lang::En), std::nullopt);
  EXPECT_NE(text.str().find("5. Short-context accuracy"), std::string::npos);
  EXPECT_TRUE(encodings_value(run).find("passed")->boolean());
}

struct BadEncodings {
  const char* name;
  EncodingsRequest request;
  const char* says;
};

class EncodingsRules : public ::testing::TestWithParam<BadEncodings> {};

TEST_P(EncodingsRules, AreRefusedBeforeAnyWork) {
  try {
    (void)run_encodings(GetParam().request);
    FAIL() << "accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find(GetParam().says), std::string::npos) << e.what();
  }
}

EncodingsRequest encodings_with(int tokens, int dim, long context, long shift, int heads = 8) {
  EncodingsRequest r;
  r.tokens = tokens;
  r.dim = dim;
  r.context = context;
  r.shift = shift;
  r.heads = heads;
  return r;
}

INSTANTIATE_TEST_SUITE_P(
    Table, EncodingsRules,
    ::testing::Values(BadEncodings{"Tokens", encodings_with(0, 64, 512, 100), "between 1 and 4096 (got 0)"},
                      BadEncodings{"OddDim", encodings_with(16, 3, 512, 100), "even"},
                      BadEncodings{"Heads", encodings_with(16, 64, 512, 100, 0), "between 1 and 1024 (got 0)"},
                      BadEncodings{"Context", encodings_with(16, 64, 0, 0), "between 1 and 10000000 (got 0)"},
                      BadEncodings{"Shift", encodings_with(16, 64, 512, -1), "the learned table has no negative"},
                      BadEncodings{"Work", encodings_with(4096, 1024, 100000, 0), "= 1.71799e+10): the shift test"},
                      BadEncodings{"Table", encodings_with(500, 64, 100, 0), "the learned table has rows 0 … 99 only"}),
    [](const ::testing::TestParamInfo<BadEncodings>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace rope
