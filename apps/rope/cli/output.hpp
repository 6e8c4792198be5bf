/// @file
/// Where rope's output goes: a file (staged in the run's OutputBatch and written atomically with the
/// run's other outputs, rope/io/atomic_file.hpp) or, for "-", standard output; standard output itself
/// (a buffer that remembers why a write failed, so "cannot write standard output: No space left on
/// device" names the reason); and the escaping of every message rope prints on stderr.
#pragma once

#include <functional>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>

#include "rope/io/csv.hpp"
#include "rope/core/utf8.hpp"

namespace rope::cli {

using rope::escape_controls;  // core/utf8.hpp

/// Writes `content` to the file `target`, or to `out` when target is "-".
/// @throws rope::IoError when the file cannot be written (nothing is left behind).
void write_output(const std::string& target, std::string_view content, std::ostream& out);

/// Writes `table` as CSV to the file `target`, or to `out` for "-", row by row: never as one string.
/// @throws rope::IoError as above.
void write_output(const std::string& target, const Table& table, std::ostream& out);

/// Writes what `produce` hands its writer, piece by piece, to the file `target`, or to `out` for "-" (a
/// report's CSV through report/emit.hpp's emit_csv). @throws rope::IoError as above.
void write_output_pieces(const std::string& target,
                         const std::function<void(const std::function<void(std::string_view)>&)>& produce,
                         std::ostream& out);

/// A stream buffer writing to a file descriptor (rope's standard output), which keeps the errno of its
/// first failed write.
class FdOutputBuffer : public std::streambuf {
 public:
  explicit FdOutputBuffer(int fd) : fd_(fd) { setp(buffer_, buffer_ + sizeof buffer_); }
  FdOutputBuffer(const FdOutputBuffer&) = delete;
  FdOutputBuffer& operator=(const FdOutputBuffer&) = delete;
  ~FdOutputBuffer() override { sync(); }
  /// 0, or the errno of the first write that failed.
  int error() const { return error_; }
  int fd() const { return fd_; }

 protected:
  int_type overflow(int_type c) override;
  int sync() override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;

 private:
  bool drain();
  int fd_;
  int error_ = 0;
  char buffer_[1 << 16];
};

/// The standard output every command writes to: everything passes through escape_controls(…, true),
/// so that no string that came from a file or a path (a config's model_type, a layer type, a file
/// name) can reach the terminal as an escape sequence. Unbuffered (only a UTF-8 sequence split between
/// two writes waits for its end), so its text and what FigureTerminal draws on `raw` keep their order.
class TerminalSafeBuffer : public std::streambuf {
 public:
  explicit TerminalSafeBuffer(std::ostream& raw) : raw_(raw) {}
  TerminalSafeBuffer(const TerminalSafeBuffer&) = delete;
  TerminalSafeBuffer& operator=(const TerminalSafeBuffer&) = delete;
  ~TerminalSafeBuffer() override { sync(); }

 protected:
  int_type overflow(int_type c) override;
  int sync() override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;

 private:
  bool pass(bool all);
  std::ostream& raw_;
  std::string pending_;
};

}  // namespace rope::cli
