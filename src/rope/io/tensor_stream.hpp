/// @file
/// A tensor file read in pieces (docs/check.md "Streaming"): the header of a .npy or safetensors file is
/// parsed once (tensor_file.hpp's rules, without the 256 MiB limit of a whole-file read), then any run of
/// elements is read with pread(2) into the caller's buffer, as stored or decoded there, so that a dump larger
/// than memory is checked with memory bounded by the buffers. A file truncated while it is read gives a short
/// read, reported as an I/O error naming the file and the byte.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rope/io/tensor_file.hpp"

namespace rope {

/// pread until `n` bytes are read; returns the bytes read (fewer: the file ended), -1 with errno on error. The one
/// loop of every reader that reads a file where it lies (tensor streams, torch.save records).
long long pread_full(int fd, unsigned char* out, std::size_t n, std::uint64_t at);

/// Largest number of elements of a streamed tensor (2^40: 2 TiB of bfloat16).
inline constexpr long kMaxStreamElements = 1L << 40;

class TensorStream {
 public:
  /// Opens `path` (a regular file) and parses its header (.npy or safetensors by the first bytes, as
  /// detect_tensor_format). @throws IoError (cannot open or read), InvalidArgument (a malformed header, a CSV
  /// file: it is not streamed, read_tensor_file reads it).
  static TensorStream open(const std::string& path, const TensorReadOptions& options = {});
  /// A tensor the caller holds in memory, `data` its elements as `header` describes them (data_offset 0): read in
  /// place, a run at a time, as a file is; `data` must outlive the stream. `name` starts every message.
  static TensorStream in_memory(const unsigned char* data, TensorHeader header, std::string name);
  /// Opens `path` for a tensor whose header the caller parsed from it already (tensor_directory.hpp): nothing but
  /// the elements is read. @throws IoError (cannot open, not a regular file).
  static TensorStream open_parsed(const std::string& path, TensorHeader header);
  /// Whether `path` is a .npy or safetensors file by its first bytes (false for CSV and unreadable files).
  static bool streamable(const std::string& path);

  TensorStream(TensorStream&& other) noexcept;
  TensorStream& operator=(TensorStream&& other) noexcept;
  TensorStream(const TensorStream&) = delete;
  TensorStream& operator=(const TensorStream&) = delete;
  ~TensorStream();

  const TensorHeader& header() const { return header_; }
  const std::string& name() const { return name_; }

  /// Reads elements [first, first + count) as stored into `raw` (count · header().bytes bytes). Thread-safe.
  /// @throws IoError when the file ends early (truncated since it was opened) or the read fails.
  void read_raw(long first, long count, unsigned char* raw) const;
  /// Reads elements [first, first + count) decoded to double into `out`. Thread-safe; `scratch` is the
  /// caller's buffer for the raw bytes.
  void read(long first, long count, double* out, std::vector<unsigned char>& scratch) const;

 private:
  TensorStream() = default;
  int fd_ = -1;
  const unsigned char* memory_ = nullptr;  ///< in_memory: the elements
  TensorHeader header_;
  std::string name_;
};

/// Decodes `count` elements stored as `header` says from `raw` into `out` (the fast paths of
/// little-endian float32, bfloat16, float16 and float64; detail::decode_values for the others).
void decode_elements(const unsigned char* raw, long count, const TensorHeader& header, double* out);

}  // namespace rope
