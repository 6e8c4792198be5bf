/// @file
/// Where rope's output goes: a file (staged in the run's OutputBatch and written atomically with the
/// run's other outputs, rope/io/atomic_file.hpp) or, for "-", standard output; standard output itself
/// (a buffer that remembers why a write failed, so "cannot write standard output: No space left on
/// device" names the reason); and the escaping of every message rope prints on stderr.
#pragma once

#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>

#include "rope/io/csv.hpp"

namespace rope::cli {

/// Writes `content` to the file `target`, or to `out` when target is "-".
/// @throws rope::IoError when the file cannot be written (nothing is left behind).
void write_output(const std::string& target, std::string_view content, std::ostream& out);

/// Writes `table` as CSV to the file `target`, or to `out` for "-", row by row: never as one string.
/// @throws rope::IoError as above.
void write_output(const std::string& target, const Table& table, std::ostream& out);

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

/// `text` safe for a terminal: every C0 control, DEL, C1 control (U+0080 … U+009F) and byte that is not
/// UTF-8 is shown escaped (\n, \t, \r, \e, \xNN, \u0085), so no input can move the cursor, retitle or
/// clear the terminal.
std::string escape_controls(std::string_view text);

}  // namespace rope::cli
