#include "rope/cli/axes_text.hpp"

#include <cmath>
#include <fmt/format.h>

#include "rope/io/csv.hpp"
#include "rope/report/rope_text.hpp"

namespace rope::cli {

std::string axis_label(int axis, const Text& t) { return rope::axis_label(axis, t.lang()); }

std::string order_name(SectionOrder order, const Text& t) { return rope::order_name(order, t.lang()); }

std::string vision_map_line(const AxisMap& map, const AxisPosition& p, const Text& t) {
  const std::string angle =
      map.position_offset != 0 ? fmt::format("θ_i·(p + {})", format_number(map.position_offset)) : std::string("θ_i·p");
  const std::string single =
      p.multi() ? "" : t.tr("\n  one number m = {0} stands for the patch (row, column) = ({0}, {0})", p.text());
  return t.tr(
             "2-D vision RoPE ({0}, {1}): pair i turns by {2}, p the patch's row h or column w\n"
             "  as the pair's axis says: {3} (docs/multi-axis.md (V1))",
             map.vision_kind, map.vision_equation, angle, axis_pattern(map)) +
         single;
}

void print_axis_summary(std::ostream& out, const AxisMap& map, const Eigen::VectorXd& theta, const Text& t) {
  rope::print_axis_summary(out, map, theta, t.lang());
}

}  // namespace rope::cli
