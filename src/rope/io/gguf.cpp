#include "rope/io/gguf.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <limits>
#include <set>
#include <sys/stat.h>

#include "rope/core/error.hpp"
#include "rope/core/utf8.hpp"

// The format is ggml-org/ggml docs/gguf.md (versions 2 and 3); the limits and checks follow what
// ggml's own reader (ggml/src/gguf.cpp) refuses, made stricter where a bound on work is needed.

namespace rope {

namespace {

constexpr std::uint32_t kLastType = static_cast<std::uint32_t>(GgufType::Float64);

/// Bytes of one item of a fixed-size type, 0 for string and array.
std::uint64_t fixed_size(GgufType t) {
  switch (t) {
    case GgufType::UInt8:
    case GgufType::Int8:
    case GgufType::Bool:
      return 1;
    case GgufType::UInt16:
    case GgufType::Int16:
      return 2;
    case GgufType::UInt32:
    case GgufType::Int32:
    case GgufType::Float32:
      return 4;
    case GgufType::UInt64:
    case GgufType::Int64:
    case GgufType::Float64:
      return 8;
    case GgufType::String:
    case GgufType::Array:
      return 0;
  }
  return 0;
}

/// The fewest bytes an item of type t takes (a string: its length; an array: its type and count).
std::uint64_t min_size(GgufType t) { return t == GgufType::String ? 8 : t == GgufType::Array ? 12 : fixed_size(t); }

class Parser {
 public:
  Parser(GgufSource& src, GgufFile& f) : src_(src), f_(f), size_(src.size()) {}

  void run(const std::vector<std::string>& read_tensors);

 private:
  [[noreturn]] void fail(std::uint64_t at, const std::string& rule) const {
    throw InvalidArgument(error_msg("{0}: offset {1}: {2}", f_.name, at, rule));
  }
  std::uint64_t left() const { return size_ - pos_; }
  void need(std::uint64_t n, const char* what) const {
    if (n > left()) {
      fail(pos_,
           fmt::format("{} needs {} bytes, only {} are left in the {}-byte file (truncated?)", what, n, left(), size_));
    }
  }
  void raw(void* dst, std::size_t n, const char* what) {
    need(n, what);
    src_.read(pos_, dst, n);
    pos_ += n;
  }
  template <typename T>
  T number(const char* what) {
    unsigned char b[sizeof(T)];
    raw(b, sizeof(T), what);
    if (f_.big_endian) std::reverse(b, b + sizeof(T));
    T v;
    std::memcpy(&v, b, sizeof(T));
    return v;
  }
  std::uint64_t length(std::uint64_t limit, const char* what) {
    const std::uint64_t at = pos_;
    const std::uint64_t n = number<std::uint64_t>(what);
    if (n > left())
      fail(at, fmt::format("{} length {} runs past the end of the file (only {} bytes left)", what, n, left()));
    if (n > limit) fail(at, fmt::format("{} length {} is over the limit of {} bytes", what, n, limit));
    return n;
  }
  std::string string(std::uint64_t limit, const char* what) {
    const std::uint64_t at = pos_;
    const std::uint64_t n = length(limit, what);
    if (n > kMaxGgufKeptBytes - kept_bytes_) {
      fail(at, fmt::format("the strings kept from the metadata exceed {} bytes", kMaxGgufKeptBytes));
    }
    kept_bytes_ += n;
    std::string s(static_cast<std::size_t>(n), '\0');
    raw(s.data(), s.size(), what);
    return s;
  }
  GgufType type(const char* what) {
    const std::uint64_t at = pos_;
    const std::uint32_t t = number<std::uint32_t>(what);
    if (t > kLastType) fail(at, fmt::format("{} {} is not a GGUF value type (0 … {})", what, t, kLastType));
    return static_cast<GgufType>(t);
  }
  void value(GgufValue& v, GgufType t, int depth, bool keep);
  void header();
  void key_values();
  void tensor_infos();
  void tensor_data(const std::vector<std::string>& names);

  GgufSource& src_;
  GgufFile& f_;
  std::uint64_t size_;
  std::uint64_t pos_ = 0;
  std::uint64_t kept_items_ = 0;
  std::uint64_t kept_bytes_ = 0;
};

void Parser::value(GgufValue& v, GgufType t, int depth, bool keep) {
  v.type = t;
  switch (t) {
    case GgufType::UInt8:
      v.integer = number<std::uint8_t>("uint8");
      break;
    case GgufType::Int8:
      v.integer = number<std::int8_t>("int8");
      break;
    case GgufType::UInt16:
      v.integer = number<std::uint16_t>("uint16");
      break;
    case GgufType::Int16:
      v.integer = number<std::int16_t>("int16");
      break;
    case GgufType::UInt32:
      v.integer = number<std::uint32_t>("uint32");
      break;
    case GgufType::Int32:
      v.integer = number<std::int32_t>("int32");
      break;
    case GgufType::Int64:
      v.integer = number<std::int64_t>("int64");
      break;
    case GgufType::UInt64: {
      const std::uint64_t u = number<std::uint64_t>("uint64");
      v.huge = u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
      v.integer = v.huge ? 0 : static_cast<std::int64_t>(u);
      break;
    }
    case GgufType::Float32: {
      // The shortest decimal that rounds to the float32 (what the converter's Python float was), so that
      // 0.1f reads as 0.1 and not 0.10000000149011612; the same float32 either way.
      const float x = number<float>("float32");
      v.real = std::isfinite(x) ? std::strtod(fmt::format("{}", x).c_str(), nullptr) : static_cast<double>(x);
      break;
    }
    case GgufType::Float64:
      v.real = number<double>("float64");
      break;
    case GgufType::Bool: {
      const std::uint64_t at = pos_;
      const auto b = number<std::uint8_t>("bool");
      if (b > 1) fail(at, fmt::format("bool value {} is neither 0 nor 1", b));
      v.integer = b;
      break;
    }
    case GgufType::String:
      if (keep) {
        v.text = string(kMaxGgufStringBytes, "string");
      } else {
        pos_ += length(kMaxGgufStringBytes, "string");  // length() checked it against the bytes left
      }
      break;
    case GgufType::Array: {
      const std::uint64_t at = pos_;
      if (depth >= kMaxGgufDepth) fail(at, fmt::format("arrays nested deeper than {} levels", kMaxGgufDepth));
      v.item_type = type("array item type");
      const std::uint64_t count_at = pos_;
      v.count = number<std::uint64_t>("array count");
      const std::uint64_t each = min_size(v.item_type);
      if (each > 0 && v.count > left() / each) {
        fail(count_at, fmt::format("array of {} {} items needs at least {} bytes each, only {} bytes are left", v.count,
                                   to_string(v.item_type), each, left()));
      }
      if (v.count > kMaxGgufArrayItems - f_.array_items) {
        fail(count_at,
             fmt::format("array of {} items: more than {} array items in the metadata", v.count, kMaxGgufArrayItems));
      }
      f_.array_items += v.count;
      const bool keep_items = keep && v.count <= kMaxGgufKeptItems && v.count <= kMaxGgufKeptTotalItems - kept_items_;
      if (keep_items) kept_items_ += v.count;
      const std::uint64_t fixed = fixed_size(v.item_type);
      if (!keep_items && fixed > 0 && v.item_type != GgufType::Bool) {
        pos_ += v.count * fixed;  // checked above: count·each <= left
        break;
      }
      if (keep_items) v.items.resize(static_cast<std::size_t>(v.count));
      GgufValue skipped;
      for (std::uint64_t i = 0; i < v.count; ++i) {
        value(keep_items ? v.items[static_cast<std::size_t>(i)] : skipped, v.item_type, depth + 1, keep_items);
      }
      break;
    }
  }
}

void Parser::header() {
  char magic[4];
  raw(magic, 4, "the magic");
  if (std::memcmp(magic, "GGUF", 4) != 0) {
    fail(0, fmt::format("not a GGUF file: it starts with the bytes '{}', not 'GGUF'",
                        printable(std::string_view(magic, 4))));
  }
  const std::uint32_t le = number<std::uint32_t>("the version");
  std::uint32_t swapped = ((le & 0xffu) << 24) | ((le & 0xff00u) << 8) | ((le >> 8) & 0xff00u) | (le >> 24);
  if (le == 2 || le == 3) {
    f_.version = le;
  } else if (swapped == 2 || swapped == 3) {
    f_.version = swapped;
    f_.big_endian = true;
  } else {
    fail(4, fmt::format("GGUF version {} is not supported (versions 2 and 3 are; version 1 used 32-bit lengths)",
                        le == 1 || swapped == 1 ? 1 : le));
  }
  const std::uint64_t tensors_at = pos_;
  const auto tensors = number<std::uint64_t>("the tensor count");
  const auto kvs = number<std::uint64_t>("the metadata count");
  if (tensors > kMaxGgufTensors)
    fail(tensors_at, fmt::format("tensor count {} is over the limit of {}", tensors, kMaxGgufTensors));
  if (kvs > kMaxGgufKeyValues)
    fail(tensors_at + 8, fmt::format("metadata count {} is over the limit of {}", kvs, kMaxGgufKeyValues));
  // Each pair takes at least 8 + 4 + 1 bytes, each tensor info 8 + 4 + 4 + 8 (no dims, empty name).
  if (kvs * 13 + tensors * 24 > left()) {
    fail(tensors_at,
         fmt::format("{} tensors and {} metadata pairs cannot fit in the {} bytes left", tensors, kvs, left()));
  }
  f_.tensors.reserve(static_cast<std::size_t>(tensors));
  f_.metadata.reserve(static_cast<std::size_t>(kvs));
  f_.tensors.resize(static_cast<std::size_t>(tensors));
  f_.metadata.resize(static_cast<std::size_t>(kvs));
}

void Parser::key_values() {
  std::set<std::string_view> seen;
  for (auto& [key, v] : f_.metadata) {
    const std::uint64_t at = pos_;
    key = string(kMaxGgufKeyBytes, "key");
    if (key.empty()) fail(at, "empty key");
    if (!seen.insert(key).second) fail(at, fmt::format("key '{}' appears twice", printable(key)));
    value(v, type("value type"), 0, true);
  }
  if (const GgufValue* a = f_.find("general.alignment")) {
    if (a->type != GgufType::UInt32) {
      fail(pos_, fmt::format("general.alignment is a {}, the format requires uint32", to_string(a->type)));
    }
    const auto n = static_cast<std::uint64_t>(a->integer);
    if (n == 0 || (n & (n - 1)) != 0) fail(pos_, fmt::format("general.alignment {} is not a power of two", n));
    f_.alignment = n;
  }
}

void Parser::tensor_infos() {
  std::set<std::string_view> seen;
  for (GgufTensorInfo& t : f_.tensors) {
    const std::uint64_t at = pos_;
    t.name = string(kMaxGgufTensorNameBytes, "tensor name");
    if (!seen.insert(t.name).second) fail(at, fmt::format("tensor '{}' appears twice", printable(t.name)));
    const std::uint64_t dims_at = pos_;
    const auto n = number<std::uint32_t>("the tensor's dimension count");
    if (n > kMaxGgufDims)
      fail(dims_at, fmt::format("tensor '{}' has {} dimensions, more than {}", printable(t.name), n, kMaxGgufDims));
    std::uint64_t elements = 1;
    for (std::uint32_t i = 0; i < n; ++i) {
      const std::uint64_t d = number<std::uint64_t>("a tensor dimension");
      if (d != 0 && elements > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) / d) {
        fail(dims_at, fmt::format("tensor '{}': the product of its dimensions overflows int64", printable(t.name)));
      }
      elements *= d;
      t.dims.push_back(d);
    }
    t.ggml_type = number<std::uint32_t>("the tensor type");
    const std::uint64_t offset_at = pos_;
    t.offset = number<std::uint64_t>("the tensor offset");
    if (t.offset % f_.alignment != 0) {
      fail(offset_at, fmt::format("tensor '{}': data offset {} is not a multiple of the alignment {}",
                                  printable(t.name), t.offset, f_.alignment));
    }
  }
  const std::uint64_t pad = (f_.alignment - pos_ % f_.alignment) % f_.alignment;
  f_.data_offset = pos_ + std::min(pad, left());
}

void Parser::tensor_data(const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    const GgufTensorInfo* t = f_.tensor(name);
    if (!t) continue;
    const std::string where = fmt::format("tensor '{}'", name);
    if (t->ggml_type != 0 || t->dims.size() != 1) {
      fail(f_.data_offset, fmt::format("{} must be f32 (type 0) with one dimension, it is type {} with {}", where,
                                       t->ggml_type, t->dims.size()));
    }
    const std::uint64_t n = t->dims[0];
    if (n == 0 || n > kMaxGgufReadElements) {
      fail(f_.data_offset, fmt::format("{} has {} elements, outside 1 … {}", where, n, kMaxGgufReadElements));
    }
    const std::uint64_t room = size_ - f_.data_offset;
    if (t->offset > room || n * 4 > room - t->offset) {
      fail(f_.data_offset,
           fmt::format("{}: its {} bytes at data offset {} run past the end of the file", where, n * 4, t->offset));
    }
    pos_ = f_.data_offset + t->offset;
    std::vector<float> data(static_cast<std::size_t>(n));
    for (float& x : data) x = number<float>("tensor data");
    f_.tensor_data[name] = std::move(data);
  }
}

void Parser::run(const std::vector<std::string>& read_tensors) {
  header();
  key_values();
  tensor_infos();
  tensor_data(read_tensors);
}

}  // namespace

std::string_view to_string(GgufType type) {
  static constexpr std::string_view kNames[] = {"uint8", "int8",   "uint16", "int16",  "uint32", "int32",  "float32",
                                                "bool",  "string", "array",  "uint64", "int64",  "float64"};
  const auto i = static_cast<std::uint32_t>(type);
  return i <= kLastType ? kNames[i] : "unknown";
}

bool GgufValue::is_integer() const {
  switch (type) {
    case GgufType::UInt8:
    case GgufType::Int8:
    case GgufType::UInt16:
    case GgufType::Int16:
    case GgufType::UInt32:
    case GgufType::Int32:
    case GgufType::UInt64:
    case GgufType::Int64:
      return true;
    default:
      return false;
  }
}

bool GgufValue::is_number() const { return is_integer() || type == GgufType::Float32 || type == GgufType::Float64; }

std::optional<double> GgufValue::as_number() const {
  if (type == GgufType::Float32 || type == GgufType::Float64) return real;
  if (is_integer() && !huge) return static_cast<double>(integer);
  return std::nullopt;
}

const GgufValue* GgufFile::find(std::string_view key) const {
  for (const auto& [k, v] : metadata) {
    if (k == key) return &v;
  }
  return nullptr;
}

const GgufTensorInfo* GgufFile::tensor(std::string_view n) const {
  for (const auto& t : tensors) {
    if (t.name == n) return &t;
  }
  return nullptr;
}

GgufFile parse_gguf(GgufSource& source, const std::string& name, const std::vector<std::string>& read_tensors) {
  GgufFile f;
  f.name = name;
  f.file_size = source.size();
  Parser(source, f).run(read_tensors);
  return f;
}

std::string printable(std::string_view text, std::size_t max_chars) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size() && out.size() < max_chars) {
    const std::size_t start = i;
    const auto c = decode_utf8(text, i);
    if (!c || *c < 0x20 || *c == 0x7f) {
      i = start + 1;
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(text[start]));
    } else {
      out.append(text.substr(start, i - start));
    }
  }
  if (i < text.size()) out += "…";
  return out;
}

}  // namespace rope
