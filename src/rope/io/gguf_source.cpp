// The byte sources of gguf.hpp: memory, and a file read through a window with seeks, so that only the
// header, the metadata and the few small tensors asked for are ever read.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <sys/stat.h>
#include <vector>

#include "rope/core/error.hpp"
#include "rope/io/input_files.hpp"
#include "rope/io/gguf.hpp"

namespace rope {

namespace {

class MemorySource final : public GgufSource {
 public:
  explicit MemorySource(std::string_view bytes) : bytes_(bytes) {}
  std::uint64_t size() const override { return bytes_.size(); }
  void read(std::uint64_t offset, void* dst, std::size_t n) override {
    if (n > 0) std::memcpy(dst, bytes_.data() + offset, n);
  }

 private:
  std::string_view bytes_;
};

/// A file read through a 64 KiB window: the metadata is read in order, the tensor data seeked to.
class FileSource final : public GgufSource {
 public:
  FileSource(const std::string& path, std::uint64_t size) : path_(path), size_(size), in_(path, std::ios::binary) {
    note_input_file(path);
    if (!in_) throw IoError(error_msg("cannot read '{0}': {1}", path, std::strerror(errno)));
  }
  std::uint64_t size() const override { return size_; }
  void read(std::uint64_t offset, void* dst, std::size_t n) override {
    auto* out = static_cast<char*>(dst);
    while (n > 0) {
      if (offset < start_ || offset >= start_ + buffer_.size()) fill(offset);
      const std::size_t at = static_cast<std::size_t>(offset - start_);
      const std::size_t k = std::min(n, buffer_.size() - at);
      std::memcpy(out, buffer_.data() + at, k);
      out += k;
      offset += k;
      n -= k;
    }
  }

 private:
  void fill(std::uint64_t offset) {
    const std::uint64_t k = std::min<std::uint64_t>(kWindow, size_ - offset);
    buffer_.resize(static_cast<std::size_t>(k));
    in_.clear();
    in_.seekg(static_cast<std::streamoff>(offset));
    in_.read(buffer_.data(), static_cast<std::streamsize>(k));
    if (!in_ || static_cast<std::uint64_t>(in_.gcount()) != k) {
      buffer_.clear();
      throw IoError(
          error_msg("cannot read '{0}' at offset {1}: the file is shorter than it was or unreadable", path_, offset));
    }
    start_ = offset;
  }

  static constexpr std::uint64_t kWindow = 64u << 10;
  std::string path_;
  std::uint64_t size_;
  std::ifstream in_;
  std::vector<char> buffer_;
  std::uint64_t start_ = 0;
};

}  // namespace

GgufFile parse_gguf(std::string_view bytes, const std::string& name, const std::vector<std::string>& read_tensors) {
  MemorySource source(bytes);
  return parse_gguf(source, name, read_tensors);
}

GgufFile read_gguf(const std::string& path, const std::vector<std::string>& read_tensors) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw IoError(error_msg("cannot read '{0}': {1}", path, std::strerror(errno)));
  if (!S_ISREG(st.st_mode)) throw IoError(error_msg("cannot read '{0}': {1}", path, "not a regular file"));
  FileSource source(path, static_cast<std::uint64_t>(st.st_size));
  return parse_gguf(source, path, read_tensors);
}

bool is_gguf_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  return in.read(magic, 4) && std::memcmp(magic, "GGUF", 4) == 0;
}

}  // namespace rope
