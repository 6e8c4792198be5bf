#include "rope/cli/output.hpp"

#include <algorithm>
#include <cerrno>
#include <optional>
#include <fmt/format.h>
#include <unistd.h>

#include "rope/io/atomic_file.hpp"
#include "rope/core/utf8.hpp"

namespace rope::cli {

void write_output(const std::string& target, std::string_view content, std::ostream& out) {
  if (target == "-") {
    out << content;
  } else {
    write_file_atomically(target, content);
  }
}

void write_output(const std::string& target, const Table& table, std::ostream& out) {
  if (target == "-") {
    write_csv(table,
              [&](std::string_view chunk) { out.write(chunk.data(), static_cast<std::streamsize>(chunk.size())); });
    return;
  }
  write_staged(target, [&](OutputFile& file) { write_csv(table, [&](std::string_view chunk) { file.write(chunk); }); });
}

void write_output_pieces(const std::string& target,
                         const std::function<void(const std::function<void(std::string_view)>&)>& produce,
                         std::ostream& out) {
  if (target == "-") {
    produce([&](std::string_view chunk) { out.write(chunk.data(), static_cast<std::streamsize>(chunk.size())); });
    return;
  }
  write_staged(target, [&](OutputFile& file) { produce([&](std::string_view chunk) { file.write(chunk); }); });
}

// -------------------------------------------------------------------------------------------------

bool FdOutputBuffer::drain() {
  const char* p = pbase();
  while (p < pptr()) {
    const ssize_t n = ::write(fd_, p, static_cast<std::size_t>(pptr() - p));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (error_ == 0) error_ = n < 0 ? errno : EIO;
      setp(buffer_, buffer_ + sizeof buffer_);
      return false;
    }
    p += n;
  }
  setp(buffer_, buffer_ + sizeof buffer_);
  return true;
}

FdOutputBuffer::int_type FdOutputBuffer::overflow(int_type c) {
  if (error_ != 0 || !drain()) return traits_type::eof();
  if (!traits_type::eq_int_type(c, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
  }
  return traits_type::not_eof(c);
}

int FdOutputBuffer::sync() { return error_ == 0 && drain() ? 0 : -1; }

std::streamsize FdOutputBuffer::xsputn(const char* s, std::streamsize n) {
  if (error_ != 0) return 0;
  std::streamsize done = 0;
  while (done < n) {
    if (pptr() == epptr() && !drain()) return done;
    const std::streamsize room = epptr() - pptr();
    const std::streamsize k = std::min(room, n - done);
    traits_type::copy(pptr(), s + done, static_cast<std::size_t>(k));
    pbump(static_cast<int>(k));
    done += k;
  }
  return done;
}

// -------------------------------------------------------------------------------------------------

namespace {

/// How many bytes at the end of `s` are the start of a UTF-8 sequence still missing its last bytes.
std::size_t incomplete_tail(const std::string& s) {
  for (std::size_t k = 1; k <= 3 && k <= s.size(); ++k) {
    const auto b = static_cast<unsigned char>(s[s.size() - k]);
    if (b < 0x80) return 0;
    if (b >= 0xc0) {
      const std::size_t need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
      return need > k ? k : 0;
    }
  }
  return 0;
}

}  // namespace

bool TerminalSafeBuffer::pass(bool all) {
  const std::size_t keep = all ? 0 : incomplete_tail(pending_);
  const std::string safe =
      escape_controls(std::string_view(pending_).substr(0, pending_.size() - keep), kWholeText, Lines::Kept);
  pending_.erase(0, pending_.size() - keep);
  raw_.write(safe.data(), static_cast<std::streamsize>(safe.size()));
  return static_cast<bool>(raw_);
}

TerminalSafeBuffer::int_type TerminalSafeBuffer::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  pending_ += traits_type::to_char_type(c);
  return pass(false) ? c : traits_type::eof();
}

std::streamsize TerminalSafeBuffer::xsputn(const char* s, std::streamsize n) {
  pending_.append(s, static_cast<std::size_t>(n));
  return pass(false) ? n : 0;
}

int TerminalSafeBuffer::sync() {
  const bool ok = pass(true);
  raw_.flush();
  return ok && raw_ ? 0 : -1;
}

}  // namespace rope::cli
