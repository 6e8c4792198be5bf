/// @file
/// The tensors a dump file holds, each with its name, dtype, shape and strides (`rope inspect --tensors`, and the
/// `*` of `rope check --tensor` that pairs every layer of two files): a Hugging Face checkpoint sharded by its
/// model.safetensors.index.json (the weights reader's, io/weights_file.hpp), torch.save (io/torch_file.hpp: the names
/// joined with dots, a view's strides and storage offset), safetensors (its header's names; C order), .npy (one
/// tensor, named ""; C order) and GGUF (io/gguf.hpp: its tensor infos; the shape in C order, ggml's ne reversed).
/// Each file is read as its reader reads it, bounded the same way; no element is read.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rope {

struct TensorEntry {
  std::string name;
  std::string dtype;  ///< as the file spells it: "bfloat16" (torch), "BF16" (safetensors), "<f4" (npy), "Q8_0"
  std::vector<long> shape;
  std::vector<long> strides;  ///< in elements; empty where the file has no element strides (quantized GGUF blocks)
  long offset = 0;            ///< torch.save: the view's storage offset, in elements
  std::string file;           ///< a sharded checkpoint: the shard holding it (its file name); else empty
};

struct TensorListing {
  std::string file;    ///< as given
  std::string format;  ///< "torch.save", "safetensors", "npy", "gguf"
  std::vector<TensorEntry> tensors;
};

/// The tensors of `path`: a dump file, or a Hugging Face checkpoint (a directory, or its
/// model.safetensors.index.json: the shards' tensors, each named with its shard, read by weights_file.hpp's reader).
/// @throws IoError (unreadable), InvalidArgument (a malformed file, or a format that holds
/// no named tensors: CSV).
TensorListing list_tensors(const std::string& path);

/// The tensors a safetensors header lists (`bytes`: the file's first bytes, at least its 8-byte size and header;
/// `file_size`: the whole file's). @throws InvalidArgument as parse_safetensors_header.
TensorListing list_safetensors_header(std::string_view bytes, std::uint64_t file_size, const std::string& name);

/// Whether `name` matches `pattern`, where each '*' stands for any run of characters (none included); the runs
/// matched, in order, are put in `stars`.
bool match_tensor_pattern(const std::string& pattern, const std::string& name, std::vector<std::string>* stars);

/// `pattern` with its '*'s replaced by `stars` in order (as many as it has).
std::string fill_tensor_pattern(const std::string& pattern, const std::vector<std::string>& stars);

}  // namespace rope
