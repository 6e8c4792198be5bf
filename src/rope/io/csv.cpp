#include "rope/io/csv.hpp"

#include <algorithm>
#include <exception>
#include <iterator>
#include <thread>
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

namespace {

/// Rows [from, to) of the table appended to `out`, each number as format_number writes it (in place: no string per
/// number, a 100 000-row CSV is 200 000 of them); `flush` is called whenever `out` passes 64 KiB.
template <class Flush>
void append_rows(const Table& table, Eigen::Index from, Eigen::Index to, std::string& out, const Flush& flush) {
  for (Eigen::Index r = from; r < to; ++r) {
    for (std::size_t c = 0; c < table.columns.size(); ++c) {
      if (c > 0) out += ',';
      const double x = table.columns[c][r];
      if (x == 0.0) {
        out += '0';
      } else {
        fmt::format_to(std::back_inserter(out), FMT_COMPILE("{}"), x);
      }
    }
    out += '\n';
    if (out.size() >= (1u << 16)) flush(out);
  }
}

/// From this many rows a second thread formats the table's second half while the first is formatted and written:
/// formatting is most of a long CSV's time (`rope decay --points 100000 --csv`: a third of the process), and the
/// second half's text (about 20 bytes a number, the table itself 8) is held until the first half is written.
constexpr Eigen::Index kParallelRows = 1 << 14;

}  // namespace

void write_csv(const Table& table, const std::function<void(std::string_view)>& write) {
  check_table(table);
  const Eigen::Index rows = table.columns.empty() ? 0 : table.columns.front().size();
  std::string out = fmt::format("{}\n", fmt::join(table.header, ","));
  out.reserve((1u << 16) + 256);
  const auto flush = [&](std::string& chunk) {
    write(chunk);
    chunk.clear();
  };
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
  const bool one_thread = true;  // the live page's WebAssembly has no threads
#else
  const bool one_thread = rows < kParallelRows;
#endif
  if (one_thread) {
    append_rows(table, 0, rows, out, flush);
    write(out);
    return;
  }
  const Eigen::Index half = rows / 2;
  std::string tail;
  std::exception_ptr failed;
  std::thread second([&] {
    try {
      // about 20 bytes a number and its comma: the text grows without copying itself
      tail.reserve(static_cast<std::size_t>(rows - half) * (table.columns.size() * 20 + 1));
      append_rows(table, half, rows, tail, [](std::string&) {});
    } catch (...) {
      failed = std::current_exception();
    }
  });
  try {
    append_rows(table, 0, half, out, flush);
    write(out);
  } catch (...) {
    second.join();
    throw;
  }
  second.join();
  if (failed) std::rethrow_exception(failed);
  write(tail);
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
