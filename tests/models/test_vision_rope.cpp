// rope/models/vision_rope.hpp: (V1)-(V6) against tests/reference/vision_rope.py and hand values.
#include <cmath>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <map>
#include <string>

#include "rope/core/error.hpp"
#include "rope/models/model_config.hpp"
#include "rope/models/rope_spec.hpp"
#include "rope/models/vision_rope.hpp"
#include "support/reference_data.hpp"

namespace rope {
namespace {

TEST(VisionRope, EqualsTheNumpyPortsOfHfToOneInATrillion) {
  // tests/reference/vision_rope.py: HF's Qwen2-VL VisionRotaryEmbedding + rot_pos_emb, Pixtral's table
  // indexed by the flat id, Llama 4's complex form, EVA-02's VisionRotaryEmbeddingFast table (= lucidrains'
  // get_axial_freqs) for the axial map (V5); head_dim 64 and 88, theta 10000, patches (0, 0) … (63, 63).
  // Tolerance 1e-12 of ‖x‖: both sides form the same products p·ϑ_j (ϑ an ulp apart at most), cos and sin
  // of arguments up to 64 rad an ulp apart.
  const test::ReferenceCsv ref = test::read_reference("vision_apply.csv");
  const auto cases = test::group_rows(ref, 4);
  ASSERT_EQ(cases.size(), 40u);         // 4 rules x 2 head_dims x 5 patches
  std::map<std::string, double> worst;  // per rule
  std::map<std::string, int> per_rule;
  for (const auto& [key, rows] : cases) {
    const auto& first = *rows.front();
    const int d = std::stoi(first.at(1));
    ASSERT_EQ(rows.size(), static_cast<std::size_t>(d)) << key;
    const Eigen::VectorXd x = test::group_column(rows, 5), want = test::group_column(rows, 6);
    const VisionPairs pairs = vision_pairs(parse_vision_rope(first.at(0)), d, 10000);
    const Eigen::VectorXd got = vision_apply(pairs, x, std::stod(first.at(2)), std::stod(first.at(3)));
    const double err = (got - want).cwiseAbs().maxCoeff() / x.norm();
    worst[first.at(0)] = std::max(worst[first.at(0)], err);
    EXPECT_LE(err, 1e-12) << key;
    ++per_rule[first.at(0)];
  }
  // Every map of (V2)-(V5) is compared (llama.cpp's VISION mode builds the pairs of (V2): MapsByHand).
  EXPECT_EQ(per_rule, (std::map<std::string, int>{{"axial", 10}, {"llama4", 10}, {"pixtral", 10}, {"qwen2-vl", 10}}));
  for (const auto& [rule, err] : worst) RecordProperty("worst_relative_error_" + rule, fmt::format("{:.3g}", err));
}

TEST(VisionRope, MapsByHand) {
  // d = 16, base 10000: four pairs per axis.
  // (V2) qwen2-vl / llama.cpp: pairs 0-3 the row, 4-7 the column, each with 1, 10000^(-1/4), …; half layout.
  const VisionPairs q = vision_pairs(VisionRope::Qwen2VL, 16, 10000);
  EXPECT_EQ(q.layout, Layout::Half);
  EXPECT_EQ(q.axis, (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(q.theta[4], 1.0);
  EXPECT_NEAR(q.theta[1], 0.1, 1e-16);  // 10000^(-4/16)
  EXPECT_NEAR(q.theta[5], 0.1, 1e-16);
  const VisionPairs c = vision_pairs(VisionRope::LlamaCpp, 16, 10000);
  EXPECT_EQ(c.layout, q.layout);
  EXPECT_EQ(c.axis, q.axis);
  EXPECT_EQ(c.theta, q.theta);
  EXPECT_EQ(c.offset, q.offset);
  // (V3) pixtral: row gets the even frequencies 10000^(-2i/16), i = 0, 2, 4, 6; column the odd ones.
  const VisionPairs p = vision_pairs(VisionRope::Pixtral, 16, 10000);
  EXPECT_EQ(p.axis, q.axis);
  EXPECT_NEAR(p.theta[1], 0.1, 1e-16);                   // i = 2
  EXPECT_NEAR(p.theta[4], std::pow(10.0, -0.5), 1e-16);  // i = 1: 10000^(-2/16)
  EXPECT_NEAR(p.theta[7], std::pow(10.0, -3.5), 1e-19);  // i = 7
  // (V4) llama4: column first, interleaved, 1-based: at patch (0, 0) pair 0 turns by 1 rad.
  const VisionPairs l = vision_pairs(VisionRope::Llama4, 16, 10000);
  EXPECT_EQ(l.layout, Layout::Interleaved);
  EXPECT_EQ(l.axis, (std::vector<int>{1, 1, 1, 1, 0, 0, 0, 0}));
  EXPECT_EQ(vision_angles(l, 0, 0)[0], 1.0);
  EXPECT_EQ(vision_angles(l, 5, 2)[0], 3.0);  // column 2 + 1
  EXPECT_EQ(vision_angles(l, 5, 2)[4], 6.0);  // row 5 + 1
  // (V5) axial: row first, interleaved, 0-based.
  const VisionPairs a = vision_pairs(VisionRope::Axial, 16, 10000);
  EXPECT_EQ(a.layout, Layout::Interleaved);
  EXPECT_EQ(a.axis, q.axis);
  EXPECT_EQ(vision_angles(a, 5, 2)[0], 5.0);
  EXPECT_THROW(vision_pairs(VisionRope::Pixtral, 18, 10000), InvalidArgument);  // d/2 odd: no equal halves
  EXPECT_THROW(parse_vision_rope("eva"), InvalidArgument);
}

TEST(VisionRope, GemmaFourRotatesEachAxisBlockOnItsOwn) {
  // HF Gemma4VisionRotaryEmbedding and apply_multidimensional_rope (models/gemma4/modeling_gemma4.py at
  // c308a309e651), d = 8, base 100: channels 0-3 turn with the column x, 4-7 with the row y; inside each block
  // rotate_half pairs (i, i + 2), frequencies 100^(-2k/4): 1 and 0.1 (V6).
  const VisionPairs g = vision_pairs(VisionRope::Gemma4, 8, 100);
  EXPECT_TRUE(g.per_block);
  EXPECT_EQ(g.axis, (std::vector<int>{1, 1, 0, 0}));
  EXPECT_EQ(g.offset, 0.0);
  EXPECT_NEAR(g.theta[1], 0.1, 1e-16);
  EXPECT_NEAR(g.theta[3], 0.1, 1e-16);
  EXPECT_EQ(vision_axis_map(g).vision_equation, "(V6)");
  Eigen::VectorXd x(8);
  x << 1, 2, 3, 4, 5, 6, 7, 8;
  const double row = 3, column = 2;
  const Eigen::VectorXd got = vision_apply(g, x, row, column);
  // (a, b) of pair (i, i + 2) → (a cos φ − b sin φ, b cos φ + a sin φ), as x·cos + rotate_half(x)·sin.
  const auto turn = [&](int i, int k, double phi) {
    EXPECT_NEAR(got[i], x[i] * std::cos(phi) - x[k] * std::sin(phi), 1e-14) << i;
    EXPECT_NEAR(got[k], x[k] * std::cos(phi) + x[i] * std::sin(phi), 1e-14) << k;
  };
  turn(0, 2, column * 1.0);
  turn(1, 3, column * 0.1);
  turn(4, 6, row * 1.0);
  turn(5, 7, row * 0.1);
  EXPECT_EQ(parse_vision_rope("gemma4"), VisionRope::Gemma4);
}

TEST(VisionRope, GemmaFourSpecPlacesThePairsInsideEachAxisBlock) {
  // The spec of --vision gemma4 (d = 8, base 100): the half layout with axis_blocks; pair j of block b = j / 2 on
  // channels 4b + (j mod 2, j mod 2 + 2). Its rotation, matrix and the check's expectation agree with vision_apply.
  const RopeSpec s = make_spec(vision_model(VisionRope::Gemma4, 8, 100));
  EXPECT_TRUE(s.axis_blocks);
  EXPECT_EQ(s.layout, Layout::Half);
  const int want[4][2] = {{0, 2}, {1, 3}, {4, 6}, {5, 7}};
  for (int j = 0; j < 4; ++j) {
    const PairChannels c = spec_pair_channels(s, j);
    EXPECT_EQ(c.first, want[j][0]) << j;
    EXPECT_EQ(c.second, want[j][1]) << j;
  }
  Eigen::VectorXd x(8);
  x << 1, 2, 3, 4, 5, 6, 7, 8;
  AxisPosition p;
  p.count = 2;
  p.value = {3, 2};  // (row, column)
  const Eigen::VectorXd want_y = vision_apply(vision_pairs(VisionRope::Gemma4, 8, 100), x, 3, 2);
  EXPECT_LT((spec_apply(s, x, p) - want_y).cwiseAbs().maxCoeff(), 1e-15);
  EXPECT_LT((spec_matrix(s, p, 8) * x - want_y).cwiseAbs().maxCoeff(), 1e-15);
  EXPECT_EQ(to_rotation_order(s, from_rotation_order(s, x)), x);
  // The channels of every other kind are the layout's own.
  const RopeSpec q = make_spec(vision_model(VisionRope::Qwen2VL, 8, 100));
  EXPECT_FALSE(q.axis_blocks);
  EXPECT_EQ(spec_pair_channels(q, 2).first, 2);
  EXPECT_EQ(spec_pair_channels(q, 2).second, 6);
}

}  // namespace
}  // namespace rope
