// rope decay and rope attention as library calls (analysis/teaching/decay_run.hpp, attention_run.hpp) and their reports
// (report/decay_report.hpp, attention_report.hpp): each run gives what the functions it is made of give, the
// request's rules refuse what the command refused, and the value holds the fields --json prints.
#include <gtest/gtest.h>
#include <sstream>
#include <string>

#include "rope/analysis/teaching/alibi.hpp"
#include "rope/analysis/calculators/decay.hpp"
#include "rope/analysis/calculators/decay_sweep.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/report/attention_report.hpp"
#include "rope/report/decay_report.hpp"
#include "rope/report/text.hpp"

namespace rope {
namespace {

struct DecayCase {
  DecayKind kind;
  int dim;
  std::vector<double> bases;
  double max_distance;
  bool normalize;
};

class DecayRunCurves : public ::testing::TestWithParam<DecayCase> {};

// The full grid is the recurrence of decay.hpp (the bound, the all-ones score) or random_scores, curve by curve;
// the table's round distances are 0, 1, 2, 5, 10, … and the largest, each evaluated directly.
TEST_P(DecayRunCurves, AreTheFunctionsItIsMadeOf) {
  const DecayCase c = GetParam();
  DecayRequest request;
  request.kind = c.kind;
  request.dim = c.dim;
  request.bases = c.bases;
  request.max_distance = c.max_distance;
  request.normalize = c.normalize;
  const DecayRun run = run_decay(request);
  ASSERT_EQ(run.sets.size(), c.bases.size());
  EXPECT_EQ(run.dim, c.dim);
  const long points = static_cast<long>(c.max_distance) + 1;
  ASSERT_EQ(run.distances.size(), points);
  EXPECT_EQ(run.distances[points - 1], c.max_distance);
  std::vector<double> shown{0};
  for (double decade = 1; decade <= c.max_distance; decade *= 10) {
    for (double step : {1.0, 2.0, 5.0}) {
      if (step * decade < c.max_distance && step * decade > 0) shown.push_back(step * decade);
    }
  }
  shown.push_back(c.max_distance);
  ASSERT_EQ(run.shown.size(), static_cast<Eigen::Index>(shown.size()));
  for (std::size_t k = 0; k < shown.size(); ++k) EXPECT_EQ(run.shown[static_cast<Eigen::Index>(k)], shown[k]);
  for (std::size_t b = 0; b < c.bases.size(); ++b) {
    const Eigen::VectorXd theta = frequencies(c.dim, c.bases[b]);
    EXPECT_EQ(run.sets[b].theta, theta);
    Eigen::VectorXd grid, at;
    switch (c.kind) {
      case DecayKind::Bound:
        grid = decay_bound_linspace(theta, c.max_distance, points) / (c.normalize ? decay_bound(theta, 0.0) : 1.0);
        at = decay_bound(theta, run.shown) / (c.normalize ? decay_bound(theta, 0.0) : 1.0);
        break;
      case DecayKind::Ones:
        grid = ones_score_linspace(theta, c.max_distance, points) / (c.normalize ? ones_score(theta, 0.0) : 1.0);
        at = ones_score(theta, run.shown) / (c.normalize ? ones_score(theta, 0.0) : 1.0);
        break;
      case DecayKind::Random: {
        const RandomScores r = random_scores(theta, run.distances, kDefaultSamples, kDefaultSeed);
        grid = r.mean;
        EXPECT_EQ(run.curves.stddev[b], r.stddev);
        at = random_scores(theta, run.shown, kDefaultSamples, kDefaultSeed).mean;
        break;
      }
    }
    EXPECT_EQ(run.curves.value[b], grid) << "base " << c.bases[b];
    EXPECT_EQ(run.summary.value[b], at) << "base " << c.bases[b];
  }
  // The CSV's columns and the JSON's curves name the same sets.
  const Table table = decay_table(run);
  EXPECT_EQ(table.header.size(), 1 + c.bases.size() * (c.kind == DecayKind::Random ? 2 : 1));
  const Value v = decay_value(run);
  EXPECT_EQ(v.find("kind")->text(), to_string(c.kind));
  EXPECT_EQ(v.find("curves")->items().size(), c.bases.size());
  EXPECT_EQ(v.find("distances")->items().size(), shown.size());
}

INSTANTIATE_TEST_SUITE_P(Kinds, DecayRunCurves,
                         ::testing::Values(DecayCase{DecayKind::Bound, 16, {10000, 500000}, 64, false},
                                           DecayCase{DecayKind::Bound, 128, {10000}, 256, true},
                                           DecayCase{DecayKind::Ones, 8, {100}, 1000, false},
                                           DecayCase{DecayKind::Ones, 32, {10000, 1e6}, 20, true},
                                           DecayCase{DecayKind::Random, 8, {10000}, 30, false}));

struct DecayRefusal {
  const char* name;
  void (*set)(DecayRequest&);
  const char* says;
};

class DecayRequestRules : public ::testing::TestWithParam<DecayRefusal> {};

// The rules between settings that the command checked by a throw, now the library's (named by option_name).
TEST_P(DecayRequestRules, Refuse) {
  DecayRequest request;
  GetParam().set(request);
  try {
    run_decay(request);
    FAIL() << "accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find(GetParam().says), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Rules, DecayRequestRules,
    ::testing::Values(
        DecayRefusal{"NormalizeRandom",
                     [](DecayRequest& r) {
                       r.kind = DecayKind::Random;
                       r.normalize = true;
                     },
                     "does not apply to"},
        DecayRefusal{"LogYOnes",
                     [](DecayRequest& r) {
                       r.kind = DecayKind::Ones;
                       r.log_y = true;
                     },
                     "needs positive values"},
        DecayRefusal{"SamplesBound", [](DecayRequest& r) { r.samples = 10; }, "apply to"},
        DecayRefusal{"FractionalDistance", [](DecayRequest& r) { r.max_distance = 10.5; }, "whole number"},
        DecayRefusal{"TooManyBases", [](DecayRequest& r) { r.bases.assign(kMaxBases + 1, 10000.0); }, "at most"},
        DecayRefusal{"PointsZero", [](DecayRequest& r) { r.points = 0; }, "must be between"}),
    [](const ::testing::TestParamInfo<DecayRefusal>& info) { return std::string(info.param.name); });

// A GIF's frames sweep the base from 100 to 10^6 for one base, each the bound of its frequencies.
TEST(DecayRun, FramesSweepTheBase) {
  DecayRequest request;
  request.dim = 8;
  request.max_distance = 16;
  request.frames = 4;
  const DecayRun run = run_decay(request);
  ASSERT_EQ(run.frames.size(), 4u);
  EXPECT_DOUBLE_EQ(run.frames.front().base, 100.0);
  EXPECT_DOUBLE_EQ(run.frames.back().base, 1e6);
  for (const DecayFrame& f : run.frames) {
    EXPECT_EQ(f.curves.value.at(0), decay_bound_linspace(frequencies(8, f.base), 16, 17));
  }
  EXPECT_EQ(decay_frames(run, Text(Lang::En)).size(), 4u);
}

struct AttentionCase {
  int tokens, dim;
  long shift;
  bool causal;
};

class AttentionRunWeights : public ::testing::TestWithParam<AttentionCase> {};

// Every encoding's weights are attention_weights of the same random q_i, k_j; the shift rows judge as the
// encodings promise (RoPE within rounding, ALiBi and none exactly, sinusoidal free), and the value holds them.
TEST_P(AttentionRunWeights, AreTheLibrarysAndJudged) {
  const AttentionCase c = GetParam();
  AttentionRequest request;
  request.tokens = c.tokens;
  request.dim = c.dim;
  request.shift = c.shift;
  request.causal = c.causal;
  request.encodings = {Encoding::Rope, Encoding::Sinusoidal, Encoding::Alibi, Encoding::None};
  const AttentionRun run = run_attention(request);
  const QueriesKeys qk = random_queries_keys(c.tokens, c.dim, kDefaultSeed);
  EXPECT_EQ(run.qk.q, qk.q);
  ASSERT_EQ(run.results.size(), 4u);
  ASSERT_EQ(run.shifts.size(), 4u);
  for (const AttentionResult& r : run.results) {
    AttentionSettings s;
    s.encoding = r.encoding;
    s.causal = c.causal;
    if (r.encoding == Encoding::Alibi) s.alibi_slope = alibi_slopes(8)[0];
    EXPECT_EQ(r.a, attention_weights(qk.q, qk.k, token_positions(c.tokens), s)) << to_string(r.encoding);
  }
  for (const ShiftRow& row : run.shifts) EXPECT_TRUE(row.ok) << to_string(row.encoding);
  EXPECT_EQ(run.shifts[2].report.max_abs_change, 0.0);  // ALiBi: integer positions subtract exactly
  EXPECT_EQ(run.shifts[3].report.max_abs_change, 0.0);  // none
  EXPECT_TRUE(run.passed);
  const Value v = attention_value(run);
  const std::vector<Value>& encodings = v.find("encodings")->items();
  ASSERT_EQ(encodings.size(), 4u);
  EXPECT_EQ(v.find("shift_test")->items().size(), 4u);
  EXPECT_EQ(encodings[0].find("a00")->number(), run.results[0].a(0, 0));
  // The matrix itself only up to kMaxPrintedTokens tokens: it grows with their square.
  EXPECT_EQ(encodings[0].find("weights") != nullptr, c.tokens <= kMaxPrintedTokens);
  std::ostringstream text;
  emit(text, run, {Format::Text, Lang::En, std::nullopt});
  EXPECT_NE(text.str().find("shift test: every position moves by C = " + std::to_string(c.shift)), std::string::npos);
  EXPECT_EQ(text.str().find("attention A_ij") != std::string::npos, c.tokens <= kMaxPrintedTokens);
}

INSTANTIATE_TEST_SUITE_P(Sizes, AttentionRunWeights,
                         ::testing::Values(AttentionCase{6, 8, 100, false}, AttentionCase{4, 16, 1000, true},
                                           AttentionCase{20, 8, 7, false}));

// A verdict is a message, in the language the report is printed in; the long form with wide.
TEST(AttentionRun, VerdictsAreMessages) {
  ShiftReport r;
  r.check.tolerance = 1.0;
  EXPECT_EQ(judge_shift(Encoding::Rope, r, false).verdict.en, "invariant: rounding only");
  EXPECT_EQ(judge_shift(Encoding::Rope, r, true).verdict.en, "invariant: rounding only, within the tolerance");
  ShiftRow row = judge_shift(Encoding::Rope, r, false);
  mark_regime_change(row, 4096, 8192, false);
  EXPECT_TRUE(row.by_design);
  EXPECT_EQ(row.verdict.en, "changed, by design: seq_len 4096 → 8192");
}

}  // namespace
}  // namespace rope
