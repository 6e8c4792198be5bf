// The safetensors reader (tensor_file.hpp), from huggingface/safetensors README "Format":
//
//   8 bytes     N, an unsigned little-endian 64-bit integer: the size of the header
//   N bytes     a UTF-8 JSON object beginning with '{' (may be padded with spaces):
//               {"name": {"dtype": "F16", "shape": [1, 16, 256], "data_offsets": [BEGIN, END]}, ...,
//                "__metadata__": {"key": "value"}}
//   the rest    the byte buffer; BEGIN and END are relative to its start, END − BEGIN is the tensor's
//               size; data little-endian, C order.
//
// Checked here: N fits in the file (and kMaxTensorHeaderBytes), the JSON parses (nlohmann-json, with the
// byte offset of a syntax error), every field has its type, the offsets lie inside the buffer and match
// dtype × shape.
#include <cstdint>
#include <fmt/format.h>
#include <stdexcept>
#include <nlohmann/json.hpp>

#include "rope/core/error.hpp"
#include "rope/core/message.hpp"
#include "rope/io/tensor_file.hpp"
#include "rope/io/tensor_directory.hpp"
#include "rope/core/utf8.hpp"

namespace rope {
namespace {

struct StDType {
  const char* name;
  int bytes;
  char kind;  // 'f' float, 'h' float16 or bfloat16 (decoded by dtype)
  DType dtype;
};
constexpr StDType kDTypes[] = {{"F64", 8, 'f', DType::F64},
                               {"F32", 4, 'f', DType::F32},
                               {"F16", 2, 'h', DType::F16},
                               {"BF16", 2, 'h', DType::BF16}};
/// Integer types, read only with TensorReadOptions::integers (positions).
constexpr StDType kIntegerDTypes[] = {{"I64", 8, 'i', DType::F64},
                                      {"I32", 4, 'i', DType::F64},
                                      {"I16", 2, 'i', DType::F64},
                                      {"I8", 1, 'i', DType::F64},
                                      {"U8", 1, 'u', DType::F64}};

std::uint64_t u64_le(std::string_view bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[i])) << (8 * i);
  return v;
}

}  // namespace

namespace {

/// The header of the entry `key` of a parsed safetensors header (`n`: the header's size, `buffer_size`: the bytes
/// after it).
TensorHeader safetensors_entry(const nlohmann::json& j, const std::string& key, std::uint64_t n,
                               std::uint64_t buffer_size, const std::string& name, const TensorReadOptions& options,
                               long max_elements) {
  const auto fail = [&](const std::string& where, const std::string& rule) {
    throw InvalidArgument(fmt::format("{}: {}: {}", name, where, rule));
  };
  const std::string field = "tensor '" + escape_controls(key, kQuotedBytes) + "'";
  const nlohmann::json& entry = j[key];
  if (!entry.is_object()) fail(field, "must be an object with dtype, shape, data_offsets");
  if (!entry.contains("dtype") || !entry["dtype"].is_string()) fail(field + " dtype", "missing or not a string");
  const std::string dtype = entry["dtype"].get<std::string>();
  const StDType* type = nullptr;
  for (const auto& t : kDTypes) {
    if (dtype == t.name) type = &t;
  }
  for (const auto& t : kIntegerDTypes) {
    if (options.integers && dtype == t.name) type = &t;
  }
  if (!type && options.integers) {
    fail(field + " dtype",
         fmt::format("'{}' is not F16, BF16, F32, F64, I64, I32, I16, I8 or U8", escape_controls(dtype, kQuotedBytes)));
  }
  if (!type)
    fail(field + " dtype", fmt::format("'{}' is not F16, BF16, F32 or F64", escape_controls(dtype, kQuotedBytes)));
  if (!entry.contains("shape") || !entry["shape"].is_array()) fail(field + " shape", "missing or not an array");
  std::vector<long> shape;
  for (const auto& dim : entry["shape"]) {
    if (!dim.is_number_unsigned()) fail(field + " shape", "every dimension must be a non-negative integer");
    if (static_cast<int>(shape.size()) >= kMaxTensorRank)
      fail(field + " shape", fmt::format("more than {} dimensions", kMaxTensorRank));
    const auto v = dim.get<std::uint64_t>();
    if (v > static_cast<std::uint64_t>(max_elements)) {
      fail(field + " shape", fmt::format("dimension {} is above the {} elements allowed", v, max_elements));
    }
    shape.push_back(static_cast<long>(v));
  }
  const long count = detail::checked_element_count(shape, name, field + " shape", max_elements);
  if (!entry.contains("data_offsets") || !entry["data_offsets"].is_array() || entry["data_offsets"].size() != 2 ||
      !entry["data_offsets"][0].is_number_unsigned() || !entry["data_offsets"][1].is_number_unsigned()) {
    fail(field + " data_offsets", "must be [BEGIN, END], two non-negative integers");
  }
  const auto begin = entry["data_offsets"][0].get<std::uint64_t>();
  const auto end = entry["data_offsets"][1].get<std::uint64_t>();
  if (begin > end || end > buffer_size) {
    fail(field + " data_offsets",
         fmt::format("[{}, {}] is not inside the {}-byte buffer after the header", begin, end, buffer_size));
  }
  const std::uint64_t need = static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(type->bytes);
  if (end - begin != need) {
    fail(field + " data_offsets", fmt::format("[{}, {}] holds {} bytes, shape {} of {} needs {}", begin, end,
                                              end - begin, shape_string(shape), dtype, need));
  }
  TensorHeader h;
  h.format = TensorFormat::Safetensors;
  h.shape = shape;
  h.dtype = type->dtype;
  h.stored = dtype;
  h.data_offset = 8 + n + begin;
  h.count = count;
  h.bytes = type->bytes;
  h.kind = type->kind;
  h.big_endian = false;
  return h;
}

}  // namespace

TensorHeader parse_safetensors_header(std::string_view bytes, std::uint64_t file_size, const std::string& name,
                                      const TensorReadOptions& options, long max_elements) {
  const auto fail = [&](const std::string& where, const std::string& rule) {
    throw InvalidArgument(fmt::format("{}: {}: {}", name, where, rule));
  };
  if (bytes.size() < 8) fail("byte 0", "the file ends inside the 8-byte header size");
  const std::uint64_t n = u64_le(bytes);
  if (n > kMaxTensorHeaderBytes)
    fail("byte 0", fmt::format("header size {} is larger than the {}-byte (1 MiB) limit", n, kMaxTensorHeaderBytes));
  if (bytes.size() > file_size) fail("byte 0", "the file is shorter than the bytes read");
  if (n > file_size - 8 || n > bytes.size() - 8) {
    fail("byte 0", fmt::format("header size {} is larger than the {} bytes after it", n, file_size - 8));
  }
  const std::string_view header = bytes.substr(8, static_cast<std::size_t>(n));
  if (header.empty() || header[0] != '{') fail("byte 8", "the JSON header must begin with '{'");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(header.begin(), header.end());
  } catch (const nlohmann::json::parse_error& e) {
    fail(fmt::format("byte {}", 8 + (e.byte > 0 ? e.byte - 1 : 0)), "the header is not valid JSON");
  } catch (const nlohmann::json::exception&) {
    // out_of_range 406: a number too large for a double ("1E2222"), found by fuzz_tensor.
    fail("byte 8", "the header holds a number out of range");
  }
  if (!j.is_object()) fail("byte 8", "the header must be a JSON object");
  const std::uint64_t buffer_size = file_size - 8 - n;
  std::vector<std::string> names;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() != "__metadata__") names.push_back(it.key());
  }
  std::string key = options.tensor;
  if (key.empty()) {
    if (names.size() != 1) {
      std::string list;
      for (std::size_t i = 0; i < names.size() && i < 8; ++i)
        list += (i ? ", " : "") + escape_controls(names[i], kQuotedBytes);
      if (names.size() > 8) list += ", …";
      fail("header", names.empty() ? std::string("holds no tensor")
                                   : fmt::format("holds {} tensors ({}): name one with {}", names.size(), list,
                                                 option_name("tensor")));
    }
    key = names.front();
  } else if (!j.contains(key) || key == "__metadata__") {
    fail("header", fmt::format("no tensor named '{}'", escape_controls(key, kQuotedBytes)));
  }
  return safetensors_entry(j, key, n, buffer_size, name, options, max_elements);
}

std::vector<std::pair<std::string, TensorHeader>> parse_safetensors_directory(std::string_view bytes,
                                                                              std::uint64_t file_size,
                                                                              const std::string& name,
                                                                              long max_elements) {
  // The header's rules as parse_safetensors_header checks them, through it: the first entry, or none.
  TensorReadOptions any;
  any.integers = true;
  std::vector<std::pair<std::string, TensorHeader>> out;
  const std::uint64_t n = bytes.size() >= 8 ? u64_le(bytes) : 0;
  if (bytes.size() < 8 || n > kMaxTensorHeaderBytes || bytes.size() > file_size || n > file_size - 8 ||
      n > bytes.size() - 8) {
    parse_safetensors_header(bytes, file_size, name, any, max_elements);  // throws its message
  }
  const std::string_view header = bytes.substr(8, static_cast<std::size_t>(n));
  nlohmann::json j;
  try {
    if (header.empty() || header[0] != '{') throw std::invalid_argument("not an object");
    j = nlohmann::json::parse(header.begin(), header.end());
  } catch (const std::exception&) {
    parse_safetensors_header(bytes, file_size, name, any, max_elements);
    throw;
  }
  if (!j.is_object()) parse_safetensors_header(bytes, file_size, name, any, max_elements);
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() == "__metadata__") continue;
    try {
      out.emplace_back(it.key(), safetensors_entry(j, it.key(), n, file_size - 8 - n, name, any, max_elements));
    } catch (const InvalidArgument&) {
      // An entry rope cannot read (another dtype, a bad field): left out here, named when it is asked for.
    }
  }
  return out;
}

TensorData parse_safetensors(std::string_view bytes, const std::string& name, const TensorReadOptions& options) {
  return decode_tensor(bytes, parse_safetensors_header(bytes, bytes.size(), name, options, kMaxTensorElements));
}

}  // namespace rope
