#include "rope/analysis/teaching/axes_grid.hpp"

#include <algorithm>

#include "rope/core/error.hpp"
#include "rope/core/message.hpp"
#include "rope/models/rope_spec.hpp"

namespace rope {

namespace {

AxisPosition at(const std::array<int, 3>& p) {
  AxisPosition a;
  a.count = 3;
  for (std::size_t k = 0; k < 3; ++k) a.value[k] = p[k];
  return a;
}

}  // namespace

AxesGridRun run_axes_grid(const AxesGridRequest& request) {
  RopeSpec spec = request.rope.spec;
  if (request.map) spec.axes = *request.map;
  if (!spec.axes || spec.axes->axes != 3)
    throw InvalidArgument(error_msg("'{0}' reads one position, not a frame, a row and a column", spec.name));
  const std::array<int, 3> sides{request.frames, request.rows, request.columns};
  for (int side : sides) {
    if (side < 1 || side > kMaxAxesGridSide)
      throw InvalidArgument(
          error_msg("the grid's frames, rows and columns must be in 1 … {0} (got {1})", kMaxAxesGridSide, side));
  }
  if (request.columns < 2) throw InvalidArgument(error_msg("the grid needs 2 columns or more (got 1)"));
  const std::array<int, 3>& p = request.patch;
  if (p[0] < 0 || p[0] >= request.frames || p[1] < 0 || p[1] >= request.rows || p[2] < 0 ||
      p[2] + 1 >= request.columns) {
    throw InvalidArgument(
        error_msg("the patch ({0}, {1}, {2}) and its right neighbour must lie in the grid {3}×{4}×{5}", p[0], p[1],
                  p[2], request.frames, request.rows, request.columns));
  }
  if (request.walk < 0 || request.walk > kMaxAxesGridWalk)
    throw InvalidArgument(error_msg("the walk must visit 0 … {0} cells (got {1})", kMaxAxesGridWalk, request.walk));
  AxesGridRun run;
  run.frames = request.frames;
  run.rows = request.rows;
  run.columns = request.columns;
  run.pair_axis = spec.axes->pair_axis;
  run.first = p;
  run.second = {p[0], p[1], p[2] + 1};
  run.angle_first = spec_angles(spec, at(run.first));
  run.angle_second = spec_angles(spec, at(run.second));
  bool only_w = true;
  for (std::size_t j = 0; j < run.pair_axis.size(); ++j) {
    const int axis = run.pair_axis[j];
    if (axis >= 0 && axis < 3) ++run.per_axis[static_cast<std::size_t>(axis)];
    const bool differs =
        run.angle_first[static_cast<Eigen::Index>(j)] != run.angle_second[static_cast<Eigen::Index>(j)];
    if (differs) run.differing.push_back(static_cast<int>(j));
    if (differs != (axis == 2)) only_w = false;
  }
  run.only_w = only_w;
  // One step along each axis, where the grid has the cell: the pairs that read that axis alone should differ.
  for (const int axis : {2, 1, 0}) {
    const auto a = static_cast<std::size_t>(axis);
    if (p[a] + 1 >= sides[a]) continue;
    AxesGridNeighbour n;
    n.axis = axis;
    n.patch = p;
    ++n.patch[a];
    const Eigen::VectorXd angle = spec_angles(spec, at(n.patch));
    n.only_axis = true;
    for (std::size_t j = 0; j < run.pair_axis.size(); ++j) {
      const bool differs = run.angle_first[static_cast<Eigen::Index>(j)] != angle[static_cast<Eigen::Index>(j)];
      if (differs) n.differing.push_back(static_cast<int>(j));
      if (differs != (run.pair_axis[j] == axis)) n.only_axis = false;
    }
    run.neighbours.push_back(std::move(n));
  }
  const int cells = request.frames * request.rows * request.columns;
  const int walked = std::min(request.walk, cells);
  run.walk_angles.resize(walked, static_cast<Eigen::Index>(run.pair_axis.size()));
  for (int k = 0; k < walked; ++k) {
    const std::array<int, 3> cell{k / (request.rows * request.columns), k / request.columns % request.rows,
                                  k % request.columns};
    run.walk.push_back(cell);
    run.walk_angles.row(k) = spec_angles(spec, at(cell)).transpose();
  }
  return run;
}

}  // namespace rope
