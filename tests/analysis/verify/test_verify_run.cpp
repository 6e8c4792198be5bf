// rope verify as one library call (analysis/verify/verify_run.hpp) and its report (report/verify_report.hpp): the rules
// between settings, the rows each setting adds, and the value, CSV and text built from the same run.
#include "rope/analysis/verify/verify_run.hpp"

#include <algorithm>
#include <array>
#include <memory>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <limits>
#include <sstream>

#include "rope/core/error.hpp"
#include "rope/report/text.hpp"
#include "rope/report/verify_report.hpp"

namespace rope {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

VerifyRequest small(long trials = 20) {
  VerifyRequest q;
  q.settings.trials = trials;
  return q;
}

struct RuleCase {
  const char* name;
  void (*set)(VerifyRequest&);
  const char* message;  ///< the English, settings named by the command line's namer (the tests install it)
};

class VerifyRunRule : public ::testing::TestWithParam<RuleCase> {};

TEST_P(VerifyRunRule, IsRefusedNamingItsSettings) {
  VerifyRequest q = small();
  GetParam().set(q);
  try {
    (void)run_verify(q);
    FAIL() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr(GetParam().message));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Rules, VerifyRunRule,
    ::testing::Values(
        RuleCase{"XposScaleBaseZero", [](VerifyRequest& q) { q.xpos = true, q.xpos_scale_base = 0; },
                 "--xpos-scale-base must be a finite number > 0 (got 0)"},
        RuleCase{"XposScaleBaseInfinite",
                 [](VerifyRequest& q) { q.xpos_scale_base = std::numeric_limits<double>::infinity(); },
                 "--xpos-scale-base must be a finite number > 0 (got inf)"},
        RuleCase{"XposOnAModel", [](VerifyRequest& q) { q.xpos = true, q.source.preset = "llama-3-8b"; },
                 "--xpos applies to plain RoPE: leave out --model, --config and --scaling"},
        RuleCase{"XposScaled", [](VerifyRequest& q) { q.xpos = true, q.rope.scaling = "linear", q.rope.factor = 2.0; },
                 "--xpos applies to plain RoPE"},
        RuleCase{"XposInFloat32", [](VerifyRequest& q) { q.xpos = true, q.dtype = DType::F32; },
                 "--xpos is checked in float64: leave out --dtype"},
        RuleCase{"StrategyWithoutDtype", [](VerifyRequest& q) { q.strategy = Strategy::CastResult; },
                 "--strategy needs --dtype f32, f16 or bf16"},
        RuleCase{"StrategyInFloat64", [](VerifyRequest& q) { q.strategy = Strategy::CastResult, q.dtype = DType::F64; },
                 "--strategy needs --dtype f32, f16 or bf16"},
        RuleCase{"NoTrials", [](VerifyRequest& q) { q.settings.trials = 0; }, "--trials must be between 1 and"},
        RuleCase{"NegativePosition", [](VerifyRequest& q) { q.settings.max_position = -1; }, "--max-position must be"},
        RuleCase{"OddDimension", [](VerifyRequest& q) { q.dim = 5; }, "dimension d must be even"},
        RuleCase{"Gemma4VisionTower", [](VerifyRequest& q) { q.rope.vision = "gemma4"; },
                 "which this command does not place"}),
    [](const auto& info) { return std::string(info.param.name); });

/// The rows a request adds to the suite's seven and its contrast.
struct RowsCase {
  const char* name;
  void (*set)(VerifyRequest&);
  std::size_t identities;
  bool xpos_contrast, cast_inputs, axes_left_out;
  bool passed = true;
};

class VerifyRunRows : public ::testing::TestWithParam<RowsCase> {};

TEST_P(VerifyRunRows, AddTheRowsOfTheRun) {
  VerifyRequest q = small();
  GetParam().set(q);
  const VerifyRun run = run_verify(q);
  EXPECT_EQ(run.report.identities.size(), GetParam().identities);
  EXPECT_EQ(run.xpos_contrast.has_value(), GetParam().xpos_contrast);
  EXPECT_EQ(run.cast_inputs.has_value(), GetParam().cast_inputs);
  EXPECT_EQ(run.axes_left_out, GetParam().axes_left_out);
  EXPECT_EQ(run.rows().size(), GetParam().identities + 1 + GetParam().xpos_contrast + GetParam().cast_inputs);
  EXPECT_EQ(run.passed(), GetParam().passed);
  EXPECT_FALSE(run.interrupted());
  if (run.cast_inputs) EXPECT_TRUE(run.cast_inputs->row.expected_to_fail);
}

INSTANTIATE_TEST_SUITE_P(
    Rows, VerifyRunRows,
    ::testing::Values(
        RowsCase{"Plain", [](VerifyRequest&) {}, 7, false, false, false},
        RowsCase{"Xpos", [](VerifyRequest& q) { q.xpos = true; }, 10, true, false, false},
        RowsCase{"Bfloat16", [](VerifyRequest& q) { q.dtype = DType::BF16; }, 7, false, true, false},
        RowsCase{"Bfloat16CastInputs",
                 [](VerifyRequest& q) { q.dtype = DType::BF16, q.strategy = Strategy::CastInputs; }, 7, false, false,
                 false, /*passed=*/false},  // θ rounded to bfloat16: row 1 fails (P3)
        RowsCase{"PerAxis", [](VerifyRequest& q) { q.source.preset = "qwen2-vl-7b"; }, 12, false, false, false},
        RowsCase{"PerAxisLeftOut", [](VerifyRequest& q) { q.source.preset = "qwen2-vl-7b", q.dtype = DType::F32; }, 7,
                 false, false, true}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(VerifyRun, ModelFrequenciesAndLayoutAreVerified) {
  VerifyRequest q = small();
  q.source.preset = "llama-3-8b";
  const VerifyRun run = run_verify(q);
  EXPECT_FALSE(run.rope.plain);
  EXPECT_EQ(run.report.settings.layout, Layout::Half);
  EXPECT_EQ(run.report.settings.dim, 128);
  ASSERT_TRUE(run.report.settings.inv_freq.has_value());
  EXPECT_TRUE(run.report.settings.inv_freq->isApprox(run.rope.spec.params.inv_freq));
}

/// A watch that stops the trials at its first update.
class StopAtOnce final : public VerifyWatch {
 public:
  void start(bool stoppable) override { started = stoppable; }
  bool update(long, long) override { return false; }
  void finish() override { ++finished; }
  bool started = false;
  int finished = 0;
};

TEST(VerifyRun, WatchStopsTheTrialsAndTheRowsAfterThem) {
  VerifyRequest q = small(100000);
  q.dim = 4096;  // chunks of 2^24 channel-trials: 4096 trials each
  q.xpos = true;
  StopAtOnce watch;
  q.watch = &watch;
  const VerifyRun run = run_verify(q);
  EXPECT_TRUE(watch.started);
  EXPECT_EQ(watch.finished, 1);
  EXPECT_TRUE(run.interrupted());
  EXPECT_LT(run.report.completed, 100000);
  EXPECT_EQ(run.report.identities.size(), 7u);  // no xPos rows after an interruption
  EXPECT_FALSE(run.xpos_contrast.has_value());
  EXPECT_NE(verify_value(run).find("interrupted_after_trials"), nullptr);
}

TEST(VerifyReport, ValueCsvAndTextShowTheSameRows) {
  VerifyRequest q = small();
  q.dtype = DType::F16;
  const VerifyRun run = run_verify(q);
  const Value v = verify_value(run);
  ASSERT_NE(v.find("identities"), nullptr);
  EXPECT_EQ(v.find("identities")->items().size(), run.report.identities.size());
  ASSERT_NE(v.find("cast_inputs_contrast"), nullptr);
  EXPECT_NE(v.find("cast_inputs_contrast")->find("fails_from_max_position"), nullptr);
  EXPECT_EQ(v.find("settings")->find("dtype")->text(), "f16");
  EXPECT_EQ(v.find("settings")->find("strategy")->text(), "angle-f32");
  EXPECT_TRUE(v.find("passed")->boolean());
  const std::string csv = verify_csv(run);
  EXPECT_EQ(static_cast<std::size_t>(std::count(csv.begin(), csv.end(), '\n')), 1 + run.rows().size());
  std::ostringstream text, json;
  emit(text, run, {Format::Text, Lang::En, std::nullopt});
  EXPECT_THAT(
      text.str(),
      HasSubstr(
          "rope verify: d = 128, base = 10000, interleaved layout, 20 trials, seed 2104, computed in f16 (angle-f32)"));
  EXPECT_THAT(text.str(), HasSubstr("7 of 7 identities passed\n"));
  emit(json, run, {Format::Json, Lang::En, std::nullopt});
  EXPECT_THAT(json.str(), HasSubstr("\"cast_inputs_contrast\""));
}

/// The user's own q and k: `count` pairs of d numbers, deterministic and far from standard normal draws.
std::shared_ptr<VerifyVectors> user_vectors(int d, long count, std::optional<std::array<double, 3>> at = {}) {
  auto v = std::make_shared<VerifyVectors>();
  v->q.resize(d, count);
  v->k.resize(d, count);
  for (long p = 0; p < count; ++p) {
    for (int j = 0; j < d; ++j) {
      v->q(j, p) = 3.0 * (j + 1) - 2.0 * p;  // 1, 4, 7, … : none of them a draw of N(0, 1)
      v->k(j, p) = 0.5 * (d - j) + p * 0.25;
    }
  }
  v->at = at;
  return v;
}

TEST(VerifyRunVectors, EveryIdentityHoldsOnTheUsersVectorsAtTheirPositions) {
  VerifyRequest q;
  q.settings.vectors = user_vectors(8, 3, std::array<double, 3>{5, 12, 3});
  const VerifyRun run = run_verify(q);
  // d from the vectors, each pair once at the given positions, the position budget max(m, n, c) + 1.
  EXPECT_EQ(run.report.settings.dim, 8);
  EXPECT_EQ(run.report.settings.trials, 3);
  EXPECT_EQ(run.report.settings.max_position, 13);
  EXPECT_TRUE(run.passed());
  for (const IdentityResult& r : run.report.identities) EXPECT_EQ(r.samples, 3) << r.name;
  // The rows are the suite's on exactly these draws (verify_draws, the path the tests compare draw by draw).
  std::vector<VerifyDraw> draws;
  for (long p = 0; p < 3; ++p) draws.push_back({q.settings.vectors->q.col(p), q.settings.vectors->k.col(p), 5, 12, 3});
  VerifySettings s = run.report.settings;
  s.vectors = nullptr;
  const VerifyReport expected = verify_draws(s, draws);
  for (std::size_t r = 0; r < expected.identities.size(); ++r) {
    EXPECT_EQ(run.report.identities[r].max_abs_error, expected.identities[r].max_abs_error)
        << expected.identities[r].name;
    EXPECT_EQ(run.report.identities[r].check.difference, expected.identities[r].check.difference);
  }
  EXPECT_EQ(run.report.contrast.max_abs_error, expected.contrast.max_abs_error);
}

TEST(VerifyRunVectors, TheDenseFormGivesTheSameVerdictAtTheGivenPositions) {
  VerifyRequest q;
  q.settings.vectors = user_vectors(6, 2, std::array<double, 3>{7, 2, 40});
  q.settings.dense = true;
  const VerifyRun dense = run_verify(q);
  q.settings.dense = false;
  const VerifyRun fast = run_verify(q);
  EXPECT_TRUE(dense.passed());
  EXPECT_TRUE(fast.passed());
  // Both paths compare the same quantities: row 1's |Δ| agree to a few ulp of the score (|q||k| ≈ 10^2).
  EXPECT_NEAR(dense.report.identities[0].max_abs_error, fast.report.identities[0].max_abs_error, 1e-12);
}

TEST(VerifyRunVectors, DrawnPositionsCycleThroughThePairs) {
  VerifyRequest q;
  q.settings.vectors = user_vectors(16, 3);
  q.settings.trials = default_vector_trials(3);
  const VerifyRun run = run_verify(q);
  EXPECT_EQ(run.report.settings.trials, 1002);  // 1000 rounded up to a multiple of the 3 pairs
  EXPECT_EQ(run.report.settings.max_position, 4096);
  EXPECT_TRUE(run.passed());
  EXPECT_EQ(run.report.identities[0].samples, 1002);
  std::ostringstream text;
  emit(text, run, {Format::Text, Lang::En, std::nullopt});
  EXPECT_THAT(text.str(), HasSubstr("q, k: the 3 pairs of vectors given, the i-th q with the i-th k (trial t checks "
                                    "pair t mod 3)\n"));
  EXPECT_THAT(text.str(), HasSubstr("positions m, n and shift c uniform integers in [0, 4096), as rope verify draws"));
  EXPECT_THAT(text.str(), Not(HasSubstr("N(0, I)")));
  const Value v = verify_value(run);
  EXPECT_EQ(v.find("settings")->find("vector_pairs")->integer(), 3);
  EXPECT_EQ(v.find("settings")->find("positions"), nullptr);
}

TEST(VerifyRunVectors, AMultimodalModelsPerAxisRowsRunOnThemToo) {
  VerifyRequest q;
  q.source.preset = "qwen2-vl-7b";
  q.settings.vectors = user_vectors(128, 1, std::array<double, 3>{4, 9, 2});
  const VerifyRun run = run_verify(q);
  ASSERT_EQ(run.report.identities.size(), 12u);
  EXPECT_TRUE(run.passed());
  EXPECT_EQ(run.report.identities.back().samples, 1);
  std::ostringstream text;
  emit(text, run, {Format::Text, Lang::Zh, std::nullopt});
  EXPECT_THAT(text.str(), HasSubstr("q、k：给出的向量"));
  EXPECT_THAT(text.str(), HasSubstr("给出的位置：m = 4，n = 9，平移量 c = 2"));
}

TEST(VerifyRunVectors, AZeroVectorPassesEveryIdentityExactly) {
  VerifyRequest q;
  auto v = user_vectors(4, 1, std::array<double, 3>{1, 2, 3});
  v->q.setZero();  // S = ‖q‖‖k‖ = 0, and both sides of every identity are 0
  q.settings.vectors = v;
  const VerifyRun run = run_verify(q);
  EXPECT_TRUE(run.passed());
  // The rows of q: relative position, norm, shift invariance, three forms (the others are R_m's alone).
  for (const std::size_t r : {0u, 3u, 4u, 5u}) {
    EXPECT_EQ(run.report.identities[r].check.difference, 0) << run.report.identities[r].name;
  }
}

TEST(VerifyRunVectors, NumbersTooLargeForFloat64FailTheRowsTheyOverflow) {
  VerifyRequest q;
  q.settings.vectors = user_vectors(4, 1, std::array<double, 3>{1, 2, 3});
  auto v = std::make_shared<VerifyVectors>(*q.settings.vectors);
  v->q *= 1e300;
  v->k *= 1e300;  // q·k overflows: the scores are not numbers
  q.settings.vectors = v;
  const VerifyRun run = run_verify(q);
  EXPECT_FALSE(run.passed());
  EXPECT_FALSE(run.report.identities[0].check.passed());  // S = ‖q‖‖k‖ overflows: no verdict but FAIL
  EXPECT_TRUE(run.report.identities[6].check.passed());   // the layouts' matrices do not see q
}

INSTANTIATE_TEST_SUITE_P(
    VectorRules, VerifyRunRule,
    ::testing::Values(
        RuleCase{"FewerTrialsThanPairs", [](VerifyRequest& q) { q.settings.vectors = user_vectors(4, 30); },
                 "--trials must be at least the number of vector pairs, 30, so that each is checked (got 20)"},
        RuleCase{"DimensionAgainstTheVectors",
                 [](VerifyRequest& q) { q.settings.vectors = user_vectors(4, 1), q.dim = 8; },
                 "--dim 8 does not match the 4 numbers per vector of q and k"},
        RuleCase{"OddVectors", [](VerifyRequest& q) { q.settings.vectors = user_vectors(5, 1); },
                 "dimension d must be even"},
        RuleCase{"AModelRotatesOtherChannels",
                 [](VerifyRequest& q) { q.settings.vectors = user_vectors(4, 1), q.source.preset = "llama-3-8b"; },
                 "q and k hold 4 numbers per vector, and the model rotates 128 channels"},
        RuleCase{"NegativePosition",
                 [](VerifyRequest& q) {
                   q.settings.vectors = user_vectors(4, 1, std::array<double, 3>{-1, 2, 3});
                 },
                 "--positions must be integers between 0 and 999999999999 (got -1)"},
        RuleCase{"FractionalPosition",
                 [](VerifyRequest& q) {
                   q.settings.vectors = user_vectors(4, 1, std::array<double, 3>{1, 2.5, 3});
                 },
                 "--positions must be integers between 0 and 999999999999 (got 2.5)"},
        RuleCase{"NotANumber",
                 [](VerifyRequest& q) {
                   auto v = user_vectors(4, 1);
                   v->k(2, 0) = std::numeric_limits<double>::quiet_NaN();
                   q.settings.vectors = v;
                 },
                 "verify: q and k must hold finite numbers"},
        RuleCase{"KWithOtherPairs",
                 [](VerifyRequest& q) {
                   auto v = user_vectors(4, 2);
                   v->k.conservativeResize(4, 1);
                   q.settings.vectors = v;
                 },
                 "verify: q and k must hold as many vectors, at least one (got 2 and 1)"}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace rope
