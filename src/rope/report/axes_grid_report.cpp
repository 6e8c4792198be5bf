#include "rope/report/axes_grid_report.hpp"

#include <string>

namespace rope {

namespace {

Value triple(const std::array<int, 3>& p) {
  Value v = Value::array();
  for (int x : p) v.push_back(x);
  return v;
}

Value list(const Eigen::VectorXd& x) { return std::vector<double>(x.data(), x.data() + x.size()); }

}  // namespace

Value axes_grid_value(const AxesGridRun& run) {
  Value o = Value::object();
  o["frames"] = run.frames;
  o["rows"] = run.rows;
  o["columns"] = run.columns;
  std::string axes;
  for (int a : run.pair_axis) axes += axis_letter(a);
  o["axes"] = axes;
  Value per = Value::object();
  per["t"] = run.per_axis[0];
  per["h"] = run.per_axis[1];
  per["w"] = run.per_axis[2];
  o["per_axis"] = std::move(per);
  o["first"] = triple(run.first);
  o["second"] = triple(run.second);
  o["angle_first"] = list(run.angle_first);
  o["angle_second"] = list(run.angle_second);
  Value differing = Value::array();
  for (int j : run.differing) differing.push_back(j);
  o["differing"] = std::move(differing);
  o["only_w"] = run.only_w;
  Value neighbours = Value::array();
  for (const AxesGridNeighbour& n : run.neighbours) {
    Value v = Value::object();
    v["axis"] = std::string(1, "thw"[n.axis]);
    v["patch"] = triple(n.patch);
    Value pairs = Value::array();
    for (int j : n.differing) pairs.push_back(j);
    v["differing"] = std::move(pairs);
    v["only_axis"] = n.only_axis;
    neighbours.push_back(std::move(v));
  }
  o["neighbours"] = std::move(neighbours);
  return o;
}

Message axes_grid_sentence(const AxesGridRun& run) {
  const int pairs = static_cast<int>(run.pair_axis.size());
  const int n = static_cast<int>(run.differing.size());
  if (run.only_w) {
    return msg(
        "patches ({0}, {1}, {2}) and ({3}, {4}, {5}) lie in one row: {6} of {7} pairs turn them apart, "
        "just the w pairs",
        run.first[0], run.first[1], run.first[2], run.second[0], run.second[1], run.second[2], n, pairs);
  }
  return msg(
      "patches ({0}, {1}, {2}) and ({3}, {4}, {5}) lie in one row: {6} of {7} pairs turn them apart, "
      "not only the w pairs",
      run.first[0], run.first[1], run.first[2], run.second[0], run.second[1], run.second[2], n, pairs);
}

Message axes_grid_neighbour_sentence(const AxesGridRun& run, const AxesGridNeighbour& n) {
  const int pairs = static_cast<int>(run.pair_axis.size());
  const int k = static_cast<int>(n.differing.size());
  const std::array<int, 3>& b = n.patch;
  switch (n.axis) {
    case 2:
      return n.only_axis ? msg("next column ({0}, {1}, {2}): {3} of {4} pairs turn it apart, just the w pairs", b[0],
                               b[1], b[2], k, pairs)
                         : msg("next column ({0}, {1}, {2}): {3} of {4} pairs turn it apart, not only the w pairs",
                               b[0], b[1], b[2], k, pairs);
    case 1:
      return n.only_axis ? msg("next row ({0}, {1}, {2}): {3} of {4} pairs turn it apart, just the h pairs", b[0], b[1],
                               b[2], k, pairs)
                         : msg("next row ({0}, {1}, {2}): {3} of {4} pairs turn it apart, not only the h pairs", b[0],
                               b[1], b[2], k, pairs);
    default:
      return n.only_axis ? msg("next frame ({0}, {1}, {2}): {3} of {4} pairs turn it apart, just the t pairs", b[0],
                               b[1], b[2], k, pairs)
                         : msg("next frame ({0}, {1}, {2}): {3} of {4} pairs turn it apart, not only the t pairs", b[0],
                               b[1], b[2], k, pairs);
  }
}

}  // namespace rope
