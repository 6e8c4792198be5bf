#include "rope/cli/printing.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <optional>

#include "rope/io/csv.hpp"
#include "rope/io/utf8.hpp"

namespace rope::cli {

std::vector<std::string> matrix_lines(const Eigen::MatrixXd& m, const MatrixFormat& f) {
  bool shortest = f.shortest;
  for (Eigen::Index k = 0; k < m.size() && shortest; ++k) shortest = format_number(m.data()[k]).size() <= 9;
  std::vector<std::string> cells;
  std::size_t width = f.min_width;
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    for (Eigen::Index j = 0; j < m.cols(); ++j) {
      std::string cell = m(i, j) == 0.0 ? "0" : shortest ? format_number(m(i, j)) : fmt::format("{:.{}f}", m(i, j), f.digits);
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

std::size_t columns(std::string_view s) {
  std::size_t w = 0;
  for (std::size_t i = 0; i < s.size();) {
    const std::optional<char32_t> decoded = decode_utf8(s, i);
    if (!decoded) {  // an invalid byte is shown as one replacement character
      ++w;
      continue;
    }
    const char32_t cp = *decoded;
    if (cp >= 0x300 && cp <= 0x36F) continue;  // combining diacritical marks take no column
    const bool wide = (cp >= 0x2E80 && cp <= 0x9FFF) || (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFF00 && cp <= 0xFF60);
    w += wide ? 2 : 1;
  }
  return w;
}

std::string pad(std::string s, std::size_t width) {
  const std::size_t w = columns(s);
  if (w < width) s.append(width - w, ' ');
  return s;
}

std::string fx(double x) {
  std::string s = fmt::format("{:.6f}", x);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return s;
}

}  // namespace rope::cli
