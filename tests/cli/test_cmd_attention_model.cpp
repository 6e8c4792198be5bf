// `rope attention` with a model: its own softmax scale ((S22) of docs/scaling.md) and query scaling ((S21)), every
// number against a computation written out here from HF's formulas (test_cmd_attention.cpp has the rest).
#include "rope/cli/cli.hpp"

#include <cmath>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cli/attention_draws.hpp"
#include "rope/core/random.hpp"
#include "support/cli_harness.hpp"
#include "support/reference_data.hpp"
#include "support/shared.hpp"

namespace rope {
namespace {

using test::expect_one_line_error;
using test::Result;
using test::rope_cli;
using test::attention_draws::draws;
using test::attention_draws::Draws;
using test::attention_draws::hf_half;
using ::testing::HasSubstr;

TEST(CmdAttentionModel, ModelsSoftmaxScaleIsTheModelsOwn) {
  // (S22) of docs/scaling.md: Gemma 3 27B's attention multiplies q·k by query_pre_attn_scalar^−0.5 = 168^−0.5, not
  // 1/√head_dim = 128^−0.5 (HF Gemma2Attention, inherited by Gemma3Attention; 168 from HF's convert_gemma3_weights.py
  // _VARIANT_GEMMA_3_27B). Its full-attention layers: linear f = 8 at 1e6, so θ_i = 1e6^(−2i/128)/8, half layout, a =
  // 1; the weights against that written out here: 1e-12 (softmax of scores of size ~1, each rounded to ~1e-15).
  const int n = 4, d = 128;
  Eigen::VectorXd theta(d / 2);
  for (int i = 0; i < d / 2; ++i) theta[i] = std::pow(1e6, -2.0 * i / d) / 8.0;
  const Draws x = draws(n, d, kDefaultSeed);
  Eigen::MatrixXd s(n, n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      s(i, j) = hf_half(x.q.row(i).transpose(), theta, 1.0, i).dot(hf_half(x.k.row(j).transpose(), theta, 1.0, j)) /
                std::sqrt(168.0);
    }
  }
  const Eigen::MatrixXd want = test::independent_softmax(s, false);
  const Result r = rope_cli({"attention", "--model", "gemma-3-27b", "--tokens", "4", "--csv", "-"});
  ASSERT_EQ(r.code, 0) << r.err;
  test::attention_draws::expect_csv_near(r.out, want, 1e-12);
  const Result text = rope_cli({"attention", "--model", "gemma-3-27b", "--tokens", "4", "--shift", "100"});
  ASSERT_EQ(text.code, 0) << text.err;
  const std::string out = test::unwrapped(text.out);
  EXPECT_THAT(out, HasSubstr("s_ij = <R_i q_i, R_j k_j>·0.0771517, R_p the model's rotation"));
  EXPECT_THAT(out, HasSubstr("softmax scale 0.0771517 = 168^−0.5 (query_pre_attn_scalar 168)"));
  EXPECT_THAT(out, HasSubstr("query_pre_attn_scalar: text_config.query_pre_attn_scalar"));
  EXPECT_THAT(out, HasSubstr("S = ‖q_i‖‖k_j‖·0.0771517 (the model's softmax scale)"));
  EXPECT_THAT(out, HasSubstr("invariant: rounding only"));
  // Without a model: 1/√d as before.
  EXPECT_THAT(rope_cli({"attention", "--tokens", "4"}).out, HasSubstr("s_ij = <R_i q_i, R_j k_j>/√d"));
}

TEST(CmdAttentionModel, QueryScalingMovesWithTheShiftAsInTheModel) {
  // Devstral Small 2 (ministral3): q × s(p) = 1 + 0.1·ln(1 + ⌊p / 8192⌋) after RoPE (S21). Positions 0 … 3: s = 1; the
  // shift 10000 moves them to 10000 … 10003, s = 1 + 0.1·ln 2 = 1.06931: the scores change as the model's do, exit 0.
  const Result r = rope_cli({"attention", "--model", "devstral-small-2-24b", "--tokens", "4", "--shift", "10000"});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string out = test::unwrapped(r.out);
  EXPECT_THAT(out, HasSubstr("s_ij = s(p_i)·<R_i q_i, R_j k_j>·0.0883883"));
  EXPECT_THAT(out, HasSubstr("s(p) = 1 + 0.1·ln(1 + ⌊p / 8192⌋), every layer"));
  EXPECT_THAT(out, HasSubstr(": 1 at positions 0 … 3"));
  EXPECT_THAT(out, HasSubstr("changed, by design: s(p) 1 → 1.06931"));
  EXPECT_THAT(
      rope_cli({"attention", "--model", "devstral-small-2-24b", "--tokens", "4", "--shift", "10000", "--wide"}).out,
      HasSubstr("changed: the query scaling s(p) (S21) is 1 before and 1.06931 after, as in the model"));
  // Below L0 nothing moves: invariant.
  EXPECT_THAT(rope_cli({"attention", "--model", "devstral-small-2-24b", "--tokens", "4", "--shift", "100"}).out,
              HasSubstr("invariant: rounding only"));
  // Its positions start at 0: a shift below 0 is refused, naming the rule.
  expect_one_line_error(rope_cli({"attention", "--model", "devstral-small-2-24b", "--tokens", "4", "--shift", "-100"}),
                        2, "the query scaling (S21) needs positions >= 0");
}

}  // namespace
}  // namespace rope
