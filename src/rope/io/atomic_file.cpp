#include "rope/io/atomic_file.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <mutex>
#include <poll.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <thread>
#include <utility>
#include <unistd.h>

#include "rope/core/error.hpp"
#include "rope/io/input_files.hpp"
#include "rope/io/interrupt.hpp"

namespace rope {

namespace {

namespace fs = std::filesystem;

thread_local StagedOutputs* g_batch = nullptr;

[[noreturn]] void refuse_input(const std::string& target) {
  throw InvalidArgument(
      error_msg("'{0}' is a file this run reads and is named as an output: an output never replaces an input", target));
}

bool is_input(const struct stat& st) { return is_noted_input(st.st_dev, st.st_ino); }

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

/// Writes all of `data` to `fd`; 0 or the errno. A non-blocking descriptor (a FIFO, a device) that
/// takes nothing for kFifoWaitSeconds is ETIMEDOUT: no reader can make rope wait for ever.
int write_all(int fd, const char* data, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, data, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) {
        pollfd p{fd, POLLOUT, 0};
        const int ready = ::poll(&p, 1, static_cast<int>(kFifoWaitSeconds * 1000));
        if (ready == 0) return ETIMEDOUT;
        if (ready > 0 || errno == EINTR) continue;
      }
      return errno;
    }
    data += w;
    n -= static_cast<std::size_t>(w);
  }
  return 0;
}

/// Copies the whole of `from` (read with pread from offset 0) to `to`; 0 or the errno.
int copy_all(int from, int to) {
  char buffer[65536];
  off_t offset = 0;
  for (;;) {
    const ssize_t n = ::pread(from, buffer, sizeof buffer, offset);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return 0;
    if (const int err = write_all(to, buffer, static_cast<std::size_t>(n))) return err;
    offset += n;
  }
}

std::string random_name() {
  static const char kDigits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  unsigned char bytes[8] = {};
  if (::getrandom(bytes, sizeof bytes, 0) != static_cast<ssize_t>(sizeof bytes)) {
    const auto t = static_cast<unsigned long long>(std::chrono::steady_clock::now().time_since_epoch().count());
    for (std::size_t i = 0; i < sizeof bytes; ++i) bytes[i] = static_cast<unsigned char>((t >> (i * 8)) ^ ::getpid());
  }
  std::string name = ".rope-";
  for (unsigned char b : bytes) name += kDigits[b % 36];
  return name;
}

}  // namespace

struct StagedOutputs::Staged {
  std::string target;
  std::string destination;  // what is replaced: the target, or the file a symbolic link target points to
  bool direct = false;      // an existing non-regular target, written in place
  int dirfd = -1;           // the target's directory (not direct)
  std::string name;         // the temporary file in it ("" while it is anonymous, O_TMPFILE)
  int file_fd = -1;         // that file, open for writing
  bool exchanged = false;   // at commit: swapped with the old destination, which now has `name`
  bool placed = false;      // at commit: renamed to a destination that did not exist
  int slot = -1;            // its interrupt registration
  int mem_fd = -1;          // a memory file: the content of a direct target, or what a program writes
  bool committed = false;

  ~Staged() {
    close_fd(file_fd);
    close_fd(mem_fd);
    if (!name.empty() && !committed) ::unlinkat(dirfd, name.c_str(), 0);
    unregister_temp(slot);
    close_fd(dirfd);
  }
  int content_fd() const { return mem_fd >= 0 ? mem_fd : file_fd; }
};

namespace {

bool g_anonymous = true;

/// Creates the temporary file of `s` in its directory: an anonymous one (O_TMPFILE) where the file system
/// has them, so that even a SIGKILL leaves nothing behind, else one with a name, registered for removal
/// on a signal; 0 or the errno.
int create_temp(StagedOutputs::Staged& s) {
  if (g_anonymous) {
    s.file_fd = ::openat(s.dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    if (s.file_fd >= 0) return 0;
    if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL && errno != ENOENT) return errno;
  }
  for (int attempt = 0;; ++attempt) {
    std::string name = random_name();
    s.file_fd = ::openat(s.dirfd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (s.file_fd >= 0) {
      s.name = std::move(name);
      s.slot = register_temp_at(s.dirfd, s.name.c_str());  // removed on a signal too (interrupt.hpp)
      return 0;
    }
    if (errno != EEXIST || attempt > 100) return errno;
  }
}

/// Gives the anonymous temporary file of `s` a name in its directory (linkat), registered for removal on
/// a signal; 0 or the errno. Nothing to do for a file that has a name already.
int name_temp(StagedOutputs::Staged& s) {
  if (!s.name.empty()) return 0;
  const std::string proc = fmt::format("/proc/self/fd/{}", s.file_fd);
  for (int attempt = 0;; ++attempt) {
    std::string name = random_name();
    int r = ::linkat(AT_FDCWD, proc.c_str(), s.dirfd, name.c_str(), AT_SYMLINK_FOLLOW);
    if (r != 0 && errno == ENOENT) r = ::linkat(s.file_fd, "", s.dirfd, name.c_str(), AT_EMPTY_PATH);  // no /proc
    if (r == 0) {
      s.name = std::move(name);
      s.slot = register_temp_at(s.dirfd, s.name.c_str());
      return 0;
    }
    if (errno != EEXIST || attempt > 100) return errno;
  }
}

void drop_temp(StagedOutputs::Staged& s) {
  close_fd(s.file_fd);
  if (!s.name.empty()) ::unlinkat(s.dirfd, s.name.c_str(), 0);
  s.name.clear();
  unregister_temp(s.slot);
  s.slot = -1;
}

}  // namespace

// -------------------------------------------------------------------------------------------------

void OutputFile::write(std::string_view content) {
  if (buffer_.size() + content.size() < (1u << 16)) {
    buffer_.append(content.data(), content.size());
    return;
  }
  // A full buffer, or a large piece (a CSV's 64 KiB chunks, its second half at once): written as it is, after what
  // is buffered, never copied into the buffer first.
  flush();
  const int err = write_all(owner_->staged_[index_]->content_fd(), content.data(), content.size());
  if (err != 0) owner_->fail(index_, err);
}

void OutputFile::flush() {
  if (buffer_.empty()) return;
  const int fd = owner_->staged_[index_]->content_fd();
  const int err = write_all(fd, buffer_.data(), buffer_.size());
  buffer_.clear();
  if (err != 0) owner_->fail(index_, err);
}

// -------------------------------------------------------------------------------------------------

StagedOutputs::StagedOutputs() = default;
StagedOutputs::~StagedOutputs() = default;

void StagedOutputs::fail(std::size_t i, int err) const {
  throw IoError(error_msg("cannot write '{0}': {1}", staged_.at(i)->target, std::strerror(err)));
}

std::size_t StagedOutputs::add(const std::string& target, bool for_program) {
  if (target.empty()) throw IoError(error_msg("cannot write '{0}': {1}", "", "the output path is empty"));
  const auto fail_here = [&](int err) {
    throw IoError(error_msg("cannot write '{0}': {1}", target, std::strerror(err)));
  };
  struct stat st {};
  const bool exists = ::stat(target.c_str(), &st) == 0;
  if (!exists && errno != ENOENT) fail_here(errno);  // a name too long, a parent that is a file, ...
  if (exists && S_ISDIR(st.st_mode)) fail_here(EISDIR);
  if (exists && S_ISREG(st.st_mode) && is_input(st)) refuse_input(target);  // read already: refused before any work
  for (const auto& s : staged_) {
    struct stat other {};
    std::error_code ea, eb;
    const bool same =
        s->target == target ||
        fs::absolute(s->target, ea).lexically_normal() == fs::absolute(target, eb).lexically_normal() ||
        (exists && ::stat(s->target.c_str(), &other) == 0 && other.st_dev == st.st_dev && other.st_ino == st.st_ino);
    if (same) throw InvalidArgument(error_msg("'{0}' is named as two outputs of one run", target));
  }
  auto s = std::make_unique<Staged>();
  s->target = target;
  s->destination = target;
  struct stat lst {};
  if (exists && S_ISREG(st.st_mode) && ::lstat(target.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode)) {
    std::error_code ec;  // a link to a file: the file is replaced, the link stays
    const fs::path resolved = fs::canonical(target, ec);
    if (!ec) s->destination = resolved.string();
  }
  s->direct = exists && !S_ISREG(st.st_mode);
  if (s->direct || for_program) {
    s->mem_fd = ::memfd_create("rope-output", MFD_CLOEXEC);
    if (s->mem_fd < 0) fail_here(errno);
  }
  if (!s->direct) {
    const fs::path path(s->destination);
    const std::string dir = path.has_parent_path() ? path.parent_path().string() : std::string(".");
    s->dirfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);  // O_RDONLY: fsync after the rename
    if (s->dirfd < 0 && errno == EACCES) s->dirfd = ::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (s->dirfd < 0) fail_here(errno);
    if (const int err = create_temp(*s)) fail_here(err);
    if (for_program) {  // only a probe: the file is made again at commit, so none exists while gnuplot runs
      drop_temp(*s);
    }
  }
  staged_.push_back(std::move(s));
  return staged_.size() - 1;
}

OutputFile& StagedOutputs::stage(const std::string& target) {
  const std::size_t i = add(target, false);
  files_.push_back(std::unique_ptr<OutputFile>(new OutputFile(this, i)));
  return *files_.back();
}

std::size_t StagedOutputs::stage_for_program(const std::string& target) { return add(target, true); }

std::size_t StagedOutputs::size() const { return staged_.size(); }
const std::string& StagedOutputs::target(std::size_t i) const { return staged_.at(i)->target; }
std::string StagedOutputs::program_path(std::size_t i) const {
  return fmt::format("/dev/fd/{}", staged_.at(i)->mem_fd);
}
std::string StagedOutputs::temp_name(std::size_t i) const { return staged_.at(i)->name; }

std::vector<int> StagedOutputs::program_fds() const {
  std::vector<int> fds;
  for (const auto& s : staged_) {
    if (s->mem_fd >= 0) fds.push_back(s->mem_fd);
  }
  return fds;
}

std::uint64_t StagedOutputs::content_size(std::size_t i) const {
  struct stat st {};
  if (::fstat(staged_.at(i)->content_fd(), &st) != 0) fail(i, errno);
  return static_cast<std::uint64_t>(st.st_size);
}

std::string StagedOutputs::content_tail(std::size_t i, std::size_t n) const {
  const std::uint64_t size = content_size(i);
  const std::uint64_t start = size > n ? size - n : 0;
  std::string tail(static_cast<std::size_t>(size - start), '\0');
  std::size_t got = 0;
  while (got < tail.size()) {
    const ssize_t r =
        ::pread(staged_[i]->content_fd(), tail.data() + got, tail.size() - got, static_cast<off_t>(start + got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += static_cast<std::size_t>(r);
  }
  tail.resize(got);
  return tail;
}

namespace {

/// Opens an existing non-regular target for writing; a FIFO waits up to kFifoWaitSeconds for a reader.
int open_direct(const std::string& target) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(kFifoWaitSeconds);
  for (;;) {
    const int fd = ::open(target.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
    if (fd >= 0) return fd;  // still non-blocking: write_all waits for a reader with a deadline
    if (errno != ENXIO || std::chrono::steady_clock::now() >= deadline) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));  // a FIFO with no reader yet
  }
}

/// Puts the temporary file of `s` in place of its destination so that take_back() can undo it: swapped
/// with the old file (RENAME_EXCHANGE, the old one then has the temporary name), or renamed to a
/// destination that did not exist (RENAME_NOREPLACE); a plain rename where the file system has neither
/// (then not undone). 0 or the errno: a sticky directory whose file belongs to another user, an
/// immutable file or a mount point fail here, with nothing changed.
int put_in_place(StagedOutputs::Staged& s) {
  const char* from = s.name.c_str();
  const char* to = s.destination.c_str();
  struct stat old {};
  const bool has_old = ::lstat(to, &old) == 0;
  const int flags = has_old ? RENAME_EXCHANGE : RENAME_NOREPLACE;
  if (::renameat2(s.dirfd, from, AT_FDCWD, to, static_cast<unsigned>(flags)) == 0) {
    (has_old ? s.exchanged : s.placed) = true;
    return 0;
  }
  if (errno != EINVAL && errno != ENOSYS && errno != EEXIST) return errno;
  return ::renameat(s.dirfd, from, AT_FDCWD, to) == 0 ? 0 : errno;
}

/// Undoes put_in_place() (best effort): the old file back at the destination, the new one at the
/// temporary name, removed by ~Staged.
void take_back(StagedOutputs::Staged& s) {
  if (s.exchanged) {
    ::renameat2(s.dirfd, s.name.c_str(), AT_FDCWD, s.destination.c_str(), RENAME_EXCHANGE);
  } else if (s.placed) {
    ::renameat(AT_FDCWD, s.destination.c_str(), s.dirfd, s.name.c_str());
  }
  s.exchanged = s.placed = false;
}

}  // namespace

void set_anonymous_temporaries(bool on) { g_anonymous = on; }

void StagedOutputs::commit() {
  for (const auto& s : staged_) {  // an output never replaces a file the run read, whoever named it
    struct stat st {};
    if (!s->direct && ::stat(s->target.c_str(), &st) == 0 && S_ISREG(st.st_mode) && is_input(st)) {
      refuse_input(s->target);
    }
  }
  for (auto& f : files_) f->flush();
  std::vector<int> direct_fds(staged_.size(), -1);
  struct Closer {
    std::vector<int>& fds;
    ~Closer() {
      for (int& fd : fds) close_fd(fd);
    }
  } closer{direct_fds};
  for (std::size_t i = 0; i < staged_.size(); ++i) {
    Staged& s = *staged_[i];
    struct stat st {};
    const bool exists = ::stat(s.target.c_str(), &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) fail(i, EISDIR);
    if (s.direct) {
      direct_fds[i] = open_direct(s.target);
      if (direct_fds[i] < 0) fail(i, errno);
      continue;
    }
    if (s.mem_fd >= 0) {  // what a program wrote, into a temporary file made now
      if (const int err = create_temp(s)) fail(i, err);
      if (const int err = copy_all(s.mem_fd, s.file_fd)) fail(i, err);
    }
    struct stat temp {};
    if (!s.name.empty() && ::fstatat(s.dirfd, s.name.c_str(), &temp, AT_SYMLINK_NOFOLLOW) != 0) fail(i, errno);
    if (s.name.empty() && ::fstat(s.file_fd, &temp) != 0) fail(i, errno);
    if (exists && S_ISREG(st.st_mode)) {  // keep the mode (and as root the owner) of the file replaced
      if (::fchmod(s.file_fd, st.st_mode & 07777) != 0) fail(i, errno);
      if (::geteuid() == 0 && (st.st_uid != temp.st_uid || st.st_gid != temp.st_gid)) {
        if (::fchown(s.file_fd, st.st_uid, st.st_gid) != 0) fail(i, errno);
      }
    }
    if (::fsync(s.file_fd) != 0 && errno != EINVAL) fail(i, errno);
    if (const int err = name_temp(s)) fail(i, err);
    const int fd = s.file_fd;
    s.file_fd = -1;
    if (::close(fd) != 0) fail(i, errno);
  }
  for (std::size_t i = 0; i < staged_.size(); ++i) {
    if (!staged_[i]->direct) continue;
    if (const int err = copy_all(staged_[i]->mem_fd, direct_fds[i])) fail(i, err);
    const int fd = direct_fds[i];
    direct_fds[i] = -1;
    if (::close(fd) != 0 && errno != EINTR) fail(i, errno);
  }
  for (std::size_t i = 0; i < staged_.size(); ++i) {
    if (staged_[i]->direct) continue;
    if (const int err = put_in_place(*staged_[i])) {
      for (std::size_t k = i; k-- > 0;) take_back(*staged_[k]);  // every earlier output as it was
      fail(i, err);
    }
  }
  for (auto& s : staged_) {
    if (s->direct) continue;
    if (s->exchanged) ::unlinkat(s->dirfd, s->name.c_str(), 0);  // the old content, swapped out
    s->committed = true;
    s->name.clear();
    unregister_temp(s->slot);
    s->slot = -1;
    ::fsync(s->dirfd);  // the renames themselves on disk (best effort: fails for an O_PATH descriptor)
  }
}

// -------------------------------------------------------------------------------------------------

OutputBatch::OutputBatch() : previous_(g_batch) {
  g_batch = &outputs_;
  begin_noting_inputs();
}

OutputBatch::~OutputBatch() {
  g_batch = previous_;
  end_noting_inputs();
}

StagedOutputs* current_output_batch() { return g_batch; }

void write_staged(const std::string& path, const std::function<void(OutputFile&)>& fill) {
  StagedOutputs own;
  StagedOutputs* batch = current_output_batch();
  fill((batch != nullptr ? *batch : own).stage(path));
  if (batch == nullptr) own.commit();
}

void write_file_atomically(const std::string& path, std::string_view content) {
  write_staged(path, [&](OutputFile& file) { file.write(content); });
}

}  // namespace rope
