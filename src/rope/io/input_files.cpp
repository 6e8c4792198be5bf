#include "rope/io/input_files.hpp"

#include <algorithm>
#include <mutex>
#include <sys/stat.h>
#include <utility>
#include <vector>

namespace rope {

namespace {

/// The files read while a batch is open (device, inode), on any thread; `g_open_batches` counts the open batches.
std::mutex g_inputs_mutex;
std::vector<std::pair<std::uint64_t, std::uint64_t>> g_inputs;
int g_open_batches = 0;

void note_input(const struct stat& st) {
  const std::lock_guard<std::mutex> lock(g_inputs_mutex);
  if (g_open_batches == 0) return;
  const std::pair<std::uint64_t, std::uint64_t> id{st.st_dev, st.st_ino};
  if (std::find(g_inputs.begin(), g_inputs.end(), id) == g_inputs.end()) g_inputs.push_back(id);
}

}  // namespace

void note_input_file(int fd) {
  struct stat st {};
  if (fd >= 0 && ::fstat(fd, &st) == 0) note_input(st);
}

void note_input_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) note_input(st);
}

bool is_noted_input(std::uint64_t device, std::uint64_t inode) {
  const std::lock_guard<std::mutex> lock(g_inputs_mutex);
  return std::find(g_inputs.begin(), g_inputs.end(), std::pair<std::uint64_t, std::uint64_t>{device, inode}) !=
         g_inputs.end();
}

void begin_noting_inputs() {
  const std::lock_guard<std::mutex> lock(g_inputs_mutex);
  ++g_open_batches;
}

void end_noting_inputs() {
  const std::lock_guard<std::mutex> lock(g_inputs_mutex);
  if (--g_open_batches == 0) g_inputs.clear();
}

}  // namespace rope
