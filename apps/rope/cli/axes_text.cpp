#include "rope/cli/axes_text.hpp"

#include <cmath>
#include <fmt/format.h>

#include "rope/io/csv.hpp"

namespace rope::cli {

std::string pair_list(const std::vector<int>& pairs) {
  std::string s;
  std::size_t i = 0;
  while (i < pairs.size()) {
    // The longest run from pairs[i] with a constant step.
    std::size_t end = i + 1;
    if (end < pairs.size()) {
      const int step = pairs[end] - pairs[i];
      while (end + 1 < pairs.size() && pairs[end + 1] - pairs[end] == step) ++end;
      ++end;
    }
    const std::size_t n = end - i;
    std::string run;
    if (n == 1) {
      run = std::to_string(pairs[i]);
    } else if (pairs[i + 1] - pairs[i] == 1) {
      run = fmt::format("{} … {}", pairs[i], pairs[end - 1]);
    } else if (n == 2) {
      run = fmt::format("{}, {}", pairs[i], pairs[i + 1]);
    } else {
      run = fmt::format("{}, {}, …, {}", pairs[i], pairs[i + 1], pairs[end - 1]);
    }
    s += (s.empty() ? "" : "; ") + run;
    i = end;
  }
  return s.empty() ? "-" : s;
}

std::string axis_label(int axis, const Text& t) {
  return fmt::format("{} ({})", axis_letter(axis), axis_name(axis).in(t.zh()));
}

const char* axis_rule(SectionOrder order) {
  switch (order) {
    case SectionOrder::Chunked:
    case SectionOrder::GgmlMrope: return "(A2)";
    case SectionOrder::Interleaved: return "(A3)";
    case SectionOrder::GgmlImrope: return "(A4)";
  }
  return "(A2)";
}

void print_axis_summary(std::ostream& out, const AxisMap& map, const Eigen::VectorXd& theta, const Text& t) {
  out << t.format("M-RoPE: mrope_section [{}], {} (docs/multi-axis.md (A1), {})\n",
                  "M-RoPE:mrope_section [{}],{}(docs/multi-axis.md (A1)、{})\n", fmt::join(map.source.sections, ", "),
                  to_string(map.source.order), axis_rule(map.source.order));
  out << fmt::format("  {:<14}{:>6}  {:<24}{}\n", t("axis", "轴"), t("pairs", "对数"), t("pair indices", "维度对编号"),
                     t("wavelengths (positions)", "波长(位置数)"));
  for (const AxisRange& r : axis_ranges(theta, map)) {
    std::vector<int> pairs;
    for (std::size_t j = 0; j < map.pair_axis.size(); ++j) {
      if (map.pair_axis[j] == r.axis) pairs.push_back(static_cast<int>(j));
    }
    const std::string range = r.pairs == 0 ? "-" : fmt::format("{:.6g} … {:.6g}", r.shortest, r.longest);
    const std::string label = axis_label(r.axis, t);
    out << fmt::format("  {:<14}{:>6}  {:<24}{}\n", label, r.pairs, pair_list(pairs), range);
  }
}

}  // namespace rope::cli
