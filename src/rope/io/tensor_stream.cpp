#include "rope/io/tensor_stream.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rope/core/error.hpp"
#include "rope/core/message.hpp"
#include "rope/core/simd.hpp"
#include "rope/io/input_files.hpp"
#include "rope/io/tensor_directory.hpp"
#include "rope/core/utf8.hpp"

namespace rope {

// pread until `n` bytes are read; returns the bytes read (fewer: the file ended), -1 with errno on error.
long long pread_full(int fd, unsigned char* out, std::size_t n, std::uint64_t at) {
  std::size_t done = 0;
  while (done < n) {
    const ssize_t got = ::pread(fd, out + done, n - done, static_cast<off_t>(at + done));
    if (got < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if (got == 0) break;
    done += static_cast<std::size_t>(got);
  }
  return static_cast<long long>(done);
}

namespace {

bool little_endian_host() {
  const std::uint16_t one = 1;
  unsigned char first;
  std::memcpy(&first, &one, 1);
  return first == 1;
}

// The two common types, widened to double: a copy per x86-64 level (core/simd.hpp); exact on every level.
ROPE_CLONES void decode_f32(const unsigned char* raw, long count, double* out) {
  for (long e = 0; e < count; ++e) {
    float f;
    std::memcpy(&f, raw + 4 * e, 4);
    out[e] = f;
  }
}

ROPE_CLONES void decode_bf16(const unsigned char* raw, long count, double* out) {
  for (long e = 0; e < count; ++e) {  // bfloat16: the high half of a float32
    std::uint16_t b;
    std::memcpy(&b, raw + 2 * e, 2);
    const std::uint32_t bits = static_cast<std::uint32_t>(b) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    out[e] = f;
  }
}

/// Bytes read first when a tensor file is opened: a header of .npy or safetensors usually fits.
constexpr std::size_t kFirstHeaderBytes = 64 * 1024;

/// The end of the header that the first bytes `head` announce (.npy: magic, version, length; safetensors: the
/// 8-byte size), or the largest value when they do not say. The parsers read nothing past it (a size too large
/// fails their rules whatever was read).
std::uint64_t header_end(const std::vector<unsigned char>& head) {
  const auto le = [&](std::size_t at, int n) {
    std::uint64_t v = 0;
    for (int k = n - 1; k >= 0; --k) v = (v << 8) | head[at + static_cast<std::size_t>(k)];
    return v;
  };
  std::uint64_t end = UINT64_MAX;
  if (head.size() >= 12 && std::memcmp(head.data(), "\x93NUMPY", 6) == 0) {
    const int n = head[6] == 1 ? 2 : 4;
    end = 8 + static_cast<std::uint64_t>(n) + le(8, n);
  } else if (head.size() >= 8) {
    end = 8 + le(0, 8);  // safetensors (a CSV file is refused whatever its first bytes)
  }
  return end;
}

}  // namespace

TensorStream TensorStream::open(const std::string& path, const TensorReadOptions& options) {
  if (path.empty()) throw InvalidArgument(error_msg("tensor file name is empty"));
  TensorStream s;
  s.name_ = escape_controls(path, kQuotedBytes);
  s.fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (s.fd_ < 0) throw IoError(error_msg("cannot read tensor file '{0}': {1}", s.name_, std::strerror(errno)));
  note_input_file(s.fd_);
  struct stat st {};
  if (::fstat(s.fd_, &st) != 0)
    throw IoError(error_msg("cannot read tensor file '{0}': {1}", s.name_, std::strerror(errno)));
  if (!S_ISREG(st.st_mode)) {
    throw IoError(error_msg("cannot read tensor file '{0}': {1}", s.name_,
                            "not a regular file (a FIFO, device or socket is not read)"));
  }
  const auto size = static_cast<std::uint64_t>(st.st_size);
  // The first bytes, then all a header may take (1 MiB) only when the header the first bytes announce is longer.
  const auto most = static_cast<std::size_t>(std::min<std::uint64_t>(size, kMaxTensorHeaderBytes + 16));
  std::vector<unsigned char> head(std::min(most, kFirstHeaderBytes));
  long long got = pread_full(s.fd_, head.data(), head.size(), 0);
  if (got >= 0 && static_cast<std::size_t>(got) == head.size() && head.size() < most &&
      header_end(head) > head.size()) {
    head.resize(most);
    got = pread_full(s.fd_, head.data(), head.size(), 0);
  }
  if (got < 0) throw IoError(error_msg("cannot read tensor file '{0}': {1}", s.name_, std::strerror(errno)));
  head.resize(static_cast<std::size_t>(got));
  const std::string_view bytes(reinterpret_cast<const char*>(head.data()), head.size());
  detail::count_tensor_directory_read();
  const TensorFormat format = detect_tensor_format(bytes, path);
  if (!options.tensor.empty() && format != TensorFormat::Safetensors) {
    throw InvalidArgument(error_msg("{0} '{1}' names a tensor of a safetensors file, and '{2}' is {3}",
                                    option_name("tensor"), escape_controls(options.tensor, kQuotedBytes), s.name_,
                                    to_string(format)));
  }
  if (format == TensorFormat::Csv)
    throw InvalidArgument(error_msg("{0}: a CSV file is read whole, not streamed", s.name_));
  s.header_ = format == TensorFormat::Npy ? parse_npy_header(bytes, size, s.name_, options, kMaxStreamElements)
                                          : parse_safetensors_header(bytes, size, s.name_, options, kMaxStreamElements);
  return s;
}

TensorStream TensorStream::open_parsed(const std::string& path, TensorHeader header) {
  TensorStream s;
  s.name_ = escape_controls(path, kQuotedBytes);
  s.fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (s.fd_ < 0) throw IoError(error_msg("cannot read tensor file '{0}': {1}", s.name_, std::strerror(errno)));
  note_input_file(s.fd_);
  struct stat st {};
  if (::fstat(s.fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    throw IoError(error_msg("cannot read tensor file '{0}': {1}", s.name_,
                            "not a regular file (a FIFO, device or socket is not read)"));
  }
  s.header_ = std::move(header);
  return s;
}

TensorStream TensorStream::in_memory(const unsigned char* data, TensorHeader header, std::string name) {
  TensorStream s;
  s.memory_ = data;
  s.header_ = std::move(header);
  s.header_.data_offset = 0;
  s.name_ = std::move(name);
  return s;
}

bool TensorStream::streamable(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  unsigned char head[9] = {};
  const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  const long long got = regular ? pread_full(fd, head, sizeof head, 0) : -1;
  ::close(fd);
  if (got < 9) return false;
  return std::memcmp(head, "\x93NUMPY", 6) == 0 || head[8] == '{';
}

TensorStream::TensorStream(TensorStream&& o) noexcept
    : fd_(o.fd_), memory_(o.memory_), header_(std::move(o.header_)), name_(std::move(o.name_)) {
  o.fd_ = -1;
}

TensorStream& TensorStream::operator=(TensorStream&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_, memory_ = o.memory_, header_ = std::move(o.header_), name_ = std::move(o.name_);
    o.fd_ = -1;
  }
  return *this;
}

TensorStream::~TensorStream() {
  if (fd_ >= 0) ::close(fd_);
}

void TensorStream::read_raw(long first, long count, unsigned char* raw) const {
  if (first < 0 || count < 0 || first + count > header_.count) {
    throw InvalidArgument(
        error_msg("{0}: elements [{1}, {2}) outside the tensor's {3}", name_, first, first + count, header_.count));
  }
  const std::uint64_t at =
      header_.data_offset + static_cast<std::uint64_t>(first) * static_cast<std::uint64_t>(header_.bytes);
  const std::size_t n = static_cast<std::size_t>(count) * static_cast<std::size_t>(header_.bytes);
  if (memory_ != nullptr) {
    std::memcpy(raw, memory_ + at, n);
    return;
  }
  const long long got = pread_full(fd_, raw, n, at);
  if (got < 0)
    throw IoError(error_msg("cannot read tensor file '{0}' at byte {1}: {2}", name_, at, std::strerror(errno)));
  if (static_cast<std::size_t>(got) < n) {
    // Where the file ends now: a read that starts beyond the new end (another thread's block) gets nothing.
    std::uint64_t end = at + static_cast<std::uint64_t>(got);
    struct stat st {};
    if (::fstat(fd_, &st) == 0) end = std::min(end, static_cast<std::uint64_t>(st.st_size));
    throw IoError(error_msg(
        "cannot read tensor file '{0}': it ends at byte {1}, its header promised {2} (the file changed "
        "while it was read)",
        name_, end,
        header_.data_offset + static_cast<std::uint64_t>(header_.count) * static_cast<std::uint64_t>(header_.bytes)));
  }
}

void TensorStream::read(long first, long count, double* out, std::vector<unsigned char>& scratch) const {
  scratch.resize(static_cast<std::size_t>(count) * static_cast<std::size_t>(header_.bytes));
  read_raw(first, count, scratch.data());
  decode_elements(scratch.data(), count, header_, out);
}

void decode_elements(const unsigned char* raw, long count, const TensorHeader& h, double* out) {
  const bool native = !h.big_endian && little_endian_host();
  if (native && h.kind == 'f' && h.bytes == 4) {
    decode_f32(raw, count, out);
    return;
  }
  if (native && h.kind == 'f' && h.bytes == 8) {
    std::memcpy(out, raw, static_cast<std::size_t>(count) * 8);
    return;
  }
  if (native && h.bytes == 2 && h.dtype == DType::BF16) {
    decode_bf16(raw, count, out);
    return;
  }
  if (native && h.bytes == 2 && h.dtype == DType::F16) {
    for (long e = 0; e < count; ++e) {
      std::uint16_t b;
      std::memcpy(&b, raw + 2 * e, 2);
      out[e] = static_cast<double>(static_cast<float>(Eigen::half(Eigen::half_impl::raw_uint16_to_half(b))));
    }
    return;
  }
  std::vector<double> v;
  detail::decode_values(raw, count, h.bytes, h.kind, h.big_endian, h.dtype, v);
  std::memcpy(out, v.data(), v.size() * sizeof(double));
}

}  // namespace rope
