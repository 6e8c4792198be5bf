#include "rope/io/text_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>
#include <fmt/format.h>
#include <memory>
#include <sys/stat.h>

#include "rope/core/error.hpp"
#include "rope/core/parse.hpp"
#include "rope/io/input_files.hpp"

namespace rope {

std::string BoundedRead::reason() const {
  return error == kNotRegularFile ? std::string("not a regular file (a FIFO, device or socket is not read)")
                                  : std::string(std::strerror(error));
}

BoundedRead read_file_bounded(const std::string& path, std::size_t max_bytes) {
  BoundedRead out;
  // O_NONBLOCK: opening a FIFO with no writer must not wait; the type is checked before any read.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    out.error = errno;
    return out;
  }
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(::fdopen(fd, "rb"), &std::fclose);
  if (!file) {
    out.error = errno;
    ::close(fd);
    return out;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    out.error = errno;
    return out;
  }
  if (S_ISDIR(st.st_mode)) {
    out.error = EISDIR;
    return out;
  }
  note_input_file(fd);
  if (!S_ISREG(st.st_mode)) {
    out.error = kNotRegularFile;
    return out;
  }
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  char buffer[65536];
  while (out.text.size() <= max_bytes) {  // at most one buffer past the limit
    const std::size_t n = std::fread(buffer, 1, sizeof buffer, file.get());
    if (n == 0) {
      if (std::ferror(file.get())) out.error = errno ? errno : EIO;
      break;
    }
    out.text.append(buffer, n);
  }
  return out;
}

std::string read_text_file(const std::string& path, std::string_view what, std::size_t max_bytes) {
  const auto fail = [&](int err) {
    throw IoError(error_msg("cannot read {0} '{1}': {2}", what, path, BoundedRead{{}, err}.reason()));
  };
  if (path.empty()) throw InvalidArgument(error_msg("{0} name is empty (after '@')", what));
  BoundedRead file = read_file_bounded(path, max_bytes);
  if (file.error != 0) fail(file.error);
  std::string& text = file.text;
  if (text.size() > max_bytes) {
    throw InvalidArgument(error_msg("{0} '{1}' is larger than the {2}-byte limit", what, path, max_bytes));
  }
  if (text.find('\0') != std::string::npos) {
    throw InvalidArgument(error_msg("{0} '{1}' is not a text file (it holds a NUL byte)", what, path));
  }
  return std::move(text);
}

std::vector<double> parse_list_argument(const std::string& text, const std::string& what) {
  if (text.empty() || text[0] != '@') return parse_real_list(text, what);
  const std::string path = text.substr(1);
  const std::string content = read_text_file(path, what + " file", kMaxListFileBytes);
  std::string joined;
  std::string item;
  const auto flush = [&] {
    if (!item.empty()) joined += (joined.empty() ? "" : ",") + item;
    item.clear();
  };
  for (char c : content) {
    if (c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      flush();
    } else {
      item += c;
    }
  }
  flush();
  if (joined.empty()) throw InvalidArgument(error_msg("{0} file '{1}' holds no numbers", what, path));
  return parse_real_list(joined, fmt::format("{} file '{}'", what, path));
}

}  // namespace rope
