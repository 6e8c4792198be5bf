// The in-process runner of the malformed-input sweep (sweep.py --driver): runs many cases through
// rope::cli::run in one process, as tests/fuzz/fuzz_cli.cpp does, because starting 8000 processes is
// most of the sweep's time on a slow machine. Each case gets what a process of its own would get: its
// working directory, its TMPDIR, the "full disk" file-size limit when asked, and main()'s
// install_interrupt_cleanup(); all of it is undone after the run, so no case sees another's state.
//
// Protocol, on stdin and stdout (binary: arguments hold any bytes, newlines and invalid UTF-8 too),
// every integer a 32-bit little-endian number:
//   request:  count, then count fields, each a length and its bytes:
//             working directory, TMPDIR, "1" for a full disk ("0" otherwise), argv[0], argv[1], ...
//   reply:    exit status (as the process would exit: 0-255), stderr length, stderr bytes.
// End of input ends the driver with exit 0 (so LeakSanitizer checks it at exit). A crash or an
// exception that escapes run() kills the driver as it would kill rope: sweep.py reports the case and
// starts a new driver.
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <optional>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "rope/cli/cli.hpp"
#include "rope/io/interrupt.hpp"

namespace {

int g_in = -1;   // the protocol's descriptors: stdin and stdout are moved away from fds 0 and 1
int g_out = -1;  // so nothing a command or gnuplot does with them can touch the protocol

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "rope_sweep_driver: %s%s%s\n", what, errno != 0 ? ": " : "",
               errno != 0 ? std::strerror(errno) : "");
  std::exit(4);
}

/// false at a clean end of input (before the first byte of a request).
bool read_all(void* data, std::size_t n, bool at_start) {
  auto* p = static_cast<char*>(data);
  std::size_t done = 0;
  while (done < n) {
    const ssize_t got = ::read(g_in, p + done, n - done);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) fail("read");
    if (got == 0) {
      if (at_start && done == 0) return false;
      errno = EPIPE;
      fail("truncated request");
    }
    done += static_cast<std::size_t>(got);
  }
  return true;
}

void write_all(const void* data, std::size_t n) {
  const auto* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t put = ::write(g_out, p, n);
    if (put < 0 && errno == EINTR) continue;
    if (put < 0) fail("write");
    p += put;
    n -= static_cast<std::size_t>(put);
  }
}

std::uint32_t read_u32(bool at_start, bool* end) {
  unsigned char b[4];
  if (!read_all(b, 4, at_start)) {
    *end = true;
    return 0;
  }
  return b[0] | (b[1] << 8) | (b[2] << 16) | (static_cast<std::uint32_t>(b[3]) << 24);
}

void write_u32(std::uint32_t v) {
  const unsigned char b[4] = {static_cast<unsigned char>(v), static_cast<unsigned char>(v >> 8),
                              static_cast<unsigned char>(v >> 16), static_cast<unsigned char>(v >> 24)};
  write_all(b, 4);
}

std::optional<std::vector<std::string>> read_request() {
  bool end = false;
  const std::uint32_t count = read_u32(true, &end);
  if (end) return std::nullopt;
  std::vector<std::string> fields(count);
  for (std::string& f : fields) {
    f.resize(read_u32(false, &end));
    read_all(f.data(), f.size(), false);
  }
  return fields;
}

/// Moves a standard descriptor to a new close-on-exec one and puts /dev/null in its place.
int take(int fd, int flags) {
  const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
  const int null = ::open("/dev/null", flags);
  if (moved < 0 || null < 0 || ::dup2(null, fd) < 0) fail("moving the protocol's descriptors");
  ::close(null);
  return moved;
}

/// How many descriptors are open: a run that leaves one open would make the driver run out of them
/// after some thousands of cases, where a process of its own would not notice.
int open_descriptors() {
  DIR* d = ::opendir("/proc/self/fd");
  if (d == nullptr) fail("opendir /proc/self/fd");
  int n = 0;
  while (::readdir(d) != nullptr) ++n;
  ::closedir(d);
  return n;
}

}  // namespace

int main() {
  g_in = take(STDIN_FILENO, O_RDONLY);
  g_out = take(STDOUT_FILENO, O_WRONLY);
  rope::install_interrupt_cleanup();  // as main.cpp: the same signal handling as the executable
  const int home = ::open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (home < 0) fail("open .");
  const char* tmpdir = std::getenv("TMPDIR");
  const std::optional<std::string> saved_tmpdir = tmpdir ? std::optional<std::string>(tmpdir) : std::nullopt;
  const int descriptors = open_descriptors();

  while (const auto request = read_request()) {
    if (request->size() < 4) {
      errno = EINVAL;
      fail("request with fewer than 4 fields");
    }
    const std::string& dir = (*request)[0];
    const bool full_disk = (*request)[2] == "1";
    const std::vector<std::string> args(request->begin() + 3, request->end());
    if (::chdir(dir.c_str()) != 0) fail("chdir");
    ::setenv("TMPDIR", (*request)[1].c_str(), 1);
    rlimit fsize{};
    struct sigaction xfsz {};
    if (full_disk) {  // as sweep.py's limits(): writes fail with EFBIG, SIGXFSZ ignored; gnuplot inherits it
      struct sigaction ignore {};
      ignore.sa_handler = SIG_IGN;
      sigemptyset(&ignore.sa_mask);
      if (::getrlimit(RLIMIT_FSIZE, &fsize) != 0 || ::sigaction(SIGXFSZ, &ignore, &xfsz) != 0) fail("full disk");
      rlimit zero = fsize;
      zero.rlim_cur = 0;
      if (::setrlimit(RLIMIT_FSIZE, &zero) != 0) fail("setrlimit");
    }

    std::ostringstream out, err;
    const int code = rope::cli::run(args, out, err);

    if (full_disk) {
      if (::setrlimit(RLIMIT_FSIZE, &fsize) != 0 || ::sigaction(SIGXFSZ, &xfsz, nullptr) != 0) fail("restore");
    }
    if (saved_tmpdir) {
      ::setenv("TMPDIR", saved_tmpdir->c_str(), 1);
    } else {
      ::unsetenv("TMPDIR");
    }
    if (::fchdir(home) != 0) fail("fchdir");  // out of the run directory before sweep.py removes it
    // State that would grow over the runs (a process of its own would not show it): the driver fails,
    // and sweep.py reports this case.
    errno = 0;
    if (open_descriptors() != descriptors) fail("the run left a file descriptor open");
    int status = 0;
    if (::waitpid(-1, &status, WNOHANG) > 0) fail("the run left a child process unreaped");

    const std::string e = err.str();
    write_u32(static_cast<std::uint32_t>(code) & 0xFFu);  // what the process's exit status would be
    write_u32(static_cast<std::uint32_t>(e.size()));
    write_all(e.data(), e.size());
  }
  ::close(home);
  return 0;
}
