/// @file
/// A run of a file's bytes mapped read-only, for readers that would otherwise copy it out of the page cache
/// (rope check's dumps, docs/check.md "Streaming"). A file truncated under a mapping makes the kernel send
/// SIGBUS on the first access beyond its new end; inside a guarded run the handler maps a page of zeros there
/// and marks the run instead, so that the reader sees `truncated()` after its pass and reports an I/O error
/// (exit 3). A SIGBUS anywhere else goes to the disposition that was in place before.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rope {

class MappedRun {
 public:
  MappedRun() = default;
  MappedRun(const MappedRun&) = delete;
  MappedRun& operator=(const MappedRun&) = delete;
  ~MappedRun() { unmap(); }

  /// Maps bytes [at, at + n) of the open file `fd` (n > 0), its pages faulted in at once. False, with nothing
  /// mapped, when the system refuses (the caller reads with pread instead).
  bool map(int fd, std::uint64_t at, std::size_t n);
  /// Unmaps the run (nothing when none is mapped).
  void unmap();
  /// The first byte of the run.
  const unsigned char* data() const { return static_cast<const unsigned char*>(base_) + skip_; }
  bool mapped() const { return base_ != nullptr; }
  /// Whether a read met the end of a file truncated since it was mapped (the bytes read there were zeros).
  bool truncated() const;

 private:
  void* base_ = nullptr;
  std::size_t length_ = 0, skip_ = 0;
  int slot_ = -1;
};

}  // namespace rope
