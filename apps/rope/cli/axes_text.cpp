#include "rope/cli/axes_text.hpp"

#include <cmath>
#include <fmt/format.h>

#include "rope/io/csv.hpp"
#include "rope/report/rope_text.hpp"

namespace rope::cli {

std::string axis_label(int axis, const Text& t) { return rope::axis_label(axis, t.lang()); }

std::string order_name(SectionOrder order, const Text& t) { return rope::order_name(order, t.lang()); }

void print_axis_summary(std::ostream& out, const AxisMap& map, const Eigen::VectorXd& theta, const Text& t) {
  rope::print_axis_summary(out, map, theta, t.lang());
}

}  // namespace rope::cli
