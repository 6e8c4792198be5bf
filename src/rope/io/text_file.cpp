#include "rope/io/text_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>
#include <memory>
#include <sys/stat.h>

#include "rope/core/error.hpp"

namespace rope {

BoundedRead read_file_bounded(const std::string& path, std::size_t max_bytes) {
  BoundedRead out;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    out.error = errno;
    return out;
  }
  if (S_ISDIR(st.st_mode)) {
    out.error = EISDIR;
    return out;
  }
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) {
    out.error = errno;
    return out;
  }
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
    throw IoError(fmt::format("cannot read {} '{}': {}", what, path, std::strerror(err)));
  };
  if (path.empty()) throw InvalidArgument(fmt::format("{} name is empty (after '@')", what));
  BoundedRead file = read_file_bounded(path, max_bytes);
  if (file.error != 0) fail(file.error);
  std::string& text = file.text;
  if (text.size() > max_bytes) {
    throw InvalidArgument(fmt::format("{} '{}' is larger than the {}-byte limit", what, path, max_bytes));
  }
  if (text.find('\0') != std::string::npos) {
    throw InvalidArgument(fmt::format("{} '{}' is not a text file (it holds a NUL byte)", what, path));
  }
  return std::move(text);
}

}  // namespace rope
