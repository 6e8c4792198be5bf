#include "rope/io/atomic_file.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rope/core/error.hpp"
#include "rope/io/interrupt.hpp"

namespace rope {

namespace {

[[noreturn]] void fail(const std::string& path, int err) {
  throw IoError(fmt::format("cannot write '{}': {}", path, std::strerror(err)));
}

mode_t current_umask() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return mask;
}

}  // namespace

void write_file_atomically(const std::string& path, std::string_view content) {
  namespace fs = std::filesystem;
  if (path.empty()) throw IoError("cannot write '': the output path is empty");
  std::error_code ec;
  if (fs::is_directory(path, ec)) fail(path, EISDIR);

  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string temp = (dir / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) fail(path, errno);
  const int slot = register_temp(temp.c_str());  // removed on SIGINT too (interrupt.hpp)

  const auto remove_temp = [&] {
    ::unlink(temp.c_str());
    unregister_temp(slot);
  };
  const auto abandon = [&](int err) {
    ::close(fd);
    remove_temp();
    fail(path, err);
  };
  const char* data = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    const ssize_t written = ::write(fd, data, left);
    if (written < 0) {
      if (errno == EINTR) continue;
      abandon(errno);
    }
    data += written;
    left -= static_cast<std::size_t>(written);
  }
  if (::fchmod(fd, 0666 & ~current_umask()) != 0) abandon(errno);
  if (::close(fd) != 0) {
    const int err = errno;
    remove_temp();
    fail(path, err);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    remove_temp();
    fail(path, err);
  }
  unregister_temp(slot);
}

}  // namespace rope
