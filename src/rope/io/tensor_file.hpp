/// @file
/// Reading a tensor someone dumped from a real RoPE implementation (docs/check.md): NumPy .npy, safetensors
/// and CSV, into doubles, for `rope check` and `rope identify`.
///
/// Why our own readers. Debian 12 has xtensor 0.24.3 (`xtensor-dev`), whose `xtensor/xnpy.hpp` reads .npy
/// (from llohse/libnpy), but it refuses format version 3.0 ("unsupported file format version"), knows no
/// float16 type (its `map_type<T>` covers float/double/long double only), compares the dtype string with the
/// host's exactly so a big-endian `>f4` file is refused instead of byte-swapped, and `load_npy_file` reads
/// the data with an unchecked `stream.read` of the header's shape: a truncated file or a shape larger than
/// the file is not reported. There is no Debian C++ package for safetensors. Both formats are small, so
/// each has a strict reader here, from the format's own specification:
///   - NPY: numpy/lib/format.py (module docstring "Format Version 1.0", versions 2.0 and 3.0);
///   - safetensors: huggingface/safetensors README, "Format" (8-byte little-endian header size N, N bytes
///     of JSON beginning with '{', then the byte buffer; offsets relative to the buffer), JSON by
///     nlohmann-json.
///
/// Every reader is bounded and never reads past the bytes it was given: a header or a shape larger than
/// the file, a product of dimensions that overflows or exceeds kMaxTensorElements, a file larger than
/// kMaxTensorFileBytes, are refused with one line that names the file, the byte offset or field, and the
/// rule broken (control characters escaped).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "rope/core/dtype.hpp"

namespace rope {

/// Largest tensor file read (a [1, 32, 4096, 128] float32 dump is 64 MiB).
inline constexpr std::size_t kMaxTensorFileBytes = std::size_t{256} << 20;
/// Largest number of elements in one tensor (each is held as a double: 128 MiB).
inline constexpr long kMaxTensorElements = 1L << 24;
/// Largest rank.
inline constexpr int kMaxTensorRank = 8;
/// Largest NPY or safetensors header (safetensors itself allows 100 MB; real headers are a few kB).
inline constexpr std::size_t kMaxTensorHeaderBytes = std::size_t{1} << 20;

enum class TensorFormat { Npy, Safetensors, Csv };

/// "npy", "safetensors", "csv".
std::string_view to_string(TensorFormat format);

/// How to read a file.
struct TensorReadOptions {
  /// NPY: 16-bit integers (`<u2`, `<i2`, `>u2`, `>i2`) are bfloat16 bit patterns (numpy has no bfloat16,
  /// so `t.view(torch.int16).numpy()` is how such a dump is written). Without it they are refused.
  bool bf16_bits = false;
  /// safetensors: the tensor to read; empty means the file must hold exactly one.
  std::string tensor;
  /// NPY and safetensors: integers of 1 to 8 bytes (`<i8`, `<u4`, I64, I32, …) are read as their values
  /// (positions: PyTorch's position_ids are int64). Values beyond 2^53 are not exact. Ignored for 16-bit
  /// integers when bf16_bits is set.
  bool integers = false;
};

/// A tensor as read: C order (last index fastest), every value exactly converted to double.
struct TensorData {
  std::vector<long> shape;
  std::vector<double> values;
  DType dtype = DType::F64;  ///< the type the values were stored in (CSV: F64)
  std::string stored;        ///< the type as the file spells it: "<f4", "BF16", "csv", "<u2 (bf16 bits)"
  long size() const { return static_cast<long>(values.size()); }
};

/// Where a .npy or safetensors file keeps its tensor: what the header says, checked against the file's size.
struct TensorHeader {
  TensorFormat format = TensorFormat::Npy;
  std::vector<long> shape;
  DType dtype = DType::F64;
  std::string stored;             ///< as TensorData::stored
  std::uint64_t data_offset = 0;  ///< byte of the first element
  long count = 0;                 ///< elements
  int bytes = 4;                  ///< bytes per element
  char kind = 'f';                ///< 'f' float, 'h' float16/bfloat16 (by dtype), 'i'/'u' integers
  bool big_endian = false;
};

/// The header of a .npy file from its first bytes (`bytes`: at least the header; `file_size`: the whole
/// file's), with at most `max_elements` elements. @throws InvalidArgument as parse_npy.
TensorHeader parse_npy_header(std::string_view bytes, std::uint64_t file_size, const std::string& name,
                              const TensorReadOptions& options, long max_elements);
/// The same for safetensors.
TensorHeader parse_safetensors_header(std::string_view bytes, std::uint64_t file_size, const std::string& name,
                                      const TensorReadOptions& options, long max_elements);

/// The tensor of a whole file's `bytes` whose header is `header`.
TensorData decode_tensor(std::string_view bytes, const TensorHeader& header);

/// Parses the bytes of a .npy file. `name` starts every message.
/// @throws InvalidArgument for a malformed file, an unsupported dtype, fortran_order True, a shape whose
///         data is not exactly the rest of the file.
TensorData parse_npy(std::string_view bytes, const std::string& name, const TensorReadOptions& options = {});

/// Parses the bytes of a .safetensors file (dtypes F16, BF16, F32, F64).
/// @throws InvalidArgument for a malformed file, a missing or ambiguous tensor, offsets outside the buffer
///         or not matching the shape.
TensorData parse_safetensors(std::string_view bytes, const std::string& name, const TensorReadOptions& options = {});

/// Parses CSV text: one row per line, numbers separated by commas; blank lines and lines starting with
/// '#' are skipped, and a first row that is not all numbers is a header. Shape [rows, columns].
/// @throws InvalidArgument for a bad number (naming line and column), rows of different lengths, no rows.
TensorData parse_csv_tensor(std::string_view text, const std::string& name);

/// The format from the file's first bytes (`\x93NUMPY`; 8 bytes then '{' for safetensors), else its
/// extension (.npy, .safetensors, .csv, .txt). @throws InvalidArgument if neither tells.
TensorFormat detect_tensor_format(std::string_view bytes, const std::string& path);

/// Reads and parses a file (at most kMaxTensorFileBytes).
/// @throws IoError if it cannot be read, InvalidArgument as the parsers.
TensorData read_tensor_file(const std::string& path, const TensorReadOptions& options = {});

/// The shape as "(2, 3, 4)".
std::string shape_string(const std::vector<long>& shape);

namespace detail {
/// The product of `shape`, checked: each dimension >= 0, the product <= max_elements.
/// @throws InvalidArgument "{name}: {field}: …" otherwise.
long checked_element_count(const std::vector<long>& shape, const std::string& name, std::string_view field,
                           long max_elements = kMaxTensorElements);
/// Converts `count` stored elements at `data` (little- or big-endian) to doubles.
void decode_values(const unsigned char* data, long count, int bytes, char kind, bool big_endian, DType dtype,
                   std::vector<double>& out);
}  // namespace detail

}  // namespace rope
