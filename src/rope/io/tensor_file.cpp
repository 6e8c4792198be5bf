// Common parts of the tensor readers (tensor_file.hpp): element counts, decoding, CSV, format detection.
#include "rope/io/tensor_file.hpp"

#include <Eigen/Core>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fmt/format.h>

#include "rope/core/error.hpp"
#include "rope/core/message.hpp"
#include "rope/core/parse.hpp"
#include "rope/io/text_file.hpp"
#include "rope/io/torch_file.hpp"
#include "rope/core/utf8.hpp"
#include "rope/io/tensor_directory.hpp"

namespace rope {

std::string_view to_string(TensorFormat format) {
  switch (format) {
    case TensorFormat::Npy:
      return "npy";
    case TensorFormat::Safetensors:
      return "safetensors";
    case TensorFormat::Csv:
      return "csv";
  }
  return "?";
}

std::string shape_string(const std::vector<long>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

namespace detail {

namespace {
std::atomic<long> g_tensor_directory_reads{0};
}  // namespace

long tensor_directory_reads() { return g_tensor_directory_reads.load(); }

void count_tensor_directory_read() { ++g_tensor_directory_reads; }

long checked_element_count(const std::vector<long>& shape, const std::string& name, std::string_view field,
                           long max_elements) {
  if (shape.size() > static_cast<std::size_t>(kMaxTensorRank)) {
    throw InvalidArgument(
        error_msg("{0}: {1}: rank {2} is above the limit of {3}", name, field, shape.size(), kMaxTensorRank));
  }
  long n = 1;
  for (const long dim : shape) {
    if (dim < 0) throw InvalidArgument(error_msg("{0}: {1}: dimension {2} is negative", name, field, dim));
    if (dim == 0)
      throw InvalidArgument(error_msg("{0}: {1}: shape {2} holds no element", name, field, shape_string(shape)));
    if (dim > max_elements || n > max_elements / dim) {
      throw InvalidArgument(error_msg("{0}: {1}: shape {2} has more than the {3} elements allowed", name, field,
                                      shape_string(shape), max_elements));
    }
    n *= dim;
  }
  return n;
}

void decode_values(const unsigned char* data, long count, int bytes, char kind, bool big_endian, DType dtype,
                   std::vector<double>& out) {
  out.resize(static_cast<std::size_t>(count));
  for (long e = 0; e < count; ++e) {
    const unsigned char* p = data + e * bytes;
    std::uint64_t bits = 0;
    for (int b = 0; b < bytes; ++b) {  // assemble the integer from its bytes in the file's order
      const int shift = 8 * (big_endian ? bytes - 1 - b : b);
      bits |= static_cast<std::uint64_t>(p[b]) << shift;
    }
    double v = 0;
    if ((kind == 'i' || kind == 'u') && dtype == DType::F64) {  // integers (TensorReadOptions::integers)
      const int unused = 64 - 8 * bytes;
      v = kind == 'u' ? static_cast<double>(bits)
                      : static_cast<double>(static_cast<std::int64_t>(bits << unused) >> unused);  // sign-extended
    } else if (kind == 'f' && bytes == 8) {
      std::memcpy(&v, &bits, 8);
    } else if (kind == 'f' && bytes == 4) {
      const auto u = static_cast<std::uint32_t>(bits);
      float f;
      std::memcpy(&f, &u, 4);
      v = f;
    } else if (dtype == DType::F16) {
      v = to_double(Eigen::half(Eigen::half_impl::raw_uint16_to_half(static_cast<std::uint16_t>(bits))));
    } else {  // bfloat16 bits
      v = to_double(Eigen::bfloat16(Eigen::bfloat16_impl::raw_uint16_to_bfloat16(static_cast<std::uint16_t>(bits))));
    }
    out[static_cast<std::size_t>(e)] = v;
  }
}

}  // namespace detail

TensorData decode_tensor(std::string_view bytes, const TensorHeader& h) {
  TensorData t;
  t.shape = h.shape;
  t.dtype = h.dtype;
  t.stored = h.stored;
  detail::decode_values(reinterpret_cast<const unsigned char*>(bytes.data() + h.data_offset), h.count, h.bytes, h.kind,
                        h.big_endian, h.dtype, t.values);
  return t;
}

TensorData parse_csv_tensor(std::string_view text, const std::string& name) {
  TensorData t;
  t.dtype = DType::F64;
  t.stored = "csv";
  long rows = 0, cols = -1, line_no = 0;
  std::size_t pos = 0;
  bool first = true;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const auto nonblank = line.find_first_not_of(" \t");
    if (nonblank == std::string_view::npos || line[nonblank] == '#') continue;
    std::vector<double> row;  // each cell parsed as it is split: a line of commas holds no list of cells
    std::size_t c = 0;
    for (std::size_t a = 0;; ++c) {
      const std::size_t b = line.find(',', a);
      std::string_view cell = line.substr(a, b == std::string_view::npos ? std::string_view::npos : b - a);
      while (!cell.empty() && (cell.front() == ' ' || cell.front() == '\t')) cell.remove_prefix(1);
      while (!cell.empty() && (cell.back() == ' ' || cell.back() == '\t')) cell.remove_suffix(1);
      try {
        row.push_back(parse_real(cell, "value"));
      } catch (const InvalidArgument&) {
        if (first && rows == 0) {  // a header row: skipped
          row.clear();
          break;
        }
        throw InvalidArgument(error_msg("{0}: line {1}, column {2}: '{3}' is not a finite decimal number", name,
                                        line_no, c + 1, escape_controls(cell, kQuotedBytes)));
      }
      if (static_cast<long>(t.values.size() + row.size()) > kMaxTensorElements) {
        throw InvalidArgument(
            error_msg("{0}: line {1}: more than the {2} values allowed", name, line_no, kMaxTensorElements));
      }
      if (b == std::string_view::npos) break;
      a = b + 1;
    }
    const bool header = first && row.empty();
    first = false;
    if (header) continue;
    if (cols >= 0 && static_cast<long>(row.size()) != cols) {
      throw InvalidArgument(error_msg("{0}: line {1}: a row of length {2}, but the rows before have length {3}", name,
                                      line_no, row.size(), cols));
    }
    cols = static_cast<long>(row.size());
    ++rows;
    if (static_cast<long>(t.values.size()) + cols > kMaxTensorElements) {
      throw InvalidArgument(
          error_msg("{0}: line {1}: more than the {2} values allowed", name, line_no, kMaxTensorElements));
    }
    t.values.insert(t.values.end(), row.begin(), row.end());
  }
  if (rows == 0) throw InvalidArgument(error_msg("{0}: no row of numbers", name));
  t.shape = {rows, cols};
  return t;
}

TensorFormat detect_tensor_format(std::string_view bytes, const std::string& path) {
  if (bytes.size() >= 6 && bytes.substr(0, 6) == std::string_view("\x93NUMPY", 6)) return TensorFormat::Npy;
  if (bytes.size() >= 9 && bytes[8] == '{') return TensorFormat::Safetensors;
  const auto ends_with = [&](std::string_view suffix) {
    return path.size() >= suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (ends_with(".npy")) return TensorFormat::Npy;
  if (ends_with(".safetensors")) return TensorFormat::Safetensors;
  if (ends_with(".csv") || ends_with(".txt")) return TensorFormat::Csv;
  throw InvalidArgument(
      error_msg("{0}: not a .npy file (no \\x93NUMPY magic), not safetensors (no '{{' at byte 8), "
                "and the name does not end in .npy, .safetensors, .csv or .txt",
                escape_controls(path, kQuotedBytes)));
}

TensorData read_tensor_file(const std::string& path, const TensorReadOptions& options) {
  if (path.empty()) throw InvalidArgument(error_msg("tensor file name is empty"));
  // torch.save's zip archive (torch_file.hpp), or a .pt/.pth file that is not one: its legacy format, refused
  // with a hint. Streamed: only the bytes of the tensor's view are read.
  const auto ends_with = [&](std::string_view suffix) {
    return path.size() >= suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (ends_with(".pt") || ends_with(".pth") || is_zip_file(path)) return TorchArchive::open(path).read(options);
  detail::count_tensor_directory_read();
  const BoundedRead file = read_file_bounded(path, kMaxTensorFileBytes);
  const std::string name = escape_controls(path, kQuotedBytes);
  if (file.error != 0) throw IoError(error_msg("cannot read tensor file '{0}': {1}", name, file.reason()));
  if (file.text.size() > kMaxTensorFileBytes) {
    throw InvalidArgument(
        error_msg("{0}: larger than the {1}-byte limit for a tensor file", name, kMaxTensorFileBytes));
  }
  const TensorFormat format = detect_tensor_format(file.text, path);
  if (!options.tensor.empty() && format != TensorFormat::Safetensors) {
    throw InvalidArgument(error_msg("{0} '{1}' names a tensor of a safetensors file, and '{2}' is {3}",
                                    option_name("tensor"), escape_controls(options.tensor, kQuotedBytes), name,
                                    to_string(format)));
  }
  switch (format) {
    case TensorFormat::Npy:
      return parse_npy(file.text, name, options);
    case TensorFormat::Safetensors:
      return parse_safetensors(file.text, name, options);
    case TensorFormat::Csv:
      break;
  }
  if (file.text.find('\0') != std::string::npos) {
    throw InvalidArgument(error_msg("{0}: a CSV file must be text (it holds a NUL byte)", name));
  }
  return parse_csv_tensor(file.text, name);
}

}  // namespace rope
