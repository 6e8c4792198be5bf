// rope wavelengths, apply and matrix as library calls (analysis/wavelengths_run.hpp, apply_run.hpp,
// matrix_run.hpp) and their reports (report/wavelengths_report.hpp, apply_report.hpp, matrix_report.hpp).
#include <cmath>
#include <gtest/gtest.h>
#include <sstream>

#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/report/json.hpp"
#include "rope/report/text.hpp"
#include "rope/report/wavelengths_report.hpp"

namespace rope {
namespace {

struct WavelengthsCase {
  int d;
  double base;
  double context;
  Eigen::Index first;  ///< the first pair whose λ_i exceeds the context (d/2: none)
};

class WavelengthsRunCases : public ::testing::TestWithParam<WavelengthsCase> {};

// λ_i = 2π·base^(2i/d) (M2); the first pair beyond L gives the critical dimension 2i (M16): LLaMA 2 (d = 128,
// base 10⁴) at 4096 → 92.
TEST_P(WavelengthsRunCases, WavelengthsAndTheFirstPairBeyondEachContext) {
  const WavelengthsCase c = GetParam();
  WavelengthsRequest request;
  request.dim = c.d;
  request.bases = {c.base};
  request.contexts = {c.context};
  const WavelengthsRun run = run_wavelengths(request);
  ASSERT_EQ(run.curves.size(), 1u);
  const Eigen::VectorXd& lambda = run.curves[0].lambda;
  ASSERT_EQ(lambda.size(), c.d / 2);
  for (int i = 0; i < c.d / 2; ++i) EXPECT_NEAR(lambda[i], kTwoPi * std::pow(c.base, 2.0 * i / c.d), 1e-12 * lambda[i]);
  ASSERT_EQ(run.first_beyond.size(), 1u);
  EXPECT_EQ(run.first_beyond[0][0], c.first);
  const Value v = wavelengths_value(run);
  const std::string json = json_text(v);
  EXPECT_NE(json.find("\"critical_dimension\": " + std::to_string(2 * c.first)), std::string::npos) << json;
  EXPECT_NE(json.find("\"pairs_beyond\": " + std::to_string(c.d / 2 - c.first)), std::string::npos) << json;
  EXPECT_EQ(run.sweep_end, std::max(c.context, 2.0));
}

INSTANTIATE_TEST_SUITE_P(Table, WavelengthsRunCases,
                         ::testing::Values(WavelengthsCase{128, 10000, 4096, 46}, WavelengthsCase{8, 10000, 1000, 3},
                                           WavelengthsCase{4, 10000, 1e9, 2}, WavelengthsCase{4, 100, 1, 0},
                                           WavelengthsCase{128, 500000, 8192, 35}));

TEST(WavelengthsRun, RefusesTooManyCurvesBadContextsAndTwoBasesWithAModel) {
  WavelengthsRequest request;
  request.bases = std::vector<double>(kMaxWavelengthCurves + 1, 10000.0);
  EXPECT_THROW(run_wavelengths(request), InvalidArgument);
  request.bases = {10000};
  request.contexts = {0.5};
  EXPECT_THROW(run_wavelengths(request), InvalidArgument);
  EXPECT_THROW(check_wavelengths_request({10000, 500000}, {}, true), InvalidArgument);
  EXPECT_NO_THROW(check_wavelengths_request({10000, 500000}, {}, false));
}

TEST(WavelengthsRun, AModelGivesItsOriginalAndScaledCurvesAndItsOwnContexts) {
  RopeOverrides o;
  o.head_dim = 8;
  o.scaling = "yarn";
  o.factor = 4;
  o.original_max_position_embeddings = 1024;
  WavelengthsRequest request;
  request.rope = resolve_model_rope({}, o);
  const WavelengthsRun run = run_wavelengths(request);
  ASSERT_EQ(run.curves.size(), 2u);
  EXPECT_EQ(run.curves[0].column, "original");
  EXPECT_EQ(run.curves[1].column, "yarn");
  EXPECT_TRUE(run.scaled_pair);
  ASSERT_FALSE(run.contexts.empty());
  EXPECT_EQ(run.contexts.front(), 1024);
  std::ostringstream text;
  emit(text, run, {Format::Text, Lang::En, std::nullopt});
  EXPECT_NE(text.str().find("of the scaled frequencies"), std::string::npos) << text.str();
}

}  // namespace
}  // namespace rope
