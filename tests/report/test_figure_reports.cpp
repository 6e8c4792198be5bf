// rope wavelengths, apply and matrix as library calls (analysis/teaching/wavelengths_run.hpp, apply_run.hpp,
// matrix_run.hpp) and their reports (report/wavelengths_report.hpp, apply_report.hpp, matrix_report.hpp).
#include <cmath>
#include <gtest/gtest.h>
#include <sstream>

#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/core/rotation.hpp"
#include "rope/report/apply_report.hpp"
#include "rope/report/json.hpp"
#include "rope/report/matrix_report.hpp"
#include "rope/report/text.hpp"
#include "rope/report/wavelengths_report.hpp"
#include "report/plain_rope.hpp"

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
  // The paragraph on the context (the live page shows it alone) is the one the text prints.
  std::ostringstream text;
  print_wavelengths(text, run, Text(Lang::En));
  const std::string paragraph = wavelengths_context_text(run, 0, 0, Text(Lang::En));
  EXPECT_NE(text.str().find("\n\n" + paragraph), std::string::npos) << text.str();
  const std::string said = c.first == c.d / 2 ? std::string("every pair completes a full turn within it\n")
                                              : "critical dimension " + std::to_string(2 * c.first) + " (M16)\n";
  EXPECT_NE(paragraph.find(said), std::string::npos) << paragraph;
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

/// As the figure commands' tests give it: the layout set, interleaved unless said.
ModelRope figure_rope(int d, double base, Layout layout = Layout::Interleaved) { return plain_rope(d, base, layout); }

struct ApplyCase {
  std::vector<double> x;
  double m;
  double base;
  Layout layout;
};

class ApplyRunCases : public ::testing::TestWithParam<ApplyCase> {};

// The three forms equal R_m x (M5) and agree within (M13); the report's CSV and JSON carry the same numbers.
TEST_P(ApplyRunCases, TheThreeFormsAreTheRotation) {
  const ApplyCase c = GetParam();
  ApplyRequest request;
  request.x = Eigen::Map<const Eigen::VectorXd>(c.x.data(), static_cast<Eigen::Index>(c.x.size()));
  request.position = AxisPosition::single(c.m);
  request.rope = figure_rope(static_cast<int>(c.x.size()), c.base, c.layout);
  const ApplyRun run = run_apply(request);
  const Eigen::MatrixXd r = rotation_matrix<double>(frequencies(static_cast<int>(c.x.size()), c.base), c.m, c.layout);
  const Eigen::VectorXd expected = r * request.x;
  for (const Eigen::VectorXd* form : {&run.by_matrix, &run.by_elementwise, &run.by_complex}) {
    ASSERT_EQ(form->size(), expected.size());
    for (Eigen::Index i = 0; i < expected.size(); ++i) EXPECT_NEAR((*form)[i], expected[i], 1e-12);
  }
  EXPECT_TRUE(run.agree());
  EXPECT_EQ(run.s_m, 1.0);
  const std::string json = json_text(apply_value(run));
  EXPECT_NE(json.find("\"agree\": true"), std::string::npos) << json;
  EXPECT_EQ(apply_csv(run).substr(0, 41), "channel,input,matrix,elementwise,complex\n");
  std::ostringstream text;
  emit(text, run, {Format::Text, Lang::En, std::nullopt});
  EXPECT_NE(text.str().find("they agree"), std::string::npos) << text.str();
}

INSTANTIATE_TEST_SUITE_P(Table, ApplyRunCases,
                         ::testing::Values(ApplyCase{{1, 0, 0, 1}, 1, 10000, Layout::Interleaved},
                                           ApplyCase{{1, 2, 3, 4, 5, 6}, -7.5, 500000, Layout::Half},
                                           ApplyCase{{0.5, -1}, 1000, 100, Layout::Interleaved}));

TEST(ApplyRun, RefusesXposOnAModelAndQueryScalingWithoutOne) {
  ApplyRequest request;
  request.x = Eigen::Vector4d(1, 0, 0, 1);
  request.position = AxisPosition::single(3);
  request.rope = figure_rope(4, 10000);
  request.xpos = XposSetting{};
  request.model_options = true;
  EXPECT_THROW(run_apply(request), InvalidArgument);
  request.model_options = false;
  EXPECT_NO_THROW(run_apply(request));
  request.xpos.reset();
  request.query = true;
  EXPECT_THROW(check_apply_request(request), InvalidArgument);
  request.query = false;
  request.position = AxisPosition::single(1e300);
  EXPECT_THROW(run_apply(request), InvalidArgument);
}

struct MatrixCase {
  int d;
  double m, n;
  Layout layout;
};

class MatrixRunCases : public ::testing::TestWithParam<MatrixCase> {};

// R_m is the block-diagonal rotation (M5), (M6); R_mᵀ R_n equals R_(n−m) (M7) within (M13).
TEST_P(MatrixRunCases, TheRotationAndTheRelativeIdentity) {
  const MatrixCase c = GetParam();
  MatrixRequest request;
  request.rope = figure_rope(c.d, 10000, c.layout);
  request.position = AxisPosition::single(c.m);
  const MatrixRun one = run_matrix(request);
  EXPECT_EQ(one.size, c.d);
  EXPECT_TRUE(one.matrix.isApprox(rotation_matrix<double>(frequencies(c.d, 10000), c.m, c.layout), 0.0));
  EXPECT_TRUE((one.matrix.transpose() * one.matrix).isIdentity(1e-12));
  EXPECT_TRUE(one.passed());
  EXPECT_EQ(matrix_csv(one).substr(0, 12), "col_0,col_1,");
  request.position.reset();
  request.relative = {AxisPosition::single(c.m), AxisPosition::single(c.n)};
  const MatrixRun two = run_matrix(request);
  ASSERT_TRUE(two.rotation);
  EXPECT_TRUE(two.passed()) << two.check.difference;
  EXPECT_TRUE(
      two.rotation->rotation.isApprox(rotation_matrix<double>(frequencies(c.d, 10000), c.n - c.m, c.layout), 1e-12));
  const std::string json = json_text(matrix_value(two));
  EXPECT_NE(json.find("\"equal\": true"), std::string::npos) << json;
}

INSTANTIATE_TEST_SUITE_P(Table, MatrixRunCases,
                         ::testing::Values(MatrixCase{4, 1, 2, Layout::Interleaved}, MatrixCase{4, 2, 5, Layout::Half},
                                           MatrixCase{8, -3.5, 100, Layout::Interleaved},
                                           MatrixCase{64, 1000, 10, Layout::Half}));

TEST(MatrixRun, RefusesBadDigitsBothOrNeitherPositionAndAFigureOfTheRelativeForm) {
  MatrixRequest request;
  request.rope = figure_rope(4, 10000);
  EXPECT_THROW(run_matrix(request), InvalidArgument);  // neither
  request.position = AxisPosition::single(1);
  request.relative = {AxisPosition::single(1), AxisPosition::single(2)};
  EXPECT_THROW(run_matrix(request), InvalidArgument);  // both
  request.position.reset();
  request.figure = true;
  EXPECT_THROW(run_matrix(request), InvalidArgument);  // a figure draws R_m
  request.figure = false;
  request.digits = 18;
  EXPECT_THROW(run_matrix(request), InvalidArgument);
  request.digits = 6;
  request.relative.pop_back();
  EXPECT_THROW(run_matrix(request), InvalidArgument);  // one position for --relative
}

}  // namespace
}  // namespace rope
