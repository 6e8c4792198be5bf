#include "rope/io/child_process.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "rope/core/error.hpp"
#include "rope/io/interrupt.hpp"

extern char** environ;

namespace rope {

namespace {

class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  int get() const { return fd_; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

}  // namespace

ChildResult run_child(std::vector<std::string> argv, Capture capture, double timeout_seconds) {
  ChildResult result;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    throw IoError(fmt::format("cannot run '{}': pipe: {}", argv[0], std::strerror(errno)));
  }
  Fd read_end(fds[0]);
  Fd write_end(fds[1]);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  const int capture_fd = capture == Capture::Stdout ? STDOUT_FILENO : STDERR_FILENO;
  const int other = capture_fd == STDOUT_FILENO ? STDERR_FILENO : STDOUT_FILENO;
  posix_spawn_file_actions_addopen(&actions, other, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, write_end.get(), capture_fd);

  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<char*> args;
  for (std::string& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  pid_t pid = -1;
  // The interrupting signals wait until the child is registered: a Ctrl-C right after the spawn still
  // kills it (interrupt.hpp). The child itself starts with no signal blocked (setsigmask above).
  sigset_t interrupting, previous;
  sigemptyset(&interrupting);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaddset(&interrupting, sig);
  ::pthread_sigmask(SIG_BLOCK, &interrupting, &previous);
  result.spawn_error = ::posix_spawnp(&pid, args[0], &actions, &attr, args.data(), environ);
  if (result.spawn_error == 0) set_running_child(pid);  // its process group is killed on SIGINT
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (result.spawn_error != 0) return result;
  struct ChildGuard {
    ~ChildGuard() { set_running_child(0); }
  } child_guard;
  write_end.reset();

  char buffer[4096];
  const auto keep = [&](ssize_t n) {  // the last kMaxCaptured bytes: an error message comes last
    result.captured.append(buffer, static_cast<std::size_t>(n));
    if (result.captured.size() > kMaxCaptured) result.captured.erase(0, result.captured.size() - kMaxCaptured);
  };
  const auto read_some = [&]() -> bool {  // false at end of file
    const ssize_t n = ::read(read_end.get(), buffer, sizeof buffer);
    if (n > 0) keep(n);
    return n > 0 || (n < 0 && (errno == EINTR || errno == EAGAIN));
  };

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_seconds);
  bool pipe_open = true;
  for (;;) {
    const pid_t done = ::waitpid(pid, &result.status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) {
      throw IoError(fmt::format("cannot wait for '{}': {}", argv[0], std::strerror(errno)));
    }
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
      while (::waitpid(pid, &result.status, 0) < 0 && errno == EINTR) {
      }
      result.timed_out = true;
      return result;  // a grandchild may still hold the pipe: do not wait for its end
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
    const int wait_ms = static_cast<int>(std::clamp<long long>(left, 1, 10));
    if (pipe_open) {
      pollfd p{read_end.get(), POLLIN, 0};
      if (::poll(&p, 1, wait_ms) > 0) pipe_open = read_some();
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
    }
  }
  // The child has exited: what it wrote is in the pipe; take it without waiting for anyone else.
  if (pipe_open && ::fcntl(read_end.get(), F_SETFL, O_NONBLOCK) == 0) {
    for (;;) {
      const ssize_t n = ::read(read_end.get(), buffer, sizeof buffer);
      if (n > 0) {
        keep(n);
      } else if (!(n < 0 && errno == EINTR)) {
        break;
      }
    }
  }
  return result;
}

}  // namespace rope
