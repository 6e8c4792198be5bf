#include "rope/io/child_process.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
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

namespace {

/// argv[0] as execve needs it: unchanged if it holds a '/', else the first executable file of that name
/// on PATH; "" if there is none.
std::string find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* env = std::getenv("PATH");
  const std::string path = env != nullptr && *env != '\0' ? env : "/usr/local/bin:/usr/bin:/bin";
  std::size_t begin = 0;
  for (;;) {
    const std::size_t end = path.find(':', begin);
    std::string dir = path.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
    if (dir.empty()) dir = ".";
    const std::string candidate = dir + "/" + name;
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
    if (end == std::string::npos) return "";
    begin = end + 1;
  }
}

std::vector<std::string> child_environment(const ChildOptions& options) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    const std::string name = entry.substr(0, entry.find('='));
    const auto named = [&](const std::string& other) { return other.substr(0, other.find('=')) == name; };
    if (std::any_of(options.unset_env.begin(), options.unset_env.end(), named)) continue;
    if (std::any_of(options.set_env.begin(), options.set_env.end(), named)) continue;
    env.push_back(entry);
  }
  env.insert(env.end(), options.set_env.begin(), options.set_env.end());
  return env;
}

/// The child between fork and exec: only async-signal-safe calls. Reports a failure's errno on `report`.
[[noreturn]] void exec_child(const char* path, char* const* args, char* const* envp, int devnull, int write_end,
                             int capture_fd, int other_fd, const std::vector<int>& keep, pid_t parent, int report) {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  for (int sig : kCleanupSignals) ::sigaction(sig, &dfl, nullptr);  // never rope's cleanup in the child
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  int err = 0;
  if (::getppid() != parent) ::_exit(127);  // rope died before the prctl
  if (::dup2(devnull, STDIN_FILENO) < 0 || ::dup2(devnull, other_fd) < 0 || ::dup2(write_end, capture_fd) < 0) {
    err = errno;
  }
  for (int fd : keep) {
    if (err == 0 && ::fcntl(fd, F_SETFD, 0) != 0) err = errno;
  }
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  if (err == 0) {
    ::execve(path, args, envp);
    err = errno;
  }
  while (::write(report, &err, sizeof err) < 0 && errno == EINTR) {
  }
  ::_exit(127);
}

}  // namespace

ChildResult run_child(std::vector<std::string> argv, Capture capture, double timeout_seconds,
                      const ChildOptions& options) {
  ChildResult result;
  const std::string path = find_program(argv[0]);
  if (path.empty()) {
    result.spawn_error = ENOENT;
    return result;
  }
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    throw IoError(error_msg("cannot run '{0}': {1}", argv[0], fmt::format("pipe: {}", std::strerror(errno))));
  }
  Fd read_end(fds[0]);
  Fd write_end(fds[1]);
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    throw IoError(error_msg("cannot run '{0}': {1}", argv[0], fmt::format("pipe: {}", std::strerror(errno))));
  }
  Fd report_read(fds[0]);
  Fd report_write(fds[1]);
  Fd devnull(::open("/dev/null", O_RDWR | O_CLOEXEC));
  if (devnull.get() < 0)
    throw IoError(error_msg("cannot run '{0}': {1}", argv[0], fmt::format("/dev/null: {}", std::strerror(errno))));

  std::vector<char*> args;
  for (std::string& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  std::vector<std::string> env = child_environment(options);
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  const int capture_fd = capture == Capture::Stdout ? STDOUT_FILENO : STDERR_FILENO;
  const int other = capture_fd == STDOUT_FILENO ? STDERR_FILENO : STDOUT_FILENO;

  // The cleanup signals wait until the child is registered: a Ctrl-C right after the fork still kills
  // it (interrupt.hpp).
  sigset_t blocked, previous;
  sigemptyset(&blocked);
  for (int sig : kCleanupSignals) sigaddset(&blocked, sig);
  ::pthread_sigmask(SIG_BLOCK, &blocked, &previous);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    exec_child(path.c_str(), args.data(), envp.data(), devnull.get(), write_end.get(), capture_fd, other,
               options.keep_fds, parent, report_write.get());
  }
  const int fork_error = pid < 0 ? errno : 0;
  if (pid > 0) {
    ::setpgid(pid, pid);  // also in the parent: the group exists before anyone kills it
    set_running_child(pid);
  }
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (fork_error != 0) {
    result.spawn_error = fork_error;
    return result;
  }
  struct ChildGuard {
    ~ChildGuard() { set_running_child(0); }
  } child_guard;
  write_end.reset();
  report_write.reset();
  int exec_error = 0;
  ssize_t got;
  while ((got = ::read(report_read.get(), &exec_error, sizeof exec_error)) < 0 && errno == EINTR) {
  }
  if (got == static_cast<ssize_t>(sizeof exec_error)) {  // exec failed: the child exits at once
    while (::waitpid(pid, &result.status, 0) < 0 && errno == EINTR) {
    }
    result.spawn_error = exec_error;
    return result;
  }

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
      throw IoError(error_msg("cannot wait for '{0}': {1}", argv[0], std::strerror(errno)));
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
