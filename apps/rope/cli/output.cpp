#include "rope/cli/output.hpp"

#include <algorithm>
#include <cerrno>
#include <optional>
#include <fmt/format.h>
#include <unistd.h>

#include "rope/io/atomic_file.hpp"
#include "rope/io/utf8.hpp"

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
    write_csv(table, [&](std::string_view chunk) { out.write(chunk.data(), static_cast<std::streamsize>(chunk.size())); });
    return;
  }
  StagedOutputs local;
  StagedOutputs* batch = current_output_batch();
  OutputFile& file = (batch != nullptr ? *batch : local).stage(target);
  write_csv(table, [&](std::string_view chunk) { file.write(chunk); });
  if (batch == nullptr) local.commit();
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

std::string escape_controls(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t start = i;
    const std::optional<char32_t> cp = decode_utf8(text, i);
    if (!cp) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(text[start]));
    } else if (*cp == '\n') {
      out += "\\n";
    } else if (*cp == '\t') {
      out += "\\t";
    } else if (*cp == '\r') {
      out += "\\r";
    } else if (*cp == 0x1b) {
      out += "\\e";
    } else if (*cp < 0x20 || *cp == 0x7f) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned>(*cp));
    } else if (*cp >= 0x80 && *cp <= 0x9f) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned>(*cp));
    } else {
      out.append(text.substr(start, i - start));
    }
  }
  return out;
}

}  // namespace rope::cli
