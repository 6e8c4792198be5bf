// A dump file opened once (tensor_directory.hpp).
#include "rope/io/tensor_directory.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

#include "rope/core/error.hpp"
#include "rope/core/message.hpp"
#include "rope/io/input_files.hpp"
#include "rope/io/torch_file.hpp"
#include "rope/core/utf8.hpp"

namespace rope {

struct TensorDirectory::State {
  std::string path, name;
  TensorListing listing;
  std::optional<TorchArchive> torch;
  /// safetensors: the 8 bytes of its size and the header, the file's size, every entry's place (count 0: an entry
  /// its reader refuses, named when asked for).
  std::string header;
  std::uint64_t file_size = 0;
  std::vector<std::pair<std::string, TensorHeader>> entries;
  bool safetensors = false, npy = false;
};

namespace {

/// The first `n` bytes of the file `fd` (fewer where it is shorter). @throws IoError.
std::string directory_bytes(int fd, std::size_t n, const std::string& name) {
  std::string out(n, '\0');
  std::size_t done = 0;
  while (done < n) {
    const ssize_t got = ::pread(fd, out.data() + done, n - done, static_cast<off_t>(done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw IoError(error_msg("cannot read tensor file '{0}': {1}", name, std::strerror(errno)));
    if (got == 0) break;
    done += static_cast<std::size_t>(got);
  }
  out.resize(done);
  return out;
}

/// The first bytes of the file at `path`: a safetensors header's 8-byte size and the header (at most
/// kMaxTensorHeaderBytes), or a .npy file's first 8 bytes.
std::string safetensors_header_bytes(const std::string& path, const std::string& name, std::uint64_t* file_size) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) throw IoError(error_msg("cannot read tensor file '{0}': {1}", name, std::strerror(errno)));
  note_input_file(fd);
  struct stat st {};
  const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  if (!regular) {
    ::close(fd);
    throw IoError(error_msg("cannot read tensor file '{0}': {1}", name,
                            "not a regular file (a FIFO, device or socket is not read)"));
  }
  *file_size = static_cast<std::uint64_t>(st.st_size);
  try {
    std::string head = directory_bytes(fd, 8, name);
    std::uint64_t n = 0;
    for (std::size_t i = 0; i < head.size(); ++i) n |= std::uint64_t{static_cast<unsigned char>(head[i])} << (8 * i);
    // A size over the limit or the file is refused by the parser, from the bytes read.
    if (head.size() == 8 && n <= kMaxTensorHeaderBytes && n <= *file_size - 8)
      head = directory_bytes(fd, static_cast<std::size_t>(8 + n), name);
    ::close(fd);
    return head;
  } catch (...) {
    ::close(fd);
    throw;
  }
}

std::vector<long> directory_c_strides(const std::vector<long>& shape) {
  std::vector<long> s(shape.size(), 1);
  for (std::size_t k = shape.size(); k-- > 1;) s[k - 1] = s[k] * shape[k];
  return s;
}

}  // namespace

TensorDirectory::TensorDirectory(std::unique_ptr<State> state) : state_(std::move(state)) {}
TensorDirectory::~TensorDirectory() = default;

std::shared_ptr<const TensorDirectory> TensorDirectory::open(const std::string& path) {
  if (path.empty()) throw InvalidArgument(error_msg("tensor file name is empty"));
  auto s = std::make_unique<State>();
  s->path = path;
  s->name = escape_controls(path, kQuotedBytes);
  if (is_zip_file(path)) {
    s->torch.emplace(TorchArchive::open(path));
    s->listing.file = path;
    s->listing.format = "torch.save";
    for (const TorchTensorInfo& t : s->torch->tensors())
      s->listing.tensors.push_back({t.name, t.stored, t.shape, t.strides, t.offset, ""});
  } else if (TensorStream::streamable(path)) {
    s->header = safetensors_header_bytes(path, s->name, &s->file_size);
    if (s->header.size() >= 6 && s->header.compare(0, 6, "\x93NUMPY") == 0) {
      s->npy = true;  // one tensor, its header read again when it is opened (a few bytes)
      s->header.clear();
      TensorReadOptions o;
      o.integers = true;
      const TensorHeader h = TensorStream::open(path, o).header();
      s->listing.format = "npy";
      s->listing.tensors.push_back({"", h.stored, h.shape, directory_c_strides(h.shape), 0, ""});
    } else {
      detail::count_tensor_directory_read();
      s->safetensors = true;
      s->listing = list_safetensors_header(s->header, s->file_size, s->name);  // every name, unreadable ones too
      s->entries = parse_safetensors_directory(s->header, s->file_size, s->name, kMaxStreamElements);
    }
    s->listing.file = path;
  } else {
    s->listing = list_tensors(path);  // GGUF; CSV is refused there
  }
  return std::shared_ptr<const TensorDirectory>(new TensorDirectory(std::move(s)));
}

const std::string& TensorDirectory::path() const { return state_->path; }
const TensorListing& TensorDirectory::listing() const { return state_->listing; }
bool TensorDirectory::streamable() const { return state_->safetensors || state_->npy; }

TensorStream TensorDirectory::stream(const TensorReadOptions& options) const {
  const State& s = *state_;
  if (!s.safetensors) return TensorStream::open(s.path, options);
  const TensorHeader* found = nullptr;
  if (options.tensor.empty()) {
    if (s.entries.size() == 1) found = &s.entries.front().second;
  } else {
    for (const auto& [name, header] : s.entries)
      if (name == options.tensor) found = &header;
  }
  const bool integer = found != nullptr && (found->kind == 'i' || found->kind == 'u');
  if (found == nullptr || found->count == 0 || (integer && !options.integers) ||
      (options.tensor.empty() && s.listing.tensors.size() != 1)) {
    // The reader's own message for it: the header parsed again, once, on the way out.
    return TensorStream::open_parsed(
        s.path, parse_safetensors_header(s.header, s.file_size, s.name, options, kMaxStreamElements));
  }
  return TensorStream::open_parsed(s.path, *found);
}

TensorData TensorDirectory::read(const TensorReadOptions& options) const {
  const State& s = *state_;
  if (s.torch) return s.torch->read(options);
  if (!s.safetensors) return read_tensor_file(s.path, options);
  const TensorStream t = stream(options);
  const TensorHeader& h = t.header();
  detail::checked_element_count(h.shape, s.name,
                                "tensor '" + escape_controls(options.tensor, kQuotedBytes) + "' shape");
  TensorData out;
  out.shape = h.shape;
  out.dtype = h.dtype;
  out.stored = h.stored;
  out.values.resize(static_cast<std::size_t>(h.count));
  std::vector<unsigned char> scratch;
  t.read(0, h.count, out.values.data(), scratch);
  return out;
}

}  // namespace rope
