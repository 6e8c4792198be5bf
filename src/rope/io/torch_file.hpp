/// @file
/// The tensors of a file written by `torch.save` (docs/check.md "Dumps of PyTorch"), read without running
/// anything: the zip archive through minizip (Debian's libminizip-dev, zlib's contrib/minizip), and its
/// `data.pkl` through a pickle interpreter of the subset torch.save writes for tensors in dicts, lists and
/// tuples. Every other global and opcode is refused, naming it, before anything is built from it.
///
/// The layout, as pytorch/pytorch torch/serialization.py (commit 000a1a54cb9cfd97fc822c5ef8fe52901c780daa,
/// `_save`, `_load`, `persistent_load`) writes and reads it:
///   ARCHIVE/data.pkl    a pickle (protocol 2); each storage is a persistent id
///                       ('storage', torch.<Type>Storage, key, location, numel) and each tensor
///                       torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad,
///                       backward_hooks[, metadata]) (a parameter: _rebuild_parameter(tensor, requires_grad,
///                       hooks)), dicts as dict or collections.OrderedDict;
///   ARCHIVE/data/KEY    the storage's elements, numel of them, in the byte order of ARCHIVE/byteorder
///                       (2.x; "little" where it is missing, as PyTorch 1.13 writes none);
///   ARCHIVE/version, and in 2.x .format_version, .storage_alignment, .data/serialization_id: not needed.
/// A tensor is a view: element (i0, …, ik) is storage[offset + Σ ij·stride j], so a q that is a slice of a fused
/// qkv reads right. Limits (docs/errors.md "Limits"): the file as tensor_file.hpp (kMaxTensorFileBytes), data.pkl
/// at most kMaxPickleBytes, containers nested at most kMaxPickleDepth, at most kMaxPickleValues values and
/// kMaxTorchTensors tensors; each view's extent is checked against its storage's record before any element is
/// read. The legacy format (PyTorch < 1.6, or `_use_new_zipfile_serialization=False`) is refused with a hint.
///
/// Streamed: a file is opened once (TorchArchive::open: the zip's central directory and data.pkl), then each
/// tensor read from it takes only the bytes its view spans in its storage, by pread where the record is stored
/// (torch.save stores every record); the file is never read whole, and its size is not limited.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rope/io/tensor_file.hpp"

namespace rope {

/// Largest data.pkl read (a dict of a few thousand tensors is a few hundred kB).
inline constexpr std::size_t kMaxPickleBytes = std::size_t{16} << 20;
/// Deepest nesting of dicts, lists and tuples in data.pkl.
inline constexpr int kMaxPickleDepth = 64;
/// Most values (every opcode makes at most one) and most memo entries of data.pkl.
inline constexpr long kMaxPickleValues = 1L << 18;
/// Longest name of a tensor, its keys joined with dots.
inline constexpr std::size_t kMaxTorchNameBytes = 4096;
/// Most tensors named in one file.
inline constexpr long kMaxTorchTensors = 1L << 16;
/// The largest rank a tensor of data.pkl may have to be listed (rope inspect --tensors); one is read only up to
/// kMaxTensorRank (8), a larger one refused by its rank where it is read.
inline constexpr int kMaxTorchListedRank = 32;

/// One tensor of a torch.save file, as data.pkl describes it.
struct TorchTensorInfo {
  std::string name;    ///< its keys joined with dots, list items by index ("layers.0.q"); "" for a lone tensor
  std::string stored;  ///< torch's name of the dtype: "bfloat16", "float32", "int64", …
  DType dtype = DType::F64;
  int bytes = 4;    ///< bytes per element
  char kind = 'f';  ///< as TensorHeader::kind
  std::vector<long> shape, strides;
  long offset = 0;          ///< storage offset, in elements
  std::string storage_key;  ///< the record data/KEY
  long storage_numel = 0;   ///< the storage's elements
};

/// A torch.save file opened once: its directory and data.pkl read, any of its tensors read after.
class TorchArchive {
 public:
  /// Opens a file (a regular file; never read whole). @throws IoError (cannot open or read), InvalidArgument as
  /// list_torch_tensors (the legacy format, a malformed archive or pickle).
  static TorchArchive open(const std::string& path);
  /// The same, `name` starting every message instead of the path.
  static TorchArchive open(const std::string& path, const std::string& name);
  /// The archive in `bytes`, which must outlive it. `name` starts every message.
  static TorchArchive in_memory(std::string_view bytes, const std::string& name);

  TorchArchive(TorchArchive&& other) noexcept;
  TorchArchive& operator=(TorchArchive&& other) noexcept;
  TorchArchive(const TorchArchive&) = delete;
  TorchArchive& operator=(const TorchArchive&) = delete;
  ~TorchArchive();

  /// Every tensor, in the order of data.pkl.
  const std::vector<TorchTensorInfo>& tensors() const;
  /// The file's name as messages give it.
  const std::string& name() const;
  /// As parse_torch: the tensor `options.tensor` names, reading only the bytes its view spans. Not thread-safe.
  TensorData read(const TensorReadOptions& options = {}) const;

  struct State;

 private:
  TorchArchive();
  std::unique_ptr<State> state_;
  int fd_ = -1;
};

/// Whether the bytes begin as a zip archive does ("PK\3\4").
bool is_zip_archive(std::string_view bytes);

/// Whether the file at `path` begins as a zip archive does (false where it cannot be read: its reader says why).
bool is_zip_file(const std::string& path);

/// Every tensor of a torch.save file's bytes, in the order of data.pkl. `name` starts every message.
/// @throws InvalidArgument for a malformed archive or pickle, a global or opcode outside the subset (naming it),
///         a view outside its storage, a limit passed.
std::vector<TorchTensorInfo> list_torch_tensors(std::string_view bytes, const std::string& name);

/// The tensor `options.tensor` names (empty: the file must hold exactly one), its elements gathered through its
/// strides; integers (int64, int32, …) only with options.integers. @throws InvalidArgument as list_torch_tensors,
/// and for a missing or ambiguous name.
TensorData parse_torch(std::string_view bytes, const std::string& name, const TensorReadOptions& options = {});

}  // namespace rope
