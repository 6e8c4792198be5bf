// The tensors of a dump file (tensor_list.hpp).
#include "rope/io/tensor_list.hpp"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "rope/core/error.hpp"
#include "rope/core/message.hpp"
#include "rope/io/ggml_blocks.hpp"
#include "rope/io/gguf.hpp"
#include "rope/io/tensor_file.hpp"
#include "rope/io/tensor_stream.hpp"
#include "rope/io/tensor_directory.hpp"
#include "rope/io/text_file.hpp"
#include "rope/io/torch_file.hpp"
#include "rope/core/utf8.hpp"
#include "rope/io/weights_file.hpp"

namespace rope {

namespace {

std::vector<long> c_order_strides(const std::vector<long>& shape) {
  std::vector<long> s(shape.size(), 1);
  for (std::size_t k = shape.size(); k-- > 1;) s[k - 1] = s[k] * shape[k];
  return s;
}

}  // namespace

TensorListing list_safetensors_header(std::string_view bytes, std::uint64_t file_size, const std::string& name) {
  TensorListing out;
  out.format = "safetensors";
  // The header as the reader checks it (its size and syntax), then every entry's dtype and shape.
  TensorReadOptions probe;
  std::uint64_t n = 0;
  for (int i = 0; i < 8 && static_cast<std::size_t>(i) < bytes.size(); ++i)
    n |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)])) << (8 * i);
  if (bytes.size() < 8 || n > kMaxTensorHeaderBytes || n > bytes.size() - 8 || bytes.size() > file_size) {
    parse_safetensors_header(bytes, file_size, name, probe, kMaxTensorElements);  // throws its own message
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(bytes.substr(8, static_cast<std::size_t>(n)));
  } catch (const nlohmann::json::exception&) {
    parse_safetensors_header(bytes, file_size, name, probe, kMaxTensorElements);
    throw;
  }
  if (!j.is_object()) parse_safetensors_header(bytes, bytes.size(), name, probe, kMaxTensorElements);
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() == "__metadata__") continue;
    TensorEntry e;
    e.name = it.key();
    const nlohmann::json& v = it.value();
    if (v.is_object() && v.contains("dtype") && v["dtype"].is_string()) e.dtype = v["dtype"].get<std::string>();
    if (v.is_object() && v.contains("shape") && v["shape"].is_array()) {
      for (const auto& d : v["shape"]) {
        if (!d.is_number_unsigned() || e.shape.size() >= static_cast<std::size_t>(kMaxTensorRank)) {
          probe.tensor = e.name;  // the reader's message for this entry
          parse_safetensors_header(bytes, file_size, name, probe, kMaxTensorElements);
        }
        e.shape.push_back(static_cast<long>(std::min<std::uint64_t>(d.get<std::uint64_t>(), 1ULL << 62)));
      }
    }
    e.strides = c_order_strides(e.shape);
    out.tensors.push_back(std::move(e));
  }
  return out;
}

namespace {

/// A Hugging Face checkpoint: a directory, or its model.safetensors.index.json, whose shards the weights reader
/// (weights_file.hpp) opens, each header read alone.
bool names_checkpoint(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) return true;
  const std::string index = "model.safetensors.index.json";
  return path.size() >= index.size() && path.compare(path.size() - index.size(), index.size(), index) == 0 &&
         (path.size() == index.size() || path[path.size() - index.size() - 1] == '/') &&
         std::filesystem::is_regular_file(path, error);
}

TensorListing list_checkpoint(const std::string& path) {
  std::error_code error;
  const bool directory = std::filesystem::is_directory(path, error);
  const std::string dir = directory ? path : std::filesystem::path(path).parent_path().string();
  const WeightFile w = open_weights(dir.empty() ? std::string(".") : dir);
  TensorListing out;
  out.file = path;
  out.format = w.format == WeightFormat::Gguf ? "gguf" : "safetensors";  // sharded: each tensor names its shard
  for (const WeightTensor& t : w.tensors) {
    TensorEntry e;
    e.name = t.name;
    e.dtype = t.dtype;
    e.shape = t.shape;
    if (t.decodable && w.format == WeightFormat::Safetensors) e.strides = c_order_strides(t.shape);
    if (w.files.size() > 1) e.file = std::filesystem::path(w.files[t.file]).filename().string();
    out.tensors.push_back(std::move(e));
  }
  return out;
}

}  // namespace

TensorListing list_tensors(const std::string& path) {
  const std::string name = escape_controls(path, kQuotedBytes);
  TensorListing out;
  if (names_checkpoint(path)) return list_checkpoint(path);
  if (is_gguf_file(path)) {
    const GgufFile g = read_gguf(path);
    out.format = "gguf";
    for (const GgufTensorInfo& t : g.tensors) {
      TensorEntry e;
      e.name = t.name;
      e.dtype = ggml_type_name(t.ggml_type);
      for (auto it = t.dims.rbegin(); it != t.dims.rend(); ++it) e.shape.push_back(static_cast<long>(*it));
      const bool elements = t.ggml_type <= 1 || t.ggml_type == 30 || (t.ggml_type >= 24 && t.ggml_type <= 28);
      if (elements) e.strides = c_order_strides(e.shape);
      out.tensors.push_back(std::move(e));
    }
    out.file = path;
    return out;
  }
  if (!is_zip_file(path) && TensorStream::streamable(path)) {  // .npy, safetensors: their headers alone
    TensorListing listing = TensorDirectory::open(path)->listing();
    return listing;
  }
  if (is_zip_file(path)) {  // streamed: the archive's directory and data.pkl alone
    out.format = "torch.save";
    const TorchArchive archive = TorchArchive::open(path);
    for (const TorchTensorInfo& t : archive.tensors())
      out.tensors.push_back({t.name, t.stored, t.shape, t.strides, t.offset, ""});
    out.file = path;
    return out;
  }
  detail::count_tensor_directory_read();
  const BoundedRead file = read_file_bounded(path, kMaxTensorFileBytes);
  if (file.error != 0) throw IoError(error_msg("cannot read tensor file '{0}': {1}", name, file.reason()));
  if (file.text.size() > kMaxTensorFileBytes) {
    throw InvalidArgument(
        error_msg("{0}: larger than the {1}-byte limit for a tensor file", name, kMaxTensorFileBytes));
  }
  switch (detect_tensor_format(file.text, path)) {
    case TensorFormat::Safetensors:
      out = list_safetensors_header(file.text, file.text.size(), name);
      break;
    case TensorFormat::Npy: {
      TensorReadOptions o;
      o.integers = true;
      o.bf16_bits = false;
      const TensorHeader h = parse_npy_header(file.text, file.text.size(), name, o, kMaxStreamElements);
      out.format = "npy";
      out.tensors.push_back({"", h.stored, h.shape, c_order_strides(h.shape), 0, ""});
      break;
    }
    case TensorFormat::Csv:
      throw InvalidArgument(error_msg("{0}: a CSV file holds one table, not named tensors", name));
  }
  out.file = path;
  return out;
}

bool match_tensor_pattern(const std::string& pattern, const std::string& name, std::vector<std::string>* stars) {
  // Backtracking over the '*'s, greedy from the right of each: the names are short and the stars few.
  std::vector<std::string> found;
  const auto match = [&](auto&& self, std::size_t p, std::size_t n) -> bool {
    if (p == pattern.size()) return n == name.size();
    if (pattern[p] != '*') return n < name.size() && name[n] == pattern[p] && self(self, p + 1, n + 1);
    for (std::size_t end = name.size() + 1; end-- > n;) {
      found.push_back(name.substr(n, end - n));
      if (self(self, p + 1, end)) return true;
      found.pop_back();
    }
    return false;
  };
  if (!match(match, 0, 0)) return false;
  if (stars) *stars = found;
  return true;
}

std::string fill_tensor_pattern(const std::string& pattern, const std::vector<std::string>& stars) {
  std::string out;
  std::size_t k = 0;
  for (const char c : pattern) {
    if (c == '*' && k < stars.size())
      out += stars[k++];
    else
      out += c;
  }
  return out;
}

}  // namespace rope
