#include "rope/report/printing.hpp"
#include "rope/report/text.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <optional>

#include "rope/io/csv.hpp"
#include "rope/core/utf8.hpp"

namespace rope {

std::vector<std::string> matrix_lines(const Eigen::MatrixXd& m, const MatrixFormat& f) {
  bool shortest = f.shortest;
  for (Eigen::Index k = 0; k < m.size() && shortest; ++k) shortest = format_number(m.data()[k]).size() <= 9;
  std::vector<std::string> cells;
  std::size_t width = f.min_width;
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    for (Eigen::Index j = 0; j < m.cols(); ++j) {
      std::string cell = m(i, j) == 0.0 ? "0"
                         : shortest     ? format_number(m(i, j))
                                        : fmt::format("{:.{}f}", m(i, j), f.digits);
      if (f.no_negative_zero && cell == "-0.000000") cell = "0.000000";
      width = std::max(width, cell.size());
      cells.push_back(cell);
    }
  }
  std::vector<std::string> lines;
  if (f.indices) {
    std::string header = fmt::format("{:>4}", "i\\j");
    for (Eigen::Index j = 0; j < m.cols(); ++j) header += fmt::format("{}{:>{}}", f.separator, j, width);
    lines.push_back(header);
  }
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    std::string line = f.indices ? fmt::format("{:>4}", i) : f.brackets ? "[ " : "";
    for (Eigen::Index j = 0; j < m.cols(); ++j) {
      line += fmt::format("{}{:>{}}", j == 0 && !f.indices ? "" : f.separator,
                          cells[static_cast<std::size_t>(i * m.cols() + j)], width);
    }
    lines.push_back(f.brackets ? line + " ]" : line);
  }
  return lines;
}

void print_matrix(std::ostream& out, const Eigen::MatrixXd& m, const MatrixFormat& format, const std::string& indent) {
  for (const std::string& line : matrix_lines(m, format)) out << indent << line << '\n';
}

std::size_t columns(std::string_view s) { return display_width(s); }

std::string pad(std::string s, std::size_t width) {
  const std::size_t w = columns(s);
  if (w < width) s.append(width - w, ' ');
  return s;
}

std::string shorten_middle(std::string_view s, std::size_t width) {
  if (columns(s) <= width) return std::string(s);
  if (width == 0) return "";
  std::vector<std::string_view> chars;  // whole characters, never a byte of one
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t start = i;
    if (!decode_utf8(s, i)) i = start + 1;
    chars.push_back(s.substr(start, i - start));
  }
  const std::size_t keep = width - 1;  // the ellipsis takes one column
  const std::size_t head_budget = (keep + 1) / 2, tail_budget = keep / 2;
  std::string head, tail;
  std::size_t used = 0, first = 0;
  for (; first < chars.size() && used + columns(chars[first]) <= head_budget; ++first) {
    used += columns(chars[first]);
    head += chars[first];
  }
  used = 0;
  for (std::size_t last = chars.size(); last > first && used + columns(chars[last - 1]) <= tail_budget; --last) {
    used += columns(chars[last - 1]);
    tail.insert(0, chars[last - 1]);
  }
  return head + "…" + tail;
}

std::vector<std::string> wrapped_list(const std::string& prefix, const std::vector<std::string>& items,
                                      std::size_t width) {
  std::vector<std::string> lines;
  std::string line = prefix + "[";
  const std::string indent(columns(line), ' ');
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string piece = items[i] + (i + 1 < items.size() ? "," : "]");
    // A piece is added to a line that holds at least one item only while the line stays within width.
    if (line.size() > prefix.size() + 1 && line != indent && columns(line) + 1 + columns(piece) > width) {
      lines.push_back(line);
      line = indent;
    }
    line += (line.back() == '[' || line == indent ? "" : " ") + piece;
  }
  if (items.empty()) line += "]";
  lines.push_back(line);
  return lines;
}

namespace {

/// The byte offset of the last space of `line` at which the text before it fits `width` columns, or npos.
std::size_t break_at(std::string_view line, std::size_t first, std::size_t width) {
  std::size_t best = std::string_view::npos;
  for (std::size_t i = first; i < line.size(); ++i) {
    if (line[i] != ' ') continue;
    if (columns(line.substr(0, i)) > width) break;
    if (i > 0 && line[i - 1] != ' ') best = i;
  }
  return best;
}

}  // namespace

std::string wrap_lines(std::string_view text, std::size_t width) {
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    std::string line(text.substr(start, end - start));
    const std::size_t lead = line.find_first_not_of(' ');
    while (columns(line) > width && lead != std::string::npos) {
      const std::size_t cut = break_at(line, lead, width);
      if (cut == std::string::npos) break;
      const std::size_t column_start = line.rfind("  ", cut);
      const std::size_t indent = column_start != std::string::npos && column_start >= lead
                                     ? columns(std::string_view(line).substr(0, column_start + 2))
                                     : lead + 2;
      out += line.substr(0, cut) + '\n';
      const std::size_t rest = line.find_first_not_of(' ', cut);
      line = std::string(indent, ' ') + (rest == std::string::npos ? "" : line.substr(rest));
      if (indent >= width / 2) break;  // no room left to wrap into: keep the rest on one line
    }
    out += line;
    if (end < text.size()) out += '\n';
    start = end + 1;
  }
  return out;
}

std::string g4(double x) { return fmt::format("{:.4g}", x); }

std::string fx(double x) {
  std::string s = fmt::format("{:.6f}", x);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return s;
}

void print_vectors(std::ostream& out, const std::string& name, const Eigen::MatrixXd& rows) {
  for (Eigen::Index r = 0; r < rows.rows(); ++r) {
    std::vector<std::string> items;
    for (Eigen::Index c = 0; c < rows.cols(); ++c) items.push_back(format_number(rows(r, c)));
    const std::string label = rows.rows() == 1 ? name : fmt::format("{}_{}", name, r);
    for (const std::string& line : wrapped_list(fmt::format("  {} = ", label), items)) out << line << '\n';
  }
}

}  // namespace rope
