#include "rope/io/csv.hpp"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <fmt/compile.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "rope/core/error.hpp"
#if !defined(__EMSCRIPTEN__) || defined(__EMSCRIPTEN_PTHREADS__)
#include "rope/core/workers.hpp"
#endif

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

/// The table's columns in order (its own, then its views), checked against its header and for one length.
std::vector<const Eigen::VectorXd*> checked_columns(const Table& table) {
  const std::vector<const Eigen::VectorXd*> columns = table.all_columns();
  if (table.header.size() != columns.size()) {
    throw InvalidArgument(error_msg("table has {0} header names for {1} columns", table.header.size(), columns.size()));
  }
  const Eigen::Index rows = columns.empty() ? 0 : columns.front()->size();
  for (const Eigen::VectorXd* column : columns) {
    if (column->size() != rows) {
      throw InvalidArgument(error_msg("table columns differ in length ({0} and {1})", rows, column->size()));
    }
  }
  return columns;
}

/// Rows [from, to) of the table appended to `out`, each number as format_number writes it (in place: no string per
/// number, a 100 000-row CSV is 200 000 of them); `flush` is called whenever `out` passes 64 KiB.
template <class Flush>
void append_rows(const std::vector<const Eigen::VectorXd*>& columns, Eigen::Index from, Eigen::Index to,
                 std::string& out, const Flush& flush) {
  for (Eigen::Index r = from; r < to; ++r) {
    for (std::size_t c = 0; c < columns.size(); ++c) {
      if (c > 0) out += ',';
      const double x = (*columns[c])[r];
      if (x == 0.0) {
        out += '0';
      } else {
        // into a buffer of its own, then appended: fmt's writer for a string's back_inserter grows the string by
        // resizing it (a memset per number), a third of the formatting's time
        char buffer[32];  // the longest shortest form of a double, -2.2250738585072014e-308, is 24
        out.append(buffer, fmt::format_to(buffer, FMT_COMPILE("{}"), x));
      }
    }
    out += '\n';
    if (out.size() >= (1u << 16)) flush(out);
  }
}

#if !defined(__EMSCRIPTEN__) || defined(__EMSCRIPTEN_PTHREADS__)
/// Rows a piece of the text holds when several threads format it (about 160 KB for two columns), and how many
/// pieces may be formatted ahead of the one being written: the text held at once is bounded (about 2.6 MB for two
/// columns) whatever the table's length (rope decay with 10^7 points).
constexpr Eigen::Index kPieceRows = 4096;
constexpr long kPiecesAhead = 16;

/// The table's rows formatted in pieces of kPieceRows by `threads` threads, the calling thread among them, and
/// written in order by the calling thread alone (`write` need not be thread-safe): formatting is most of a long CSV's
/// time (`rope decay --points 100000 --csv`: a third of the process), and a thread that writes formats less.
void write_pieces(const std::vector<const Eigen::VectorXd*>& columns, Eigen::Index rows, int threads,
                  const std::function<void(std::string_view)>& write) {
  const long pieces = static_cast<long>((rows + kPieceRows - 1) / kPieceRows);
  std::vector<std::string> text(static_cast<std::size_t>(pieces));
  std::vector<char> done(static_cast<std::size_t>(pieces), 0);
  std::mutex m;
  std::condition_variable changed;
  long claimed = 0, written = 0;
  bool stop = false;
  std::exception_ptr failed;
  const auto format = [&](long p) {  // outside the lock
    std::string& out = text[static_cast<std::size_t>(p)];
    const Eigen::Index from = p * kPieceRows, to = std::min(rows, from + kPieceRows);
    out.reserve(static_cast<std::size_t>(to - from) * (columns.size() * 25 + 1));
    append_rows(columns, from, to, out, [](std::string&) {});
  };
  const auto claimable = [&] { return claimed < pieces && claimed < written + kPiecesAhead; };
  const auto helper = [&] {
    std::unique_lock<std::mutex> lock(m);
    while (true) {
      changed.wait(lock, [&] { return stop || claimable() || claimed >= pieces; });
      if (stop || claimed >= pieces) return;
      const long p = claimed++;
      lock.unlock();
      try {
        format(p);
      } catch (...) {
        lock.lock();
        if (!failed) failed = std::current_exception();
        stop = true;
        changed.notify_all();
        return;
      }
      lock.lock();
      done[static_cast<std::size_t>(p)] = 1;
      changed.notify_all();
    }
  };
  // The calling thread writes (and formats what no helper has claimed); the helpers on threads of their own
  // (core/workers.hpp: a thread the system refuses leaves its pieces to the others).
  run_workers(threads, [&](int t) {
    if (t > 0) return helper();
    try {
      std::unique_lock<std::mutex> lock(m);
      while (written < pieces && !failed) {
        if (done[static_cast<std::size_t>(written)]) {  // the next piece in order: written, then freed
          std::string piece = std::move(text[static_cast<std::size_t>(written)]);
          lock.unlock();
          write(piece);
          lock.lock();
          ++written;
          changed.notify_all();
        } else if (claimable()) {
          const long p = claimed++;
          lock.unlock();
          format(p);
          lock.lock();
          done[static_cast<std::size_t>(p)] = 1;
        } else {
          changed.wait(lock);
        }
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(m);
      if (!failed) failed = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> lock(m);
      stop = true;
    }
    changed.notify_all();
  });
  if (failed) std::rethrow_exception(failed);
}
#endif

}  // namespace

void write_csv(const Table& table, const std::function<void(std::string_view)>& write) {
  const std::vector<const Eigen::VectorXd*> columns = checked_columns(table);
  const Eigen::Index rows = columns.empty() ? 0 : columns.front()->size();
  std::string out = fmt::format("{}\n", fmt::join(table.header, ","));
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
  const int threads = 1;  // the live page's WebAssembly has no threads
#else
  const int threads = rows > kPieceRows ? worker_count(static_cast<long>((rows + kPieceRows - 1) / kPieceRows)) : 1;
#endif
  if (threads == 1) {
    out.reserve((1u << 16) + 256);
    append_rows(columns, 0, rows, out, [&](std::string& chunk) {
      write(chunk);
      chunk.clear();
    });
    write(out);
    return;
  }
  write(out);
#if !defined(__EMSCRIPTEN__) || defined(__EMSCRIPTEN_PTHREADS__)
  write_pieces(columns, rows, threads, write);
#endif
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
