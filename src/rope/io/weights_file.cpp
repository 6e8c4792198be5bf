// A checkpoint's weights read tensor by tensor (weights_file.hpp): the safetensors headers of a file or of
// an index's shards, a GGUF's tensor directory (gguf.hpp), and one tensor's bytes by pread, decoded by
// ggml_blocks.hpp.
#include "rope/io/weights_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <unistd.h>

#include "rope/core/error.hpp"
#include "rope/core/message.hpp"
#include "rope/io/input_files.hpp"
#include "rope/io/ggml_blocks.hpp"
#include "rope/io/gguf.hpp"
#include "rope/io/tensor_file.hpp"
#include "rope/io/text_file.hpp"
#include "rope/core/utf8.hpp"

namespace rope {

namespace {

[[noreturn]] void weights_fail(const std::string& name, const std::string& where, const std::string& rule) {
  throw InvalidArgument(error_msg("{0}: {1}: {2}", name, where, rule));
}

/// A file opened for pread, closed at scope exit.
class WeightReadFile {
 public:
  explicit WeightReadFile(const std::string& path) : path_(path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) throw IoError(error_msg("cannot read '{0}': {1}", path, std::strerror(errno)));
    if (!S_ISREG(st.st_mode)) throw IoError(error_msg("cannot read '{0}': {1}", path, "not a regular file"));
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw IoError(error_msg("cannot read '{0}': {1}", path, std::strerror(errno)));
    note_input_file(fd_);
    size_ = static_cast<std::uint64_t>(st.st_size);
  }
  ~WeightReadFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  WeightReadFile(const WeightReadFile&) = delete;
  WeightReadFile& operator=(const WeightReadFile&) = delete;
  std::uint64_t size() const { return size_; }
  /// Exactly n bytes at offset (the caller checked offset + n <= size()).
  void read(std::uint64_t offset, void* dst, std::size_t n) const {
    auto* out = static_cast<char*>(dst);
    while (n > 0) {
      const ssize_t got = ::pread(fd_, out, n, static_cast<off_t>(offset));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        throw IoError(
            error_msg("cannot read '{0}' at offset {1}: the file is shorter than it was or unreadable", path_, offset));
      }
      out += got;
      offset += static_cast<std::uint64_t>(got);
      n -= static_cast<std::size_t>(got);
    }
  }

 private:
  std::string path_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

struct StType {
  const char* name;
  std::uint32_t ggml;
  int bytes;
};
// safetensors' float types and the ggml_type numbers of the same encodings (ggml.h).
constexpr StType kStTypes[] = {{"F32", 0, 4}, {"F16", 1, 2}, {"BF16", 30, 2}};
// Types listed (as not decodable) so that a tensor of another type is named, not refused at opening.
constexpr StType kStOtherTypes[] = {{"F64", 1000, 8},     {"I64", 1001, 8}, {"I32", 1002, 4},  {"I16", 1003, 2},
                                    {"I8", 1004, 1},      {"U8", 1005, 1},  {"BOOL", 1006, 1}, {"F8_E4M3", 1007, 1},
                                    {"F8_E5M2", 1008, 1}, {"U16", 1009, 2}, {"U32", 1010, 4},  {"U64", 1011, 8}};

std::string weights_dir_join(const std::string& dir, const std::string& file) {
  if (dir.empty() || dir.back() == '/') return dir + file;
  return dir + "/" + file;
}

bool weights_is_directory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool weights_is_regular(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string weights_parent_dir(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash == 0 ? 1 : slash);
}

/// The tensors of one safetensors file, from its header.
std::vector<WeightTensor> safetensors_file_tensors(const std::string& path, std::size_t file_index) {
  const WeightReadFile f(path);
  if (f.size() < 8) weights_fail(path, "byte 0", "the file ends inside the 8-byte header size");
  unsigned char size_bytes[8];
  f.read(0, size_bytes, 8);
  std::uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= static_cast<std::uint64_t>(size_bytes[i]) << (8 * i);
  if (n > kMaxWeightHeaderBytes) {
    weights_fail(path, "byte 0",
                 fmt::format("header size {} is larger than the {}-byte (16 MiB) limit", n, kMaxWeightHeaderBytes));
  }
  if (n > f.size() - 8)
    weights_fail(path, "byte 0", fmt::format("header size {} is larger than the {} bytes after it", n, f.size() - 8));
  std::string header(static_cast<std::size_t>(n), '\0');
  f.read(8, header.data(), header.size());
  return parse_safetensors_tensors(header, 8 + n, f.size() - 8 - n, file_index, path);
}

/// The tensors of a GGUF file's directory, with their byte ranges checked against the file.
void gguf_tensors(WeightFile& w) {
  w.tensors = gguf_weight_tensors(read_gguf(w.path), w.path);
  w.files.push_back(w.path);
  w.config = w.path;
}

}  // namespace

std::vector<WeightTensor> gguf_weight_tensors(const GgufFile& g, const std::string& path) {
  std::vector<WeightTensor> out;
  if (g.big_endian) weights_fail(path, "header", "a big-endian GGUF's weights are not read (little endian only)");
  if (g.tensors.size() > kMaxWeightTensors) {
    weights_fail(path, "header",
                 fmt::format("{} tensors, more than the {} allowed", g.tensors.size(), kMaxWeightTensors));
  }
  const std::uint64_t room = g.file_size >= g.data_offset ? g.file_size - g.data_offset : 0;
  for (const GgufTensorInfo& info : g.tensors) {
    WeightTensor t;
    t.name = info.name;
    t.type = info.ggml_type;
    t.dtype = ggml_type_name(info.ggml_type);
    for (auto it = info.dims.rbegin(); it != info.dims.rend(); ++it) {
      if (*it > static_cast<std::uint64_t>(kMaxWeightElements)) {
        weights_fail(path, fmt::format("tensor '{}'", printable(info.name)),
                     fmt::format("dimension {} is above the {} elements allowed", *it, kMaxWeightElements));
      }
      t.shape.push_back(static_cast<long>(*it));
    }
    t.offset = g.data_offset + info.offset;
    const auto type = ggml_type(info.ggml_type);
    if (type) {
      const long ne0 = info.dims.empty() ? 1 : static_cast<long>(info.dims.front());
      const auto row = ggml_row_bytes(*type, ne0);
      const long elements =
          detail::checked_element_count(t.shape, path, "tensor '" + printable(info.name) + "'", kMaxWeightElements);
      if (!row) {
        weights_fail(path, fmt::format("tensor '{}'", printable(info.name)),
                     fmt::format("a row of {} elements is not a whole number of {}-element {} blocks", ne0,
                                 ggml_block_elements(*type), t.dtype));
      }
      const std::uint64_t rows = ne0 == 0 ? 0 : static_cast<std::uint64_t>(elements / ne0);
      t.bytes = rows * *row;
      if (info.offset > room || t.bytes > room - info.offset) {
        weights_fail(path, fmt::format("tensor '{}'", printable(info.name)),
                     fmt::format("its {} bytes at data offset {} run past the end of the file", t.bytes, info.offset));
      }
      t.decodable = true;
    }
    out.push_back(std::move(t));
  }
  return out;
}

namespace {}  // namespace

long WeightTensor::elements() const {
  long n = 1;
  for (long d : shape) n *= d;
  return n;
}

const WeightTensor* WeightFile::find(std::string_view name) const {
  const auto it = std::lower_bound(tensors.begin(), tensors.end(), name,
                                   [](const WeightTensor& t, std::string_view n) { return t.name < n; });
  return it != tensors.end() && it->name == name ? &*it : nullptr;
}

std::vector<WeightTensor> parse_safetensors_tensors(std::string_view header, std::uint64_t data_start,
                                                    std::uint64_t buffer_bytes, std::size_t file,
                                                    const std::string& name) {
  if (header.empty() || header[0] != '{') weights_fail(name, "byte 8", "the JSON header must begin with '{'");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(header.begin(), header.end());
  } catch (const nlohmann::json::parse_error& e) {
    weights_fail(name, fmt::format("byte {}", 8 + (e.byte > 0 ? e.byte - 1 : 0)), "the header is not valid JSON");
  } catch (const nlohmann::json::exception&) {
    weights_fail(name, "byte 8", "the header holds a number out of range");
  }
  if (!j.is_object()) weights_fail(name, "byte 8", "the header must be a JSON object");
  if (j.size() > kMaxWeightTensors)
    weights_fail(name, "header", fmt::format("{} tensors, more than the {} allowed", j.size(), kMaxWeightTensors));
  std::vector<WeightTensor> out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() == "__metadata__") continue;
    const std::string field = "tensor '" + escape_controls(it.key(), kQuotedBytes) + "'";
    const nlohmann::json& e = it.value();
    if (!e.is_object() || !e.contains("dtype") || !e["dtype"].is_string() || !e.contains("shape") ||
        !e["shape"].is_array() || !e.contains("data_offsets") || !e["data_offsets"].is_array() ||
        e["data_offsets"].size() != 2 || !e["data_offsets"][0].is_number_unsigned() ||
        !e["data_offsets"][1].is_number_unsigned()) {
      weights_fail(name, field,
                   "must be an object with dtype (a string), shape (a list) and data_offsets [BEGIN, END]");
    }
    WeightTensor t;
    t.name = it.key();
    t.dtype = e["dtype"].get<std::string>();
    const StType* type = nullptr;
    for (const StType& s : kStTypes) {
      if (t.dtype == s.name) type = &s;
    }
    for (const StType& s : kStOtherTypes) {
      if (t.dtype == s.name) type = &s;
    }
    if (!type)
      weights_fail(name, field + " dtype",
                   fmt::format("'{}' is not a safetensors type", escape_controls(t.dtype, kQuotedBytes)));
    t.type = type->ggml;
    t.decodable = type->ggml < 1000;
    if (e["shape"].size() > static_cast<std::size_t>(kMaxTensorRank))
      weights_fail(name, field + " shape", fmt::format("more than {} dimensions", kMaxTensorRank));
    for (const auto& dim : e["shape"]) {
      if (!dim.is_number_unsigned() || dim.get<std::uint64_t>() > static_cast<std::uint64_t>(kMaxWeightElements)) {
        weights_fail(name, field + " shape",
                     fmt::format("every dimension must be a whole number, at most {}", kMaxWeightElements));
      }
      t.shape.push_back(static_cast<long>(dim.get<std::uint64_t>()));
    }
    const long count = detail::checked_element_count(t.shape, name, field + " shape", kMaxWeightElements);
    const auto begin = e["data_offsets"][0].get<std::uint64_t>();
    const auto end = e["data_offsets"][1].get<std::uint64_t>();
    if (begin > end || end > buffer_bytes) {
      weights_fail(name, field + " data_offsets",
                   fmt::format("[{}, {}] is not inside the {}-byte buffer after the header", begin, end, buffer_bytes));
    }
    const std::uint64_t need = static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(type->bytes);
    if (end - begin != need) {
      weights_fail(name, field + " data_offsets",
                   fmt::format("[{}, {}] holds {} bytes, shape {} of {} needs {}", begin, end, end - begin,
                               shape_string(t.shape), t.dtype, need));
    }
    t.file = file;
    t.offset = data_start + begin;
    t.bytes = need;
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> parse_safetensors_index(std::string_view json,
                                                                         const std::string& name) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json.begin(), json.end());
  } catch (const nlohmann::json::parse_error& e) {
    weights_fail(name, fmt::format("byte {}", e.byte > 0 ? e.byte - 1 : 0), "not valid JSON");
  } catch (const nlohmann::json::exception&) {
    weights_fail(name, "byte 0", "holds a number out of range");
  }
  if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object() || j["weight_map"].empty())
    weights_fail(name, "weight_map", "missing, empty or not an object of tensor names and shard files");
  const nlohmann::json& map = j["weight_map"];
  if (map.size() > kMaxWeightTensors)
    weights_fail(name, "weight_map",
                 fmt::format("{} tensors, more than the {} allowed", map.size(), kMaxWeightTensors));
  std::vector<std::pair<std::string, std::string>> out;
  std::map<std::string, int> shards;
  for (auto it = map.begin(); it != map.end(); ++it) {
    const std::string field = "weight_map '" + escape_controls(it.key(), kQuotedBytes) + "'";
    if (!it.value().is_string()) weights_fail(name, field, "must be a shard's file name");
    const std::string file = it.value().get<std::string>();
    if (file.empty() || file == "." || file == ".." || file.find('/') != std::string::npos ||
        file.find('\0') != std::string::npos) {
      weights_fail(
          name, field,
          fmt::format("'{}' is not a file name in the index's directory", escape_controls(file, kQuotedBytes)));
    }
    shards[file] = 0;
    if (shards.size() > kMaxWeightShards)
      weights_fail(name, "weight_map", fmt::format("more than {} shard files", kMaxWeightShards));
    out.emplace_back(it.key(), file);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> index_shards(const std::vector<std::pair<std::string, std::string>>& map) {
  std::vector<std::string> out;
  std::map<std::string, bool> seen;
  for (const auto& [tensor, shard] : map)
    if (seen.emplace(shard, true).second) out.push_back(shard);
  return out;
}

std::vector<WeightTensor> join_shards(const std::vector<std::pair<std::string, std::string>>& map,
                                      std::vector<std::vector<WeightTensor>> shards, const std::string& index) {
  const std::vector<std::string> names = index_shards(map);
  if (names.size() != shards.size()) {
    weights_fail(index, "weight_map", fmt::format("{} shards named, {} read", names.size(), shards.size()));
  }
  std::map<std::string, std::size_t> shard_index;
  for (std::size_t s = 0; s < names.size(); ++s) shard_index[names[s]] = s;
  std::map<std::string, std::size_t> wanted;  // tensor -> shard, from the index
  for (const auto& [tensor, shard] : map) wanted[tensor] = shard_index[shard];
  std::vector<WeightTensor> out;
  for (std::size_t s = 0; s < shards.size(); ++s) {
    for (WeightTensor& t : shards[s]) {
      const auto it = wanted.find(t.name);
      if (it == wanted.end() || it->second != s) continue;  // the index names another shard: its copy counts
      t.file = s;
      out.push_back(std::move(t));
    }
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  for (const auto& [tensor, shard] : map) {
    const auto it = std::lower_bound(out.begin(), out.end(), tensor,
                                     [](const WeightTensor& t, const std::string& name) { return t.name < name; });
    if (it == out.end() || it->name != tensor) {
      weights_fail(index, "weight_map '" + escape_controls(tensor, kQuotedBytes) + "'",
                   fmt::format("the tensor is not in its shard '{}'", escape_controls(shard, kQuotedBytes)));
    }
  }
  return out;
}

WeightFile open_weights(const std::string& path) {
  WeightFile w;
  w.path = path;
  if (weights_is_directory(path)) {
    const std::string index = weights_dir_join(path, "model.safetensors.index.json");
    const std::string single = weights_dir_join(path, "model.safetensors");
    const std::string config = weights_dir_join(path, "config.json");
    if (weights_is_regular(config)) w.config = config;
    if (weights_is_regular(index)) {
      const std::string text = read_text_file(index, "index", static_cast<std::size_t>(kMaxWeightIndexBytes));
      const auto map = parse_safetensors_index(text, index);
      std::vector<std::vector<WeightTensor>> shards;
      for (const std::string& shard : index_shards(map)) {
        w.files.push_back(weights_dir_join(path, shard));
        shards.push_back(safetensors_file_tensors(w.files.back(), shards.size()));
      }
      w.tensors = join_shards(map, std::move(shards), index);
      return w;
    }
    if (!weights_is_regular(single)) {
      throw InvalidArgument(
          error_msg("{0}: a Hugging Face directory needs model.safetensors or model.safetensors.index.json", path));
    }
    w.files.push_back(single);
  } else if (is_gguf_file(path)) {
    w.format = WeightFormat::Gguf;
    gguf_tensors(w);
    std::sort(w.tensors.begin(), w.tensors.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    return w;
  } else {
    w.files.push_back(path);
    const std::string config = weights_dir_join(weights_parent_dir(path), "config.json");
    if (weights_is_regular(config)) w.config = config;
  }
  w.tensors = safetensors_file_tensors(w.files.front(), 0);
  std::sort(w.tensors.begin(), w.tensors.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return w;
}

std::vector<float> read_weight(const WeightFile& file, const WeightTensor& t) {
  const auto type = t.decodable ? ggml_type(t.type) : std::nullopt;
  if (!type) {
    throw InvalidArgument(error_msg("{0}: tensor '{1}': type {2} is not read (F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q6_K)",
                                    file.path, escape_controls(t.name, kQuotedBytes), t.dtype));
  }
  const long n = t.elements();
  if (n > kMaxWeightElements) {
    throw InvalidArgument(error_msg("{0}: tensor '{1}': {2} elements, more than the {3} allowed", file.path,
                                    escape_controls(t.name, kQuotedBytes), n, kMaxWeightElements));
  }
  const WeightReadFile f(file.files.at(t.file));
  if (t.offset > f.size() || t.bytes > f.size() - t.offset) {
    throw IoError(error_msg("cannot read '{0}' at offset {1}: the file is shorter than it was or unreadable",
                            file.files[t.file], t.offset));
  }
  std::vector<float> out(static_cast<std::size_t>(n));
  // In chunks of whole blocks (at most 8 MiB of bytes), so the raw bytes held stay small beside the floats.
  const long block = ggml_block_elements(*type);
  const long block_bytes = ggml_block_bytes(*type);
  const long per_chunk = std::max<long>(1, (8L << 20) / block_bytes) * block;
  std::vector<unsigned char> buffer;
  for (long done = 0; done < n; done += per_chunk) {
    const long k = std::min(per_chunk, n - done);
    const std::size_t bytes = static_cast<std::size_t>(k / block * block_bytes);
    buffer.resize(bytes);
    f.read(t.offset + static_cast<std::uint64_t>(done / block * block_bytes), buffer.data(), bytes);
    ggml_decode(*type, buffer.data(), k, out.data() + done);
  }
  return out;
}

std::vector<float> read_finite_weight(const WeightFile& file, const WeightTensor& t, std::size_t checked) {
  std::vector<float> values = read_weight(file, t);
  const std::size_t n = std::min(checked, values.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(values[i])) {
      const std::string& holder = t.file < file.files.size() ? file.files[t.file] : file.path;  // the shard
      throw InvalidArgument(error_msg("{0}: {1} holds a value that is not a finite number ({2} at element {3})",
                                      escape_controls(holder, kQuotedBytes), escape_controls(t.name, kQuotedBytes),
                                      static_cast<double>(values[i]), i));
    }
  }
  return values;
}

}  // namespace rope
