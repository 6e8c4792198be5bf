#include "rope/io/interrupt.hpp"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <initializer_list>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace rope {

namespace {

constexpr std::size_t kMaxPath = 4096;

// Every member zero-initialized, so that g_slots (256 KiB) is constant-initialized in .bss: no constructor runs
// at start-up and no page of it is touched until a temporary is registered (dirfd is set then).
struct Slot {
  std::atomic<int> state{0};  // 0 free, 1 being filled, 2 registered
  int dirfd = 0;
  int flags = 0;  // unlinkat's: AT_REMOVEDIR for a directory, removed after the files
  char path[kMaxPath] = {};
};

Slot g_slots[kMaxRegisteredTemps];
std::atomic<pid_t> g_child{0};
std::atomic<bool> g_deferred{false};
std::atomic<bool> g_requested{false};
static_assert(std::atomic<bool>::is_always_lock_free, "used in a signal handler");

extern "C" void on_signal(int sig) {
  if (sig == SIGINT && g_deferred.load() && !g_requested.exchange(true)) return;  // reported by interrupt_requested()
  const int saved = errno;
  // The child first, and reaped: a gnuplot still writing could otherwise recreate a file after its unlink.
  const pid_t child = g_child.load();
  if (child > 0) {
    ::kill(-child, SIGKILL);
    ::kill(child, SIGKILL);
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
  }
  for (const int flags : {0, AT_REMOVEDIR}) {  // the files first, then the directories they were in
    for (Slot& s : g_slots) {
      if (s.state.load() == 2 && s.flags == flags) ::unlinkat(s.dirfd, s.path, flags);
    }
  }
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(sig, &dfl, nullptr);
  errno = saved;
  ::raise(sig);  // delivered when the handler returns (the signal is blocked inside it)
}

int register_slot(int dirfd, const char* path, int flags = 0) noexcept {
  const std::size_t n = std::strlen(path);
  if (n >= kMaxPath) return -1;
  for (int i = 0; i < kMaxRegisteredTemps; ++i) {
    int expected = 0;
    if (g_slots[i].state.compare_exchange_strong(expected, 1)) {
      g_slots[i].dirfd = dirfd;
      g_slots[i].flags = flags;
      std::memcpy(g_slots[i].path, path, n + 1);
      g_slots[i].state.store(2);
      return i;
    }
  }
  return -1;
}

}  // namespace

void install_interrupt_cleanup() {
  static std::atomic<bool> installed{false};
  if (installed.exchange(true)) return;
  // A file size limit (ulimit -f) makes a write fail with EFBIG, reported as an I/O error (exit 3),
  // instead of killing rope with its temporary files in place.
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  ::sigaction(SIGXFSZ, &ignore, nullptr);
  for (int sig : kCleanupSignals) {
    struct sigaction old {};
    ::sigaction(sig, nullptr, &old);
    if (old.sa_handler == SIG_IGN) continue;  // e.g. started with nohup: keep ignoring
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (int other : kCleanupSignals) sigaddset(&sa.sa_mask, other);  // one cleanup at a time
    ::sigaction(sig, &sa, nullptr);
  }
}

int register_temp(const char* path) noexcept { return register_slot(AT_FDCWD, path); }

int register_temp_at(int dirfd, const char* name) noexcept { return register_slot(dirfd, name); }

int register_temp_dir(const char* path) noexcept { return register_slot(AT_FDCWD, path, AT_REMOVEDIR); }

void unregister_temp(int slot) noexcept {
  if (slot >= 0 && slot < kMaxRegisteredTemps) g_slots[slot].state.store(0);
}

void set_running_child(pid_t process_group) noexcept { g_child.store(process_group); }

void set_interrupt_deferred(bool deferred) noexcept {
  g_requested.store(false);
  g_deferred.store(deferred);
}

bool interrupt_requested() noexcept { return g_requested.load(); }

}  // namespace rope
