// The live page's latent grid (rope/analysis/teaching/axes_grid.hpp): two patches of one row differ in their
// column alone, so the pairs that turn them apart are the w pairs of the model's axis map. The w pairs are
// written here from the models' configs and code, not from rope's axis maps: Qwen2-VL's mrope_section
// [16, 24, 24] chunked (HF apply_multimodal_rotary_pos_emb: the third chunk, pairs 16 + 24 … 63, docs/multi-axis.md
// (A2)); Qwen3-VL's [24, 20, 20] interleaved (HF apply_interleaved_mrope: j mod 3 = 2 and j < 3·20, (A3)).
#include "rope/analysis/teaching/axes_grid.hpp"

#include <cmath>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <string>
#include <vector>

#include "rope/core/error.hpp"
#include "rope/report/axes_grid_report.hpp"

namespace rope {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

struct GridCase {
  const char* model;
  std::vector<int> w_pairs;
  std::vector<int> h_pairs;
  std::vector<int> t_pairs;
};

std::vector<int> joined(std::vector<int> a, const std::vector<int>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::vector<int> range(int from, int to, int step) {
  std::vector<int> v;
  for (int j = from; j < to; j += step) v.push_back(j);
  return v;
}

class AxesGrid : public ::testing::TestWithParam<GridCase> {};

TEST_P(AxesGrid, TwoPatchesOfOneRowDifferInTheWPairsAlone) {
  AxesGridRequest request;
  request.rope = resolve_model_rope({GetParam().model, ""}, {});
  request.frames = 2;
  request.rows = 3;
  request.columns = 4;
  request.patch = {1, 2, 1};
  const AxesGridRun run = run_axes_grid(request);
  EXPECT_EQ(run.differing, GetParam().w_pairs);
  EXPECT_TRUE(run.only_w);
  EXPECT_EQ(run.per_axis[2], static_cast<int>(GetParam().w_pairs.size()));
  EXPECT_EQ(run.second, (std::array<int, 3>{1, 2, 2}));
  // Pair j of a w pair turns by θ_j more at the second patch (one column on): θ_j · 3 − θ_j · 2 = θ_j, to rounding.
  const Eigen::VectorXd& theta = request.rope.spec.params.inv_freq;
  for (int j : GetParam().w_pairs) {
    EXPECT_NEAR(run.angle_second[j] - run.angle_first[j], theta[j], 4 * 2.2e-16 * 3 * theta[j]) << "pair " << j;
  }
  const Value v = axes_grid_value(run);
  ASSERT_NE(v.find("differing"), nullptr);
  EXPECT_EQ(v.find("differing")->items().size(), GetParam().w_pairs.size());
  EXPECT_THAT(axes_grid_sentence(run).in(Lang::En), HasSubstr("just the w pairs"));
  // (1, 2, 1) sits in the last row and the last frame: its one neighbour is the next column's.
  ASSERT_EQ(run.neighbours.size(), 1u);
  EXPECT_EQ(run.neighbours[0].axis, 2);
  EXPECT_EQ(run.neighbours[0].differing, GetParam().w_pairs);
}

TEST_P(AxesGrid, ThePatchsNextRowAndFrameDifferInTheHAndTPairsAlone) {
  AxesGridRequest request;
  request.rope = resolve_model_rope({GetParam().model, ""}, {});
  request.patch = {0, 1, 1};  // in a 2×3×4 grid: a next column, row and frame
  const AxesGridRun run = run_axes_grid(request);
  ASSERT_EQ(run.neighbours.size(), 3u);
  const std::vector<std::vector<int>> expected{GetParam().w_pairs, GetParam().h_pairs, GetParam().t_pairs};
  const std::vector<std::array<int, 3>> patches{{0, 1, 2}, {0, 2, 1}, {1, 1, 1}};
  for (std::size_t i = 0; i < 3; ++i) {
    const AxesGridNeighbour& n = run.neighbours[i];
    EXPECT_EQ(n.axis, static_cast<int>(2 - i));
    EXPECT_EQ(n.patch, patches[i]);
    EXPECT_EQ(n.differing, expected[i]) << "axis " << n.axis;
    EXPECT_TRUE(n.only_axis);
  }
  EXPECT_EQ(axes_grid_neighbour_sentence(run, run.neighbours[1]).in(Lang::En),
            "next row (0, 2, 1): " + std::to_string(GetParam().h_pairs.size()) +
                " of 64 pairs turn it apart, just "
                "the h pairs");
  const Value v = axes_grid_value(run);
  ASSERT_NE(v.find("neighbours"), nullptr);
  EXPECT_EQ(v.find("neighbours")->items()[2].find("axis")->text(), "t");
}

INSTANTIATE_TEST_SUITE_P(Models, AxesGrid,
                         ::testing::Values(GridCase{"qwen2-vl-7b", range(40, 64, 1), range(16, 40, 1), range(0, 16, 1)},
                                           // apply_interleaved_mrope: h = slice(1, 60, 3), w = slice(2, 60, 3), t the
                                           // rest
                                           GridCase{"qwen3-vl-8b", range(2, 60, 3), range(1, 60, 3),
                                                    joined(range(0, 61, 3), range(61, 64, 1))},
                                           // diffusers WanRotaryPosEmbed (transformer_wan.py at 58eb52c0803e): head
                                           // 128, h = w = 2·⌊128/6⌋ = 42 channels, t the other 44, in the order t,
                                           // h, w: 22 + 21 pairs before the 21 w pairs
                                           GridCase{"wan2.1-t2v-14b", range(43, 64, 1), range(22, 43, 1),
                                                    range(0, 22, 1)}),
                         [](const auto& info) {
                           return std::string(info.index == 0 ? "Qwen2VL" : info.index == 1 ? "Qwen3VL" : "Wan");
                         });

TEST(AxesGridWalk, VisitsTheCellsColumnFirstWithEachPairsAngle) {
  // Qwen3-VL's interleave (A3) of [24, 20, 20], written here: a(j) = h for j mod 3 = 1 and j < 60, w for j mod 3 = 2
  // and j < 60, t otherwise; the angle of pair j at (t, h, w) is θ_j·p_a(j) (A1).
  AxesGridRequest request;
  request.rope = resolve_model_rope({"qwen3-vl-8b", ""}, {});
  request.walk = 7;
  const AxesGridRun run = run_axes_grid(request);
  const std::vector<std::array<int, 3>> cells = {{0, 0, 0}, {0, 0, 1}, {0, 0, 2}, {0, 0, 3},
                                                 {0, 1, 0}, {0, 1, 1}, {0, 1, 2}};
  ASSERT_EQ(run.walk, cells);
  ASSERT_EQ(run.walk_angles.rows(), 7);
  const Eigen::VectorXd& theta = request.rope.spec.params.inv_freq;
  ASSERT_EQ(run.walk_angles.cols(), 64);
  for (int k = 0; k < 7; ++k) {
    for (int j = 0; j < 64; ++j) {
      const int a = j % 3 == 1 && j < 60 ? 1 : j % 3 == 2 && j < 60 ? 2 : 0;
      const double p = cells[static_cast<std::size_t>(k)][static_cast<std::size_t>(a)];
      EXPECT_DOUBLE_EQ(run.walk_angles(k, j), theta[j] * p) << k << " " << j;
    }
  }
  request.walk = 200;  // more than the grid's 24 cells is refused before anything is computed
  EXPECT_THAT([&] { run_axes_grid(request); }, ThrowsMessage<InvalidArgument>(HasSubstr("0 … 120 cells (got 200)")));
  request.walk = 100;  // a walk longer than the grid stops at its last cell
  EXPECT_EQ(run_axes_grid(request).walk.size(), 24u);
}

TEST(AxesGridWalk, ReadsTheMapItIsGivenInsteadOfTheModels) {
  // Qwen3-VL's sections chunked (A2): the w pairs are the last 20, 44 … 63.
  AxesGridRequest request;
  request.rope = resolve_model_rope({"qwen3-vl-8b", ""}, {});
  request.map = make_axis_map({{24, 20, 20}, SectionOrder::Chunked}, 64);
  EXPECT_EQ(run_axes_grid(request).differing, range(44, 64, 1));
}

TEST(AxesGridErrors, RefusesAOneAxisModelAndAPatchOutsideTheGrid) {
  AxesGridRequest plain;
  plain.rope = resolve_model_rope({"llama-3.1-8b", ""}, {});
  EXPECT_THAT([&] { run_axes_grid(plain); },
              ThrowsMessage<InvalidArgument>(HasSubstr("reads one position, not a frame, a row and a column")));
  AxesGridRequest edge;
  edge.rope = resolve_model_rope({"qwen2-vl-7b", ""}, {});
  edge.patch = {0, 0, 3};  // its right neighbour is column 4 of 4
  EXPECT_THAT([&] { run_axes_grid(edge); }, ThrowsMessage<InvalidArgument>(HasSubstr("must lie in the grid 2×3×4")));
  edge.patch = {0, 0, 0};
  edge.rows = 17;
  EXPECT_THAT([&] { run_axes_grid(edge); }, ThrowsMessage<InvalidArgument>(HasSubstr("must be in 1 … 16 (got 17)")));
}

}  // namespace
}  // namespace rope
