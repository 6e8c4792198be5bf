/// @file
/// A checkpoint's weights, read tensor by tensor: a Hugging Face directory (config.json beside one
/// `model.safetensors`, or shards listed by `model.safetensors.index.json`), a single `.safetensors` file, or a
/// GGUF file (its tensor directory, gguf.hpp, and its blocks, ggml_blocks.hpp). Opening reads the headers only;
/// `read_weight` reads one tensor's bytes by pread and decodes them to float, so what is held is the tensors
/// asked for, never the file.
///
/// The interface other commands use (`rope weights`, `rope inspect --tensors`): `open_weights` lists the
/// tensors (name, shape rows first, type, where), `read_weight` gives one as floats.
///
/// Formats: safetensors per huggingface/safetensors README "Format" (8-byte little-endian header size, a JSON
/// header, the buffer); the index per transformers' sharded checkpoints (modeling_utils.py: a JSON object whose
/// "weight_map" maps each tensor name to its shard's file name, in the same directory); GGUF per ggml-org/ggml
/// docs/gguf.md, a tensor of dims [ne0, ne1] holding ne1 rows of ne0 elements (so its shape here is [ne1, ne0],
/// Hugging Face's order). Every count, offset and size is checked against the file before anything is allocated
/// or read; the limits below bound the rest.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rope {

struct GgufFile;

/// Largest safetensors header read here (the format allows 100 MB; a 400-billion-parameter model's is under 2 MB).
inline constexpr std::uint64_t kMaxWeightHeaderBytes = std::uint64_t{16} << 20;
/// Largest model.safetensors.index.json (a large MoE's is a few MB).
inline constexpr std::uint64_t kMaxWeightIndexBytes = std::uint64_t{64} << 20;
/// At most this many shards and tensors in one checkpoint.
inline constexpr std::size_t kMaxWeightShards = 4096;
inline constexpr std::size_t kMaxWeightTensors = std::size_t{1} << 20;
/// Largest tensor read (elements, held as float: 1 GiB; a 405B model's q_proj is 16384 × 16384 = 2^28).
inline constexpr long kMaxWeightElements = 1L << 28;

enum class WeightFormat { Safetensors, Gguf };

struct WeightTensor {
  std::string name;
  std::vector<long> shape;   ///< rows first (Hugging Face's [out, in]; a GGUF's dims reversed)
  std::string dtype;         ///< "BF16", "F32", "Q4_K", … (safetensors' or gguf-py's name)
  std::uint32_t type = 0;    ///< the ggml_type number (safetensors' types mapped: F32 0, F16 1, BF16 30)
  bool decodable = false;    ///< a type read_weight decodes (F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q6_K)
  std::size_t file = 0;      ///< index into WeightFile::files
  std::uint64_t offset = 0;  ///< byte of its first element in that file
  std::uint64_t bytes = 0;   ///< bytes of its data
  long elements() const;
};

struct WeightFile {
  std::string path;  ///< as given
  WeightFormat format = WeightFormat::Safetensors;
  std::string config;                 ///< the file that says the model: config.json beside it, the GGUF itself, or ""
  std::vector<std::string> files;     ///< the files holding tensors (the shards)
  std::vector<WeightTensor> tensors;  ///< sorted by name
  /// The tensor named `name`, or nullptr.
  const WeightTensor* find(std::string_view name) const;
};

/// Opens a checkpoint: a directory (config.json and model.safetensors or model.safetensors.index.json), a
/// .safetensors file or a GGUF file (by its magic). Reads the headers only.
/// @throws IoError if a file cannot be read; InvalidArgument (one line naming the file, the place and the rule)
///         for a malformed header or index, a directory with neither file, a limit exceeded.
WeightFile open_weights(const std::string& path);

/// The tensor's values, row-major (rows × the product of the other dimensions), dequantized as ggml does.
/// @throws InvalidArgument for a type rope does not decode or a tensor over kMaxWeightElements; IoError if the
///         file is shorter than its header said.
std::vector<float> read_weight(const WeightFile& file, const WeightTensor& tensor);

/// read_weight, with its first `checked` values (all of them by default) each a finite number, else refused naming the
/// file that holds the tensor (a shard of an index), the tensor and the first element that is not: a NaN or infinite
/// weight, or a GGUF block scale, would make every residual computed from it NaN.
/// @throws InvalidArgument as read_weight does, and for a value that is not finite.
std::vector<float> read_finite_weight(const WeightFile& file, const WeightTensor& tensor,
                                      std::size_t checked = static_cast<std::size_t>(-1));

/// The weight_map of a model.safetensors.index.json's text: (tensor, shard file name) pairs, sorted by tensor.
/// A shard name must be a plain file name (no '/', not "." or ".."). `name` starts every message.
/// @throws InvalidArgument for malformed JSON, a missing or empty weight_map, a value that is not such a name,
///         more than kMaxWeightShards distinct shards or kMaxWeightTensors tensors.
std::vector<std::pair<std::string, std::string>> parse_safetensors_index(std::string_view json,
                                                                         const std::string& name);

/// The distinct shard file names of an index's weight_map, in the order they first appear.
std::vector<std::string> index_shards(const std::vector<std::pair<std::string, std::string>>& map);

/// A sharded checkpoint's tensors: `shards[s]` the tensors of index_shards(map)[s]'s header; each tensor kept from
/// the shard the index names for it (file = s), sorted by name. `index` starts every message.
/// @throws InvalidArgument for a tensor of the weight_map missing from its shard, or a count of shards that differs.
std::vector<WeightTensor> join_shards(const std::vector<std::pair<std::string, std::string>>& map,
                                      std::vector<std::vector<WeightTensor>> shards, const std::string& index);

/// The tensors of a GGUF file's directory (gguf.hpp's parse), each one's byte range checked against the file,
/// shaped rows first. `path` starts every message. @throws InvalidArgument (a big-endian file, a limit passed, a
/// tensor past the end of the file, a row not a whole number of blocks).
std::vector<WeightTensor> gguf_weight_tensors(const GgufFile& gguf, const std::string& path);

/// The tensors of a safetensors header (`header`: the JSON text after the 8-byte size; `buffer_bytes`: the bytes
/// after it in the file, `data_start`: the byte where the buffer starts), each with file index `file`.
/// @throws InvalidArgument for malformed JSON, offsets outside the buffer or not matching dtype × shape.
std::vector<WeightTensor> parse_safetensors_tensors(std::string_view header, std::uint64_t data_start,
                                                    std::uint64_t buffer_bytes, std::size_t file,
                                                    const std::string& name);

}  // namespace rope
