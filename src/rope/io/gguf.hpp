/// @file
/// A strict, bounded reader of the header of a GGUF file (llama.cpp's model format, ggml-org/ggml
/// docs/gguf.md): the metadata key-value pairs, the tensor infos, and the data of a few small f32
/// tensors asked for by name (`rope_freqs`, `rope_factors_long`, `rope_factors_short`). The weights are
/// never read: a 40 GB model is inspected by reading its first kilobytes to megabytes.
///
/// Layout (docs/gguf.md): bytes "GGUF"; uint32 version (2 or 3; version 1 used 32-bit lengths and is
/// refused); uint64 tensor_count; uint64 metadata_kv_count; the pairs {string key; uint32 value_type;
/// value}; the tensor infos {string name; uint32 n_dims; uint64 dims[n_dims]; uint32 ggml_type; uint64
/// offset}; padding to general.alignment (default 32); the tensor data. A string is uint64 length + bytes
/// (no NUL); an array is uint32 item type + uint64 count + items. The numbers are little endian, or all
/// big endian (a big-endian file still starts with the bytes "GGUF"; its version then reads as 2 or 3
/// only when byte-swapped, which is how gguf-py and this reader tell them apart).
///
/// Strict: every length and count is checked against the bytes left in the file before anything is
/// allocated or skipped, arithmetic on offsets cannot overflow, and the limits below bound work and
/// memory whatever the file says. A malformed file gives InvalidArgument with one line naming the file,
/// the byte offset and the rule broken; a file that cannot be read gives IoError.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rope {

/// At most this many metadata pairs (real models have 20 to 60).
inline constexpr std::uint64_t kMaxGgufKeyValues = 65536;
/// At most this many tensor infos (DeepSeek-V3 has about 1 100; MoE files with split experts a few 10 000).
inline constexpr std::uint64_t kMaxGgufTensors = 1u << 20;
/// At most this many array items in the whole metadata, nested ones included (a 256k-token vocabulary
/// with its scores and types is under 10^6).
inline constexpr std::uint64_t kMaxGgufArrayItems = 1u << 24;
/// Arrays nest at most this deep (real files: 1).
inline constexpr int kMaxGgufDepth = 8;
/// A key, a string value or a tensor name is at most this long (docs/gguf.md: keys at most 65535 bytes).
inline constexpr std::uint64_t kMaxGgufKeyBytes = 65535;
inline constexpr std::uint64_t kMaxGgufStringBytes = 16u << 20;
inline constexpr std::uint64_t kMaxGgufTensorNameBytes = 64;  ///< ggml's GGML_MAX_NAME
inline constexpr std::uint32_t kMaxGgufDims = 4;              ///< ggml's GGML_MAX_DIMS
/// Arrays up to this length are kept in GgufValue::items; longer ones (vocabularies) are checked,
/// counted and skipped.
inline constexpr std::uint64_t kMaxGgufKeptItems = 4096;
/// At most this many array items and this many string bytes are kept in the whole metadata (memory bound).
inline constexpr std::uint64_t kMaxGgufKeptTotalItems = 1u << 16;
inline constexpr std::uint64_t kMaxGgufKeptBytes = 64u << 20;
/// A tensor whose data is read (f32, one dimension) has at most this many elements.
inline constexpr std::uint64_t kMaxGgufReadElements = 65536;

/// The value types of docs/gguf.md, with their numbers in the file.
enum class GgufType : std::uint32_t {
  UInt8 = 0,
  Int8 = 1,
  UInt16 = 2,
  Int16 = 3,
  UInt32 = 4,
  Int32 = 5,
  Float32 = 6,
  Bool = 7,
  String = 8,
  Array = 9,
  UInt64 = 10,
  Int64 = 11,
  Float64 = 12,
};
/// "uint32", "string", "array", ... as docs/gguf.md names them.
std::string_view to_string(GgufType type);

/// One metadata value. Numbers of every type are kept exactly in `integer` (the integer types) or
/// `real` (float32, float64); `as_number` gives either as a double.
struct GgufValue {
  GgufType type = GgufType::UInt8;
  std::int64_t integer = 0;              ///< integer types and bool; a uint64 above INT64_MAX sets `huge`
  bool huge = false;                     ///< uint64 value above INT64_MAX (then `integer` is meaningless)
  double real = 0.0;                     ///< float64; float32 as the shortest decimal that rounds to it (0.1f → 0.1)
  std::string text;                      ///< string
  GgufType item_type = GgufType::UInt8;  ///< array: the items' type
  std::uint64_t count = 0;               ///< array: number of items
  std::vector<GgufValue> items;          ///< array: the items when count <= kMaxGgufKeptItems, else empty

  bool is_integer() const;  ///< one of the eight integer types (not bool)
  bool is_number() const;   ///< an integer type or a float type
  /// The number as a double (nullopt for strings, bools, arrays and huge uint64).
  std::optional<double> as_number() const;
};

struct GgufTensorInfo {
  std::string name;
  std::vector<std::uint64_t> dims;
  std::uint32_t ggml_type = 0;  ///< 0 = F32, 1 = F16, 30 = BF16, ... (ggml.h enum ggml_type)
  std::uint64_t offset = 0;     ///< from the start of the data section
};

struct GgufFile {
  std::string name;           ///< as given, for messages
  std::uint32_t version = 0;  ///< 2 or 3
  bool big_endian = false;
  std::uint64_t file_size = 0;
  std::uint64_t alignment = 32;                             ///< general.alignment, or the default 32
  std::uint64_t data_offset = 0;                            ///< start of the tensor data (after the infos, aligned)
  std::uint64_t array_items = 0;                            ///< array items in the metadata, nested ones included
  std::vector<std::pair<std::string, GgufValue>> metadata;  ///< in file order
  std::vector<GgufTensorInfo> tensors;                      ///< in file order
  std::map<std::string, std::vector<float>> tensor_data;    ///< the small tensors asked for, when present

  const GgufValue* find(std::string_view key) const;
  const GgufTensorInfo* tensor(std::string_view name) const;
};

/// Where the bytes come from: a file (read_gguf) or memory (parse_gguf, the fuzz target and tests).
class GgufSource {
 public:
  virtual ~GgufSource() = default;
  virtual std::uint64_t size() const = 0;
  /// Exactly n bytes at `offset`; the caller has checked offset + n <= size().
  /// @throws IoError if the read fails.
  virtual void read(std::uint64_t offset, void* dst, std::size_t n) = 0;
};

/// Parses the header, metadata and tensor infos of `source`, and the data of the tensors named in
/// `read_tensors` that exist (each must be f32 with one dimension of at most kMaxGgufReadElements).
/// @throws InvalidArgument "NAME: offset N: RULE" for a malformed file; IoError from the source.
GgufFile parse_gguf(GgufSource& source, const std::string& name, const std::vector<std::string>& read_tensors = {});
/// The same on bytes in memory.
GgufFile parse_gguf(std::string_view bytes, const std::string& name, const std::vector<std::string>& read_tensors = {});

/// Opens `path` and parses it with bounded, seeking reads.
/// @throws IoError ("cannot read 'x': No such file or directory") if it cannot be opened or read, or is
///         not a regular file; InvalidArgument as parse_gguf.
GgufFile read_gguf(const std::string& path, const std::vector<std::string>& read_tensors = {});

/// Whether `path` starts with the bytes "GGUF" (false when it cannot be read: the caller's own reader
/// then reports that).
bool is_gguf_file(const std::string& path);

/// `text` for a message or a report: control characters and bytes that are not UTF-8 escaped as \xNN,
/// cut to at most `max_chars` bytes with "…".
std::string printable(std::string_view text, std::size_t max_chars = 80);

}  // namespace rope
