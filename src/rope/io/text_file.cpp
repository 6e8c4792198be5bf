#include "rope/io/text_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>
#include <memory>
#include <sys/stat.h>

#include "rope/core/error.hpp"

namespace rope {

std::string read_text_file(const std::string& path, std::string_view what, std::size_t max_bytes) {
  const auto fail = [&](int err) {
    throw IoError(fmt::format("cannot read {} '{}': {}", what, path, std::strerror(err)));
  };
  if (path.empty()) throw InvalidArgument(fmt::format("{} name is empty (after '@')", what));
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) fail(errno);
  if (S_ISDIR(st.st_mode)) fail(EISDIR);
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) fail(errno);
  std::string text;
  char buffer[65536];
  while (text.size() <= max_bytes) {  // at most one buffer past the limit
    const std::size_t n = std::fread(buffer, 1, sizeof buffer, file.get());
    if (n == 0) {
      if (std::ferror(file.get())) fail(errno ? errno : EIO);
      break;
    }
    text.append(buffer, n);
  }
  if (text.size() > max_bytes) {
    throw InvalidArgument(fmt::format("{} '{}' is larger than the {}-byte limit", what, path, max_bytes));
  }
  if (text.find('\0') != std::string::npos) {
    throw InvalidArgument(fmt::format("{} '{}' is not a text file (it holds a NUL byte)", what, path));
  }
  return text;
}

}  // namespace rope
