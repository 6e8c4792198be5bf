#include "rope/analysis/teaching/attention.hpp"

#include <cmath>
#include <complex>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/attention_reference.hpp"
#include "support/matrix_near.hpp"
#include "rope/core/error.hpp"
#include "rope/core/random.hpp"
#include "rope/core/tolerance.hpp"
#include "support/shared.hpp"

namespace rope {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

using test::independent_scores;
using test::independent_softmax;
using test::kEps;

AttentionSettings settings(Encoding e, bool causal = false) {
  AttentionSettings s;
  s.encoding = e;
  s.causal = causal;
  return s;
}

TEST(Attention, HandComputedTwoTokenExample) {
  // d = 2 (θ_0 = 1), q_0 = q_1 = k_0 = k_1 = (1, 0), positions 0 and 1. Worked by hand:
  Eigen::MatrixXd q(2, 2);
  q << 1, 0, 1, 0;
  const Eigen::VectorXd p = token_positions(2);
  // none: every score is 1/√2, so every weight is 1/2 (exactly, all exps equal).
  EXPECT_EQ(attention_weights(q, q, p, settings(Encoding::None)), Eigen::MatrixXd::Constant(2, 2, 0.5));
  // rope: s_ij = cos(j − i)/√2; A_00 = 1/(1 + e^{(cos 1 − 1)/√2}) = 0.5805557848615206 (Python, float64).
  // Four roundings of size ε on values near 1: 1e-15.
  Eigen::MatrixXd rope(2, 2);
  rope << 0.5805557848615206, 0.4194442151384794, 0.4194442151384794, 0.5805557848615206;
  EXPECT_TRUE(test::MatrixNear(attention_weights(q, q, p, settings(Encoding::Rope)), rope, 1e-15));
  // alibi, m = 1/2: s = 1/√2 − (0 or 1/2), so A_00 = 1/(1 + e^{−1/2}) = 0.6224593312018546.
  Eigen::MatrixXd alibi(2, 2);
  alibi << 0.6224593312018546, 1 - 0.6224593312018546, 1 - 0.6224593312018546, 0.6224593312018546;
  EXPECT_TRUE(test::MatrixNear(attention_weights(q, q, p, settings(Encoding::Alibi)), alibi, 1e-15));
  // sinusoidal: p_0 = (sin 0, cos 0) = (0, 1), p_1 = (sin 1, cos 1); q + p_0 = (1, 1), q + p_1 = (1 + sin 1, cos 1):
  // s_00 = 2/√2, s_01 = s_10 = (1 + sin 1 + cos 1)/√2, s_11 = (2 + 2 sin 1)/√2; softmax in Python:
  Eigen::MatrixXd sinusoidal(2, 2);
  sinusoidal << 0.432918269496286, 0.5670817305037141, 0.2849446102804069, 0.715055389719593;
  EXPECT_TRUE(test::MatrixNear(attention_weights(q, q, p, settings(Encoding::Sinusoidal)), sinusoidal, 1e-15));
  // causal: query 0 sees key 0 only, A = (1, 0) exactly; row 1 is unchanged.
  const Eigen::MatrixXd causal = attention_weights(q, q, p, settings(Encoding::Rope, true));
  EXPECT_EQ(causal(0, 0), 1.0);
  EXPECT_EQ(causal(0, 1), 0.0);
  EXPECT_NEAR(causal(1, 0), rope(1, 0), 1e-15);
}

TEST(Attention, ScoresMatchAnIndependentComputation) {
  // Random q, k (d = 8, 7 tokens at positions 3 … 9). Scores are O(3); both sides round a few times per
  // term at angles up to 9 rad: |Δ| <= 8·ε·(d + M)·S with S ≈ d/√d ≈ 3, M = 18: 1.5e-13.
  const QueriesKeys qk = random_queries_keys(7, 8, 11);
  const Eigen::VectorXd p = token_positions(7, 3.0);
  for (Encoding e : {Encoding::None, Encoding::Rope, Encoding::Sinusoidal, Encoding::Alibi}) {
    EXPECT_TRUE(
        test::MatrixNear(attention_scores(qk.q, qk.k, p, settings(e)), independent_scores(qk.q, qk.k, p, e), 1.5e-13))
        << to_string(e);
  }
  AttentionSettings alibi = settings(Encoding::Alibi);
  alibi.alibi_slope = 0.125;
  EXPECT_TRUE(test::MatrixNear(attention_scores(qk.q, qk.k, p, alibi),
                               independent_scores(qk.q, qk.k, p, Encoding::Alibi, 10000, 0.125), 1.5e-13));
  AttentionSettings base100 = settings(Encoding::Rope);
  base100.base = 100;
  EXPECT_TRUE(test::MatrixNear(attention_scores(qk.q, qk.k, p, base100),
                               independent_scores(qk.q, qk.k, p, Encoding::Rope, 100), 1.5e-13));
}

TEST(Attention, WeightsMatchAnIndependentSoftmax) {
  // Softmax of the same scores in long double: the weights are in [0, 1] and each is a quotient of sums of
  // N = 9 exps, so they agree to about (2N + 2)·ε = 4.4e-15; 1e-14 leaves room.
  const QueriesKeys qk = random_queries_keys(9, 16, 5);
  const Eigen::VectorXd p = token_positions(9);
  for (bool causal : {false, true}) {
    for (Encoding e : {Encoding::None, Encoding::Rope, Encoding::Sinusoidal, Encoding::Alibi}) {
      const Eigen::MatrixXd s = attention_scores(qk.q, qk.k, p, settings(e, causal));
      EXPECT_TRUE(test::MatrixNear(attention_weights(qk.q, qk.k, p, settings(e, causal)),
                                   independent_softmax(s, causal), 1e-14))
          << to_string(e) << " causal " << causal;
    }
  }
}

TEST(Attention, SoftmaxRowsSumToOne) {
  // Each row sums to 1 up to rounding: about (2N + 2)·ε (attention.hpp); the test allows 8·ε·N, which is
  // larger for every N >= 1. Every weight is >= 0.
  for (int n : {1, 2, 50, 300}) {
    const QueriesKeys qk = random_queries_keys(n, 32, 3);
    const Eigen::VectorXd p = token_positions(n);
    for (bool causal : {false, true}) {
      for (Encoding e : {Encoding::None, Encoding::Rope, Encoding::Sinusoidal, Encoding::Alibi}) {
        const Eigen::MatrixXd a = attention_weights(qk.q, qk.k, p, settings(e, causal));
        EXPECT_GE(a.minCoeff(), 0.0);
        const double worst = (a.rowwise().sum().array() - 1.0).abs().maxCoeff();
        EXPECT_LE(worst, 8 * kEps * n) << to_string(e) << " n=" << n << " causal " << causal;
      }
    }
  }
}

TEST(Attention, CausalMaskZerosEveryKeyAfterTheQuery) {
  // A_ij = 0 exactly for j > i (not a tiny exp): the masked keys never enter the sum. Row i equals the
  // softmax of s_i0 … s_ii alone (independent_softmax), to 1e-14 as above.
  const QueriesKeys qk = random_queries_keys(12, 8, 9);
  const Eigen::VectorXd p = token_positions(12);
  for (Encoding e : {Encoding::None, Encoding::Rope, Encoding::Sinusoidal, Encoding::Alibi}) {
    const Eigen::MatrixXd a = attention_weights(qk.q, qk.k, p, settings(e, true));
    for (Eigen::Index i = 0; i < a.rows(); ++i) {
      for (Eigen::Index j = i + 1; j < a.cols(); ++j) EXPECT_EQ(a(i, j), 0.0) << i << "," << j;
    }
    EXPECT_EQ(a(0, 0), 1.0);  // exp(0)/exp(0)
    const Eigen::MatrixXd s = attention_scores(qk.q, qk.k, p, settings(e, true));
    EXPECT_TRUE(test::MatrixNear(a, independent_softmax(s, true), 1e-14)) << to_string(e);
  }
}

TEST(Attention, RopeShiftChangeIsAtRoundingLevel) {
  // (M8): s_ij depends on p_j − p_i only, so moving every position changes only the rounding, within the
  // (M13) tolerance 8·ε·(d + M) on |Δ|/S, M = |i| + |j| + |i + C| + |j + C|.
  const QueriesKeys qk = random_queries_keys(16, 64, 2104);
  const Eigen::VectorXd p = token_positions(16);
  for (double shift : {1.0, 100.0, -37.0, 1e6}) {
    const ShiftReport r = shift_test(qk.q, qk.k, p, shift, settings(Encoding::Rope));
    EXPECT_TRUE(r.check.passed()) << shift << ": " << r.check.relative_error() << " > " << r.check.tolerance;
    EXPECT_EQ(r.position_budget, 2 * 15 + 2 * std::abs(15 + shift)) << shift;  // at i = j = 15 (also 2|C| for C <= −15)
    EXPECT_EQ(r.check.tolerance, relative_tolerance(kEps, 64, r.position_budget));
    // The weights move by less than half the largest score change (softmax's ∞-norm Jacobian is <= 1/2)
    // plus the rounding of two softmaxes, (2N + 2)·ε each.
    EXPECT_LE(r.max_weight_change, r.max_abs_change / 2 + 2 * 34 * kEps) << shift;
  }
}

TEST(Attention, SinusoidalShiftChangeIsNotRounding) {
  // (M12): the cross terms q·p_n and p_m·k depend on m and n separately. With q, k ~ N(0, I) and d = 64
  // they are O(1), far above the rounding tolerance (4e-13 at C = 100): at least 10^10 times.
  const QueriesKeys qk = random_queries_keys(16, 64, 2104);
  const Eigen::VectorXd p = token_positions(16);
  const ShiftReport r = shift_test(qk.q, qk.k, p, 100.0, settings(Encoding::Sinusoidal));
  EXPECT_FALSE(r.check.passed());
  EXPECT_GT(r.check.relative_error(), 1e10 * r.check.tolerance);
  EXPECT_GT(r.max_abs_change, 0.1);
  EXPECT_GT(r.max_weight_change, 0.01);
}

TEST(Attention, ShiftReportEqualsTheDifferenceOfTheFullMatrices) {
  // shift_test works row by row; attention_scores builds the whole matrix: the same quantities up to the
  // rounding of a different summation order, 1e-13 on scores of size O(3).
  const QueriesKeys qk = random_queries_keys(10, 16, 4);
  const Eigen::VectorXd p = token_positions(10);
  for (Encoding e : {Encoding::Sinusoidal, Encoding::Alibi, Encoding::None}) {
    const ShiftReport r = shift_test(qk.q, qk.k, p, 25.0, settings(e));
    const Eigen::MatrixXd s0 = independent_scores(qk.q, qk.k, p, e);
    const Eigen::MatrixXd s1 = independent_scores(qk.q, qk.k, p.array() + 25.0, e);
    EXPECT_NEAR(r.max_abs_change, (s1 - s0).cwiseAbs().maxCoeff(), 1e-13) << to_string(e);
    const Eigen::MatrixXd a0 = independent_softmax(s0, false);
    const Eigen::MatrixXd a1 = independent_softmax(s1, false);
    EXPECT_NEAR(r.max_weight_change, (a1 - a0).cwiseAbs().maxCoeff(), 1e-13) << to_string(e);
  }
}

TEST(Attention, AlibiT5AndNoneAreExactlyShiftInvariant) {
  // Their position terms depend on p_j − p_i, which integer positions give exactly: no tolerance.
  const QueriesKeys qk = random_queries_keys(20, 8, 1);
  const Eigen::VectorXd p = token_positions(20);
  AttentionSettings t5 = settings(Encoding::T5Bias);
  t5.t5_bias = Eigen::VectorXd::LinSpaced(32, -3, 3);
  for (const AttentionSettings& s : {settings(Encoding::Alibi), settings(Encoding::None), t5}) {
    for (double shift : {1.0, 100.0, 12345.0, -50.0}) {
      const ShiftReport r = shift_test(qk.q, qk.k, p, shift, s);
      EXPECT_EQ(r.max_abs_change, 0.0) << to_string(s.encoding) << " " << shift;
      EXPECT_EQ(r.max_weight_change, 0.0) << to_string(s.encoding) << " " << shift;
    }
  }
}

TEST(Attention, LearnedTableLeaksAndHasNoRowBeyondItsLength) {
  // Any non-constant table leaks position (the cross terms); a constant one adds the same vector everywhere.
  const QueriesKeys qk = random_queries_keys(4, 8, 1);
  const Eigen::VectorXd p = token_positions(4);
  AttentionSettings learned = settings(Encoding::LearnedAbsolute);
  Random rng(5);
  learned.learned_table = Eigen::MatrixXd::NullaryExpr(10, 8, [&] { return rng.normal(); });
  EXPECT_GT(shift_test(qk.q, qk.k, p, 6.0, learned).max_abs_change, 0.1);
  learned.learned_table = Eigen::MatrixXd::Ones(10, 8);
  EXPECT_EQ(shift_test(qk.q, qk.k, p, 6.0, learned).max_abs_change, 0.0);
  EXPECT_THAT([&] { shift_test(qk.q, qk.k, p, 7.0, learned); },
              ThrowsMessage<InvalidArgument>(HasSubstr("rows 0 … 9 only: position 10 has no embedding")));
  EXPECT_THROW(attention_scores(qk.q, qk.k, p.array() - 1.0, learned), InvalidArgument);
}

TEST(Attention, T5BucketsMatchHuggingFace) {
  // Hugging Face T5Attention._relative_position_bucket (32 buckets, max_distance 128), run in Python for
  // these relative positions j − i; float32 and float64 logarithms agree on every integer |j − i| <= 5000.
  const std::pair<long, int> bidirectional[] = {
      {0, 0},   {1, 17},  {-1, 1},  {2, 18},  {7, 23},   {-7, 7},   {8, 24},    {-8, 8},    {11, 24},
      {12, 25}, {15, 25}, {16, 26}, {22, 26}, {23, 27},  {31, 27},  {32, 28},   {45, 28},   {46, 29},
      {63, 29}, {64, 30}, {90, 30}, {91, 31}, {127, 31}, {128, 31}, {1000, 31}, {-1000, 15}};
  for (const auto& [rel, bucket] : bidirectional) EXPECT_EQ(t5_relative_position_bucket(rel), bucket) << rel;
  const T5Buckets causal{32, 128, false};
  const std::pair<long, int> unidirectional[] = {{0, 0},     {-1, 1},     {-7, 7},   {-8, 8},   {-16, 16},
                                                 {-31, 21},  {-32, 21},   {-63, 26}, {-64, 26}, {-127, 31},
                                                 {-128, 31}, {-1000, 31}, {5, 0}};
  for (const auto& [rel, bucket] : unidirectional) EXPECT_EQ(t5_relative_position_bucket(rel, causal), bucket) << rel;
  EXPECT_THROW(t5_relative_position_bucket(0, T5Buckets{2, 128, true}), InvalidArgument);
  EXPECT_THROW(t5_relative_position_bucket(0, T5Buckets{32, 8, true}), InvalidArgument);
}

TEST(Attention, RandomQueriesAndKeysAreDrawnInTheDocumentedOrder) {
  // q_0 … q_{N−1} row by row, then k: the first draw is q(0, 0), draw N·d + 1 is k(0, 0).
  const QueriesKeys qk = random_queries_keys(3, 4, 42);
  Random rng(42);
  for (int i = 0; i < 3; ++i) {
    for (int c = 0; c < 4; ++c) EXPECT_EQ(qk.q(i, c), rng.normal());
  }
  for (int i = 0; i < 3; ++i) {
    for (int c = 0; c < 4; ++c) EXPECT_EQ(qk.k(i, c), rng.normal());
  }
}

TEST(Attention, ParsesTheFourEncodingsOfTheCommandOnly) {
  EXPECT_EQ(parse_encoding("rope"), Encoding::Rope);
  EXPECT_EQ(parse_encoding("sinusoidal"), Encoding::Sinusoidal);
  EXPECT_EQ(parse_encoding("alibi"), Encoding::Alibi);
  EXPECT_EQ(parse_encoding("none"), Encoding::None);
  EXPECT_THAT([] { parse_encoding("t5"); },
              ThrowsMessage<InvalidArgument>(HasSubstr("'rope', 'sinusoidal', 'alibi' or 'none' (got 't5')")));
}

TEST(Attention, AModelsSoftmaxScaleAndQueryScalingEnterTheScores) {
  // (S22): s_ij = s(p_i)·⟨R q_i, R k_j⟩·scale. The settings' scale replaces 1/√d: the scores are the plain ones
  // × scale·√d (one rounding each, 2 ε relative on scores O(3)); 0.0625 is Gemma 2's 256^−0.5.
  const QueriesKeys qk = random_queries_keys(5, 8, 3);
  const Eigen::VectorXd p = token_positions(5);
  AttentionSettings scaled = settings(Encoding::Rope);
  scaled.scale = 0.0625;
  const Eigen::MatrixXd plain = independent_scores(qk.q, qk.k, p, Encoding::Rope);
  EXPECT_TRUE(test::MatrixNear(attention_scores(qk.q, qk.k, p, scaled), plain * (0.0625 * std::sqrt(8.0)), 1e-14));
  // Query scaling (S21), β 0.1, L0 4: positions 0 … 4 give s = 1, 1, 1, 1, 1 + 0.1·ln 2 (row 4 scaled alone).
  AttentionSettings q = settings(Encoding::Rope);
  q.query_scaling = QueryScaling{0.1, 4.0, {}};
  Eigen::MatrixXd want = plain;
  want.row(4) *= 1.0 + 0.1 * std::log(2.0);
  EXPECT_TRUE(test::MatrixNear(attention_scores(qk.q, qk.k, p, q), want, 1e-14));
  // The shift test sees it: positions 0 … 4 → 8 … 12 give s = 1 + 0.1·ln 3 on every row but the last (ln 4), so the
  // scores change beyond rounding by (s(p + 8) − s(p))·s_ij; without query scaling they do not.
  const ShiftReport moved = shift_test(qk.q, qk.k, p, 8.0, q);
  EXPECT_FALSE(moved.check.passed());
  double most = 0;
  for (int i = 0; i < 5; ++i) {
    const double ds = q.query_scaling->at(i + 8.0) - q.query_scaling->at(i);
    most = std::max(most, ds * plain.row(i).cwiseAbs().maxCoeff());
  }
  EXPECT_NEAR(moved.max_abs_change, most, 1e-13);
  EXPECT_TRUE(shift_test(qk.q, qk.k, p, 8.0, scaled).check.passed());
  // Its log(1 + ⌊p / L0⌋) is not defined below 0, where no model has positions: refused, as a bad scale is.
  EXPECT_THAT([&] { attention_scores(qk.q, qk.k, p.array() - 10.0, q); },
              ThrowsMessage<InvalidArgument>(HasSubstr("needs positions >= 0")));
  // Gemma 2's cap after the scale: s → c·tanh(s / c), c = 0.5 to make it bite on scores O(1).
  AttentionSettings capped = scaled;
  capped.softcap = 0.5;
  const Eigen::MatrixXd s_scaled = plain * (0.0625 * std::sqrt(8.0));
  EXPECT_TRUE(
      test::MatrixNear(attention_scores(qk.q, qk.k, p, capped), (s_scaled.array() / 0.5).tanh().matrix() * 0.5, 1e-14));
  capped.softcap = -1.0;
  EXPECT_THAT([&] { attention_scores(qk.q, qk.k, p, capped); }, ThrowsMessage<InvalidArgument>(HasSubstr("score cap")));
  scaled.scale = 0.0;
  EXPECT_THAT([&] { attention_scores(qk.q, qk.k, p, scaled); },
              ThrowsMessage<InvalidArgument>(HasSubstr("softmax scale")));
}

TEST(Attention, RejectsBadInput) {
  const QueriesKeys qk = random_queries_keys(3, 4, 1);
  const Eigen::VectorXd p = token_positions(3);
  EXPECT_THAT([] { random_queries_keys(0, 4, 1); },
              ThrowsMessage<InvalidArgument>(HasSubstr("between 1 and 4096 (got 0)")));
  EXPECT_THROW(random_queries_keys(4097, 4, 1), InvalidArgument);
  EXPECT_THROW(random_queries_keys(3, 5, 1), InvalidArgument);
  EXPECT_THROW(random_queries_keys(3, 1026, 1), InvalidArgument);
  EXPECT_THAT([&] { attention_scores(qk.q, qk.k.topRows(2), p, settings(Encoding::None)); },
              ThrowsMessage<InvalidArgument>(HasSubstr("same shape")));
  EXPECT_THAT([&] { attention_scores(qk.q, qk.k, p.head(2), settings(Encoding::None)); },
              ThrowsMessage<InvalidArgument>(HasSubstr("one position per token")));
  AttentionSettings bad_base = settings(Encoding::Rope);
  bad_base.base = 1;
  EXPECT_THROW(attention_scores(qk.q, qk.k, p, bad_base), InvalidArgument);
  AttentionSettings bad_slope = settings(Encoding::Alibi);
  bad_slope.alibi_slope = -0.5;
  EXPECT_THROW(attention_scores(qk.q, qk.k, p, bad_slope), InvalidArgument);
  AttentionSettings t5 = settings(Encoding::T5Bias);
  t5.t5_bias = Eigen::VectorXd::Zero(31);
  EXPECT_THAT([&] { attention_scores(qk.q, qk.k, p, t5); }, ThrowsMessage<InvalidArgument>(HasSubstr("got 31 biases")));
  t5.t5_bias = Eigen::VectorXd::Zero(32);
  EXPECT_THROW(attention_scores(qk.q, qk.k, p.array() + 0.5, t5), InvalidArgument);
  EXPECT_THROW(shift_test(qk.q, qk.k, p, NAN, settings(Encoding::Rope)), InvalidArgument);
}

}  // namespace
}  // namespace rope
