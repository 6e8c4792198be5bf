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
  // Chinese prose takes full-width parentheses (po/glossary.md): t（时间）.
  return fmt::format(t.zh() ? "{}（{}）" : "{} ({})", axis_letter(axis), axis_name(axis).in(t.zh()));
}

std::string order_name(SectionOrder order, const Text& t) {
  switch (order) {
    case SectionOrder::Chunked: return t.tr("chunked");
    case SectionOrder::Interleaved: return t.tr("interleaved");
    case SectionOrder::GgmlMrope: return "llama.cpp MROPE";
    case SectionOrder::GgmlImrope: return "llama.cpp IMROPE";
    case SectionOrder::Vision: return t.tr("2-D vision");
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
      p.multi() ? "" : t.tr("\n  one number m = {0} stands for the patch (row, column) = ({0}, {0})", p.text());
  return t.tr("2-D vision RoPE ({0}, {1}): pair i turns by {2}, p the patch's row h or column w\n"
              "  as the pair's axis says: {3} (docs/multi-axis.md (V1))",
              map.vision_kind, map.vision_equation, angle, axis_pattern(map)) + single;
}

void print_axis_summary(std::ostream& out, const AxisMap& map, const Eigen::VectorXd& theta, const Text& t) {
  if (map.vision()) {
    out << t.tr("2-D vision RoPE ({0}): each pair turns with the patch's row h or column w{1} ((V1), {2})\n",
                map.vision_kind,
                map.position_offset != 0 ? t.tr(", counted from {0}", format_number(map.position_offset))
                                             : "",
                map.vision_equation);
  } else {
    out << t.tr("M-RoPE: mrope_section [{0}], {1} (docs/multi-axis.md (A1), {2})\n",
                  fmt::join(map.source.sections, ", "),
                  order_name(map.source.order, t), axis_rule(map.source.order));
  }
  out << fmt::format("  {:<14}{:>6}  {:<24}{}\n", t.tr("axis"), t.tr("pairs"), t.tr("pair indices"),
                     t.tr("wavelengths (positions)"));
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
