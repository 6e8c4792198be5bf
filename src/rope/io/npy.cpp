// The NPY reader (tensor_file.hpp), from numpy/lib/format.py's description of the format:
//
//   bytes 0-5   magic "\x93NUMPY"
//   byte  6, 7  major, minor version (1.0, 2.0 or 3.0)
//   then        HEADER_LEN, little-endian: uint16 in version 1.0, uint32 in 2.0 and 3.0
//   then        HEADER_LEN bytes: a Python dict literal (latin-1; UTF-8 in 3.0), padded with spaces and
//               ended by '\n', e.g.  {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
//   then        the data, C order when fortran_order is False, exactly prod(shape)·itemsize bytes.
//
// The dict is parsed strictly: exactly the three keys, each once; a string, True/False, a tuple of
// non-negative integers. Anything else is refused with the byte offset where the parse stopped.
#include <cstdint>
#include <fmt/format.h>
#include <string>

#include "rope/core/error.hpp"
#include "rope/core/message.hpp"
#include "rope/io/tensor_file.hpp"
#include "rope/core/utf8.hpp"

namespace rope {
namespace {

/// A cursor over the header dict; every error names the absolute byte offset in the file.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, std::size_t offset, const std::string& name, long max_elements)
      : text_(text), offset_(offset), name_(name), max_elements_(max_elements) {}

  [[noreturn]] void fail(const std::string& rule) const {
    throw InvalidArgument(error_msg("{0}: header at byte {1}: {2}", name_, offset_ + pos_, rule));
  }
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n')) ++pos_;
  }
  bool peek(char c) {
    skip_space();
    return pos_ < text_.size() && text_[pos_] == c;
  }
  void expect(char c, const char* what) {
    if (!peek(c)) fail(fmt::format("expected {} ('{}')", what, c));
    ++pos_;
  }
  std::string string_literal() {
    skip_space();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) fail("expected a quoted string");
    const char quote = text_[pos_++];
    const std::size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\' || text_[pos_] == '\n') fail("escapes and line breaks are not allowed in a string");
      if (pos_ - start > 64) fail("string longer than 64 characters");
      ++pos_;
    }
    if (pos_ >= text_.size()) fail("unterminated string");
    return std::string(text_.substr(start, pos_++ - start));
  }
  bool boolean() {
    skip_space();
    for (const auto& [word, value] : {std::pair<std::string_view, bool>{"True", true}, {"False", false}}) {
      if (text_.substr(pos_, word.size()) == word) {
        pos_ += word.size();
        return value;
      }
    }
    fail("expected True or False");
  }
  long integer() {
    skip_space();
    const std::size_t start = pos_;
    long v = 0;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      const int digit = text_[pos_] - '0';
      if (v > (max_elements_ - digit) / 10) fail(fmt::format("dimension larger than {}", max_elements_));
      v = v * 10 + digit;
      ++pos_;
    }
    if (pos_ == start) fail("expected a non-negative integer dimension");
    if (pos_ < text_.size() && text_[pos_] == 'L') ++pos_;  // Python 2 long suffix, as numpy accepts
    return v;
  }
  std::vector<long> tuple() {
    expect('(', "a tuple");
    std::vector<long> shape;
    while (!peek(')')) {
      if (static_cast<int>(shape.size()) >= kMaxTensorRank)
        fail(fmt::format("more than {} dimensions", kMaxTensorRank));
      shape.push_back(integer());
      if (!peek(')')) expect(',', "a comma");
    }
    ++pos_;
    return shape;
  }
  bool at_end() {
    skip_space();
    return pos_ == text_.size();
  }

 private:
  std::string_view text_;
  std::size_t offset_;
  const std::string& name_;
  long max_elements_;
  std::size_t pos_ = 0;
};

struct Descr {
  char kind = 'f';
  int bytes = 4;
  bool big_endian = false;
  DType dtype = DType::F32;
};

Descr parse_descr(const std::string& descr, const TensorReadOptions& options, const HeaderParser& at) {
  const auto refuse = [&](const std::string& why) {
    at.fail(fmt::format("'descr' '{}': {}", escape_controls(descr, kQuotedBytes), why));
  };
  if (descr.size() != 3) refuse("expected a byte order and a type such as '<f4'");
  Descr d;
  if (descr[0] == '>') {
    d.big_endian = true;
  } else if (descr[0] != '<' && !(descr[0] == '|' && descr[2] == '1')) {  // NumPy writes '|' for one-byte types
    refuse("the byte order must be '<' (little-endian) or '>' (big-endian)");
  }
  d.kind = descr[1];
  d.bytes = descr[2] - '0';
  if (d.kind == 'f' && (d.bytes == 2 || d.bytes == 4 || d.bytes == 8)) {
    d.dtype = d.bytes == 2 ? DType::F16 : d.bytes == 4 ? DType::F32 : DType::F64;
  } else if ((d.kind == 'u' || d.kind == 'i') && (d.bytes == 1 || d.bytes == 2 || d.bytes == 4 || d.bytes == 8) &&
             options.integers && !(d.bytes == 2 && options.bf16_bits)) {
    d.dtype = DType::F64;  // integer values (positions), exact up to 2^53
  } else if ((d.kind == 'u' || d.kind == 'i') && d.bytes == 2) {
    if (!options.bf16_bits) {
      refuse(fmt::format("16-bit integers; give {} if they are bfloat16 bit patterns (t.view(torch.int16))",
                         option_name("bf16_bits")));
    }
    d.dtype = DType::BF16;
  } else if (options.integers) {  // positions: integers are read as their values
    refuse(
        "rope reads positions as float16, float32, float64 ('f2', 'f4', 'f8') or integers of 1 to 8 bytes "
        "('i1' … 'i8', 'u1' … 'u8')");
  } else {
    refuse(fmt::format("rope reads float16, float32, float64 ('f2', 'f4', 'f8') and bfloat16 bits ('u2'/'i2' with {})",
                       option_name("bf16_bits")));
  }
  return d;
}

std::uint32_t little_endian(std::string_view bytes, std::size_t at, int n) {
  std::uint32_t v = 0;
  for (int i = 0; i < n; ++i) v |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
  return v;
}

}  // namespace

TensorHeader parse_npy_header(std::string_view bytes, std::uint64_t file_size, const std::string& name,
                              const TensorReadOptions& options, long max_elements) {
  if (bytes.size() < 10 || bytes.substr(0, 6) != std::string_view("\x93NUMPY", 6)) {
    throw InvalidArgument(
        error_msg("{0}: byte 0: not a .npy file (it must start with \\x93NUMPY and a version)", name));
  }
  const int major = static_cast<unsigned char>(bytes[6]);
  const int minor = static_cast<unsigned char>(bytes[7]);
  if (minor != 0 || major < 1 || major > 3) {
    throw InvalidArgument(error_msg("{0}: byte 6: format version {1}.{2} is not 1.0, 2.0 or 3.0", name, major, minor));
  }
  const int length_bytes = major == 1 ? 2 : 4;
  const std::size_t header_start = 8 + static_cast<std::size_t>(length_bytes);
  if (bytes.size() < header_start) {
    throw InvalidArgument(error_msg("{0}: byte 8: the file ends inside the header length", name));
  }
  const std::size_t header_len = little_endian(bytes, 8, length_bytes);
  if (header_len > kMaxTensorHeaderBytes) {  // the rule, whatever the size of the file
    throw InvalidArgument(error_msg("{0}: byte 8: header length {1} is larger than the {2}-byte (1 MiB) limit", name,
                                    header_len, kMaxTensorHeaderBytes));
  }
  if (header_len > file_size - header_start || header_len > bytes.size() - header_start) {
    throw InvalidArgument(error_msg("{0}: byte 8: header length {1} is larger than the {2} bytes after it", name,
                                    header_len, file_size - header_start));
  }
  HeaderParser p(bytes.substr(header_start, header_len), header_start, name, max_elements);
  std::string descr;
  bool fortran = false, seen_descr = false, seen_fortran = false, seen_shape = false;
  std::vector<long> shape;
  p.expect('{', "the header dict");
  while (!p.peek('}')) {
    const std::string key = p.string_literal();
    p.expect(':', "a colon");
    bool* seen = key == "descr"           ? &seen_descr
                 : key == "fortran_order" ? &seen_fortran
                 : key == "shape"         ? &seen_shape
                                          : nullptr;
    if (!seen)
      p.fail(fmt::format("unknown key '{}' (a .npy header has 'descr', 'fortran_order', 'shape')",
                         escape_controls(key, kQuotedBytes)));
    if (*seen) p.fail(fmt::format("key '{}' given twice", key));
    *seen = true;
    if (key == "descr") descr = p.string_literal();
    if (key == "fortran_order") fortran = p.boolean();
    if (key == "shape") shape = p.tuple();
    if (!p.peek('}')) p.expect(',', "a comma");
  }
  p.expect('}', "the end of the dict");
  if (!p.at_end()) p.fail("text after the header dict");
  if (!seen_descr || !seen_fortran || !seen_shape) {
    p.fail(fmt::format("missing key '{}'", !seen_descr ? "descr" : !seen_fortran ? "fortran_order" : "shape"));
  }
  const Descr d = parse_descr(descr, options, p);
  if (fortran) {
    p.fail("'fortran_order' is True: rope reads C-order arrays; save np.ascontiguousarray(x) instead");
  }
  const long count = detail::checked_element_count(shape, name, "header 'shape'", max_elements);
  const std::uint64_t data_start = header_start + header_len;
  const std::uint64_t have = file_size - data_start;
  const std::uint64_t need = static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(d.bytes);
  if (have != need) {
    throw InvalidArgument(error_msg("{0}: byte {1}: shape {2} of '{3}' needs {4} data bytes, the file has {5}", name,
                                    data_start, shape_string(shape), descr, need, have));
  }
  TensorHeader h;
  h.format = TensorFormat::Npy;
  h.shape = shape;
  h.dtype = d.dtype;
  h.stored = d.dtype == DType::BF16 ? descr + " (bf16 bits)" : descr;
  h.data_offset = data_start;
  h.count = count;
  h.bytes = d.bytes;
  h.kind = d.kind;
  h.big_endian = d.big_endian;
  return h;
}

TensorData parse_npy(std::string_view bytes, const std::string& name, const TensorReadOptions& options) {
  return decode_tensor(bytes, parse_npy_header(bytes, bytes.size(), name, options, kMaxTensorElements));
}

}  // namespace rope
