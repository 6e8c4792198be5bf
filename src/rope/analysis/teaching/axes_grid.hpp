/// @file
/// The live lesson page's Part 9 (docs/classroom.md): a small latent grid of frames × rows × columns, one
/// patch of it at position (t, h, w) = (frame, row, column), and which pair of the head reads which axis
/// (the model's axis map, rope/models/axes.hpp (A1)–(A3)). Two patches of one row differ in their column alone,
/// so only the pairs that read w turn them apart: the run computes each pair's angle at both patches
/// (spec_angles, (A1)) and lists the pairs whose angles differ, so the page shows it rather than states it.
#pragma once

#include <Eigen/Core>
#include <array>
#include <optional>
#include <vector>

#include "rope/models/resolve.hpp"

namespace rope {

/// Largest frames, rows or columns of the grid: a picture the page draws cell by cell.
inline constexpr int kMaxAxesGridSide = 16;
/// Most cells of a walk (one GIF frame each): rope's --frames limit.
inline constexpr int kMaxAxesGridWalk = 120;

struct AxesGridRequest {
  ModelRope rope;  ///< a multi-axis model's RoPE (its spec.axes), resolved once
  int frames = 2;
  int rows = 3;
  int columns = 4;
  std::array<int, 3> patch{0, 0, 0};  ///< (frame, row, column) of the first patch; the second is one column right
  /// The axis map to read instead of the spec's own (rope sections: a map of typed sections); nullopt: the spec's.
  std::optional<AxisMap> map;
  /// How many cells to walk, one after the other in the order frame, row, column (the column fastest), from
  /// (0, 0, 0): the angles at each (a GIF of the grid's rotations); 0: none.
  int walk = 0;
};

/// The patch's neighbour one step along one axis of the grid: which pairs turn the two apart.
struct AxesGridNeighbour {
  int axis = 2;                ///< the axis stepped: 0 t (the next frame), 1 h (the next row), 2 w (the next column)
  std::array<int, 3> patch{};  ///< the neighbour (frame, row, column)
  std::vector<int> differing;  ///< the pairs whose angles differ between the patch and it
  bool only_axis = false;      ///< every differing pair reads `axis`, and every pair of `axis` differs
};

struct AxesGridRun {
  int frames = 0, rows = 0, columns = 0;
  std::vector<int> pair_axis;     ///< a(j): 0 t, 1 h, 2 w (, 3 e)
  std::array<int, 3> per_axis{};  ///< how many pairs read t, h, w
  std::array<int, 3> first{};     ///< the first patch (frame, row, column)
  std::array<int, 3> second{};    ///< the patch one column to its right, in the same row
  Eigen::VectorXd angle_first;    ///< θ_j · p_a(j) at the first patch
  Eigen::VectorXd angle_second;   ///< at the second
  std::vector<int> differing;     ///< the pairs whose angles differ between the two patches
  bool only_w = false;            ///< every differing pair reads w, and every w pair differs
  /// The next column's, row's and frame's patch, in that order, each where the grid has it (the column's is `second`).
  std::vector<AxesGridNeighbour> neighbours;
  std::vector<std::array<int, 3>> walk;  ///< the cells walked
  Eigen::MatrixXd walk_angles;           ///< θ_j · p_a(j) at each cell walked (one row per cell)
};

/// @throws InvalidArgument for a model (or map) without three axes, a side outside 1 … kMaxAxesGridSide, fewer than 2
/// columns, a patch outside the grid (its right neighbour inside), or a walk outside 0 … kMaxAxesGridWalk.
AxesGridRun run_axes_grid(const AxesGridRequest& request);

}  // namespace rope
