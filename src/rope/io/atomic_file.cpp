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

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& path, int err) {
  throw IoError(fmt::format("cannot write '{}': {}", path, std::strerror(err)));
}

mode_t current_umask() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return mask;
}

}  // namespace

// -------------------------------------------------------------------------------------------------
// TempFile

TempFile::TempFile(std::string pattern, int suffix, std::string what)
    : path_(std::move(pattern)), what_(std::move(what)) {
  fd_ = ::mkstemps(path_.data(), suffix);
  if (fd_ < 0) {
    const int err = errno;
    released_ = true;  // nothing was created
    fail(err);
  }
  slot_ = register_temp(path_.c_str());  // removed on SIGINT too (interrupt.hpp)
  if (::fchmod(fd_, 0666 & ~current_umask()) != 0) fail(errno);
}

TempFile::~TempFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!released_) {
    ::unlink(path_.c_str());
    unregister_temp(slot_);
  }
}

void TempFile::fail(int err) const { throw IoError(fmt::format("cannot write {}: {}", what_, std::strerror(err))); }

void TempFile::write(std::string_view content) {
  while (!content.empty()) {
    const ssize_t n = ::write(fd_, content.data(), content.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(errno);
    }
    content.remove_prefix(static_cast<std::size_t>(n));
  }
  close();
}

void TempFile::close() {
  const int fd = fd_;
  fd_ = -1;
  if (fd >= 0 && ::close(fd) != 0) fail(errno);
}

void TempFile::release() noexcept {
  if (released_) return;
  released_ = true;
  unregister_temp(slot_);
}

// -------------------------------------------------------------------------------------------------
// StagedOutputs

TempFile& StagedOutputs::stage(const std::string& target, bool keep_extension) {
  if (target.empty()) throw IoError("cannot write '': the output path is empty");
  std::error_code ec;
  if (fs::is_directory(target, ec)) fail(target, EISDIR);
  const fs::path path(target);
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  const std::string ext = keep_extension ? path.extension().string() : std::string();
  std::string pattern = (dir / ("." + path.filename().string() + ".tmp-XXXXXX" + ext)).string();
  auto temp = std::make_unique<TempFile>(std::move(pattern), static_cast<int>(ext.size()),
                                         fmt::format("'{}'", target));
  staged_.push_back({target, std::move(temp)});
  return *staged_.back().temp;
}

void StagedOutputs::commit() {
  for (const Staged& s : staged_) {
    std::error_code ec;
    if (fs::is_directory(s.target, ec)) fail(s.target, EISDIR);
    struct stat st {};
    if (::stat(s.temp->path().c_str(), &st) != 0) fail(s.target, errno);
  }
  for (Staged& s : staged_) {
    s.temp->close();
    if (::rename(s.temp->path().c_str(), s.target.c_str()) != 0) fail(s.target, errno);
    s.temp->release();
  }
}

// -------------------------------------------------------------------------------------------------

void write_file_atomically(const std::string& path, std::string_view content) {
  StagedOutputs staged;
  staged.stage(path).write(content);
  staged.commit();
}

}  // namespace rope
