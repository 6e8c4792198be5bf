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
    } else if (n == 2) {
      run = fmt::format("{}, {}", pairs[i], pairs[i + 1]);
    } else if (pairs[i + 1] - pairs[i] == 1) {
      run = fmt::format("{} … {}", pairs[i], pairs[end - 1]);
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

std::string order_name(SectionOrder order, const Text& t) {
  switch (order) {
    case SectionOrder::Chunked: return t("chunked", "分块");
    case SectionOrder::Interleaved: return t("interleaved", "交错");
    case SectionOrder::GgmlMrope: return "llama.cpp MROPE";
    case SectionOrder::GgmlImrope: return "llama.cpp IMROPE";
    case SectionOrder::Vision: return t("2-D vision", "二维视觉");
  }
  return std::string(to_string(order));
}

const char* axis_rule(SectionOrder order) {
  switch (order) {
    case SectionOrder::Chunked:
    case SectionOrder::GgmlMrope: return "(A2)";
    case SectionOrder::Interleaved: return "(A3)";
    case SectionOrder::GgmlImrope: return "(A4)";
    case SectionOrder::Vision: return "(V1)";
  }
  return "(A2)";
}

void axes_json(nlohmann::json& j, const AxisMap& map) {
  if (map.vision()) {
    j["vision"] = map.vision_kind;
    j["position_offset"] = map.position_offset;
  } else {
    j["mrope_section"] = map.source.sections;
    j["mrope_order"] = std::string(to_string(map.source.order));
  }
  j["position_axes"] = map.components();
  j["pair_axis"] = map.pair_axis;
}

std::string vision_map_line(const AxisMap& map, const AxisPosition& p, const Text& t) {
  const std::string angle =
      map.position_offset != 0 ? fmt::format("θ_i·(p + {})", format_number(map.position_offset)) : std::string("θ_i·p");
  const std::string single =
      p.multi() ? "" : t.format("\n  one number m = {0} stands for the patch (row, column) = ({0}, {0})",
                                "\n  一个数 m = {0} 表示块 (行,列) = ({0}, {0})", p.text());
  return t.format("2-D vision RoPE ({}, {}): pair i turns by {}, p the patch's row h or column w\n"
                  "  as the pair's axis says: {} (docs/multi-axis.md (V1))",
                  "二维视觉 RoPE({},{}):第 i 对转 {},p 为块的行 h 或列 w\n  由该对所属的轴决定:{}(docs/multi-axis.md (V1))",
                  map.vision_kind, map.vision_equation, angle, axis_pattern(map)) + single;
}

void print_axis_summary(std::ostream& out, const AxisMap& map, const Eigen::VectorXd& theta, const Text& t) {
  if (map.vision()) {
    out << t.format("2-D vision RoPE ({}): each pair turns with the patch's row h or column w{} ((V1), {})\n",
                    "二维视觉 RoPE({}):每一对随块的行 h 或列 w 旋转{}((V1)、{})\n", map.vision_kind,
                    map.position_offset != 0 ? t.format(", counted from {}", ",从 {} 开始计数", format_number(map.position_offset))
                                             : "",
                    map.vision_equation);
  } else {
    out << t.format("M-RoPE: mrope_section [{}], {} (docs/multi-axis.md (A1), {})\n",
                  "M-RoPE:mrope_section [{}],{}(docs/multi-axis.md (A1)、{})\n", fmt::join(map.source.sections, ", "),
                  order_name(map.source.order, t), axis_rule(map.source.order));
  }
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
