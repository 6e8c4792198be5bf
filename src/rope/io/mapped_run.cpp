// Mapped runs of files and their SIGBUS guard (mapped_run.hpp).
#include "rope/io/mapped_run.hpp"

#include <atomic>
#include <csignal>
#include <mutex>
#include <sys/mman.h>
#include <unistd.h>

namespace rope {
namespace {

/// The guarded runs: [begin, end) of each mapping in use, and whether a SIGBUS hit it. Read by the handler
/// without locks (atomics only); a slot is claimed by compare-and-swap.
struct MappedSlot {
  std::atomic<bool> used{false};
  std::atomic<std::uintptr_t> begin{0}, end{0};
  std::atomic<int> hit{0};
};
constexpr int kSlots = 64;
MappedSlot g_mapped_slots[kSlots];
struct sigaction g_previous {};
std::uintptr_t g_page = 4096;
std::once_flag g_installed;
bool g_guarded = false;

void on_sigbus(int, siginfo_t* info, void*) {
  const auto at = reinterpret_cast<std::uintptr_t>(info->si_addr);
  for (MappedSlot& s : g_mapped_slots) {
    if (!s.used.load() || at < s.begin.load() || at >= s.end.load()) continue;
    // Zeros over the page beyond the file's end (mmap is a plain system call on Linux), then the access repeats.
    ::mmap(reinterpret_cast<void*>(at & ~(g_page - 1)), g_page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    s.hit.store(1);
    return;
  }
  ::sigaction(SIGBUS, &g_previous, nullptr);  // not ours: the fault repeats under the previous disposition
}

void install() {
  g_page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  struct sigaction act {};
  act.sa_sigaction = on_sigbus;
  act.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&act.sa_mask);
  g_guarded = ::sigaction(SIGBUS, &act, &g_previous) == 0;
}

}  // namespace

bool MappedRun::map(int fd, std::uint64_t at, std::size_t n) {
  unmap();
  std::call_once(g_installed, install);
  if (!g_guarded || n == 0) return false;
  int slot = -1;
  for (int k = 0; k < kSlots && slot < 0; ++k) {
    bool expected = false;
    if (g_mapped_slots[k].used.compare_exchange_strong(expected, true)) slot = k;
  }
  if (slot < 0) return false;
  const std::uint64_t first = at & ~static_cast<std::uint64_t>(g_page - 1);
  const std::size_t length = static_cast<std::size_t>(at - first) + n;
  void* base = ::mmap(nullptr, length, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, static_cast<off_t>(first));
  if (base == MAP_FAILED) {
    g_mapped_slots[slot].used.store(false);
    return false;
  }
  MappedSlot& s = g_mapped_slots[slot];
  s.hit.store(0);
  s.begin.store(reinterpret_cast<std::uintptr_t>(base));
  s.end.store(reinterpret_cast<std::uintptr_t>(base) + length);
  base_ = base, length_ = length, skip_ = static_cast<std::size_t>(at - first), slot_ = slot;
  return true;
}

bool MappedRun::truncated() const { return slot_ >= 0 && g_mapped_slots[slot_].hit.load() != 0; }

void MappedRun::unmap() {
  if (!base_) return;
  MappedSlot& s = g_mapped_slots[slot_];
  s.begin.store(0), s.end.store(0);
  ::munmap(base_, length_);
  s.used.store(false);
  base_ = nullptr, length_ = 0, skip_ = 0, slot_ = -1;
}

}  // namespace rope
