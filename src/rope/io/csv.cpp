#include "rope/io/csv.hpp"

#include <algorithm>
#include <iterator>
#include <fmt/compile.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "rope/core/error.hpp"

namespace rope {

std::string format_number(double x) {
  if (x == 0.0) return "0";
  return fmt::format("{}", x);
}

std::string with_digits(double x, int digits) {
  if (digits <= 0) return format_number(x);
  return fmt::format("{:.{}g}", x, std::min(digits, 17));
}

namespace {

void check_table(const Table& table) {
  if (table.header.size() != table.columns.size()) {
    throw InvalidArgument(
        error_msg("table has {0} header names for {1} columns", table.header.size(), table.columns.size()));
  }
  const Eigen::Index rows = table.columns.empty() ? 0 : table.columns.front().size();
  for (const auto& column : table.columns) {
    if (column.size() != rows) {
      throw InvalidArgument(error_msg("table columns differ in length ({0} and {1})", rows, column.size()));
    }
  }
}

}  // namespace

void write_csv(const Table& table, const std::function<void(std::string_view)>& write) {
  check_table(table);
  const Eigen::Index rows = table.columns.empty() ? 0 : table.columns.front().size();
  std::string out = fmt::format("{}\n", fmt::join(table.header, ","));
  out.reserve((1u << 16) + 256);
  for (Eigen::Index r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < table.columns.size(); ++c) {
      if (c > 0) out += ',';
      const double x = table.columns[c][r];
      // format_number's text, written in place (no string per number: a 100 000-row CSV is 200 000 of them)
      if (x == 0.0) {
        out += '0';
      } else {
        fmt::format_to(std::back_inserter(out), FMT_COMPILE("{}"), x);
      }
    }
    out += '\n';
    if (out.size() >= (1u << 16)) {
      write(out);
      out.clear();
    }
  }
  write(out);
}

std::string to_csv(const Table& table) {
  std::string out;
  write_csv(table, [&](std::string_view chunk) { out.append(chunk.data(), chunk.size()); });
  return out;
}

std::string to_csv(const Eigen::MatrixXd& matrix, const std::string& column_prefix) {
  std::string out;
  for (Eigen::Index c = 0; c < matrix.cols(); ++c) out += fmt::format("{}{}{}", c > 0 ? "," : "", column_prefix, c);
  out += '\n';
  for (Eigen::Index r = 0; r < matrix.rows(); ++r) {
    for (Eigen::Index c = 0; c < matrix.cols(); ++c) {
      if (c > 0) out += ',';
      out += format_number(matrix(r, c));
    }
    out += '\n';
  }
  return out;
}

}  // namespace rope
