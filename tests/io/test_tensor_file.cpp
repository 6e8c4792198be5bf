// The tensor readers (rope/io/tensor_file.hpp) on hand-made bytes: every value below is hand-derivable from
// IEEE 754 bit patterns (1.0f = 0x3f800000, float16 1.0 = 0x3c00, −2.0 = 0xc000, bfloat16 1.0 = 0x3f80,
// 0.5 = 0x3f00), and every malformed file gives one line naming the file, the offset or field and the rule.
#include <fstream>
#include <functional>
#include <sys/resource.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "rope/core/error.hpp"
#include "rope/core/sanitizer.hpp"
#include "rope/io/tensor_file.hpp"
#include "support/memory_limit.hpp"
#include "support/shared.hpp"

namespace rope {
namespace {

#if !ROPE_ADDRESS_SANITIZER
using test::parse_within_memory;  // support/memory_limit.hpp
#endif

using ::testing::HasSubstr;

using test::le;
std::string be(std::uint64_t v, int n) {
  std::string s;
  for (int i = n - 1; i >= 0; --i) s += static_cast<char>(i < 8 ? (v >> (8 * i)) & 0xff : 0);
  return s;
}

/// A .npy file of the given version and header dict (padded to 64 bytes as numpy writes it) and data.
std::string npy(const std::string& dict, const std::string& data, int major = 1) {
  const std::size_t prefix = 8 + (major == 1 ? 2 : 4);
  std::string header = dict;
  while ((prefix + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  return std::string("\x93NUMPY", 6) + static_cast<char>(major) + '\0' + le(header.size(), major == 1 ? 2 : 4) +
         header + data;
}

std::string message_of(const std::string& bytes, TensorFormat format, const TensorReadOptions& o = {}) {
  try {
    if (format == TensorFormat::Npy) parse_npy(bytes, "q.npy", o);
    if (format == TensorFormat::Safetensors) parse_safetensors(bytes, "q.safetensors", o);
    if (format == TensorFormat::Csv) parse_csv_tensor(bytes, "q.csv");
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    return e.what();
  }
  return "no error";
}

TEST(Npy, ReadsFloat32Version1) {
  const auto t = parse_npy(
      npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 1), }", le(0x3f800000, 4) + le(0xc0000000, 4)),
      "q.npy");
  EXPECT_EQ(t.shape, (std::vector<long>{2, 1}));
  EXPECT_EQ(t.values, (std::vector<double>{1.0, -2.0}));
  EXPECT_EQ(t.dtype, DType::F32);
}

TEST(Npy, ReadsFloat16BigEndianAndVersions2And3) {
  for (int major : {2, 3}) {
    const auto t = parse_npy(npy("{'descr': '>f2', 'fortran_order': False, 'shape': (3,), }",
                                 be(0x3c00, 2) + be(0xc000, 2) + be(0x3800, 2), major),
                             "q.npy");
    EXPECT_EQ(t.values, (std::vector<double>{1.0, -2.0, 0.5}));
    EXPECT_EQ(t.dtype, DType::F16);
  }
  const auto d =
      parse_npy(npy("{'shape': (1,), 'fortran_order': False, 'descr': '>f8'}", be(0x3ff8000000000000ULL, 8)), "q.npy");
  EXPECT_EQ(d.values, (std::vector<double>{1.5}));
}

TEST(Npy, Bf16BitsOnlyWhenAsked) {
  const std::string file =
      npy("{'descr': '<i2', 'fortran_order': False, 'shape': (2,), }", le(0x3f80, 2) + le(0xbf00, 2));
  EXPECT_THAT(message_of(file, TensorFormat::Npy), HasSubstr("give --bf16-bits"));
  TensorReadOptions o;
  o.bf16_bits = true;
  const auto t = parse_npy(file, "q.npy", o);
  EXPECT_EQ(t.values, (std::vector<double>{1.0, -0.5}));
  EXPECT_EQ(t.dtype, DType::BF16);
}

TEST(Npy, RefusesMalformedFiles) {
  const std::string ok_dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  EXPECT_THAT(message_of("hello", TensorFormat::Npy), HasSubstr("q.npy: byte 0: not a .npy file"));
  std::string v4 = npy(ok_dict, le(0, 8));
  v4[6] = 4;
  EXPECT_THAT(message_of(v4, TensorFormat::Npy), HasSubstr("byte 6: format version 4.0"));
  std::string long_header = npy(ok_dict, le(0, 8));
  long_header[8] = '\xff';
  long_header[9] = '\xff';
  EXPECT_THAT(message_of(long_header, TensorFormat::Npy), HasSubstr("byte 8: header length 65535 is larger than the "));
  // A header over the 1 MiB limit is refused by that rule, even when the file holds it (issue 37, item 10).
  const std::string big_dict = ok_dict + std::string((1u << 20) - ok_dict.size() + 1, ' ');
  EXPECT_THAT(message_of(npy(big_dict, le(0, 8), 2), TensorFormat::Npy),
              HasSubstr("is larger than the 1048576-byte (1 MiB) limit"));
  EXPECT_THAT(message_of(le((1u << 20) + 1, 8) + std::string((1u << 20) + 9, ' '), TensorFormat::Safetensors),
              HasSubstr("byte 0: header size 1048577 is larger than the 1048576-byte (1 MiB) limit"));
  EXPECT_THAT(message_of(npy(ok_dict, le(0, 4)), TensorFormat::Npy), HasSubstr("needs 8 data bytes, the file has 4"));
  EXPECT_THAT(message_of(npy(ok_dict, le(0, 12)), TensorFormat::Npy), HasSubstr("needs 8 data bytes, the file has 12"));
  EXPECT_THAT(message_of(npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", le(0, 8)), TensorFormat::Npy),
              HasSubstr("'fortran_order' is True"));
  EXPECT_THAT(message_of(npy("{'descr': '<i8', 'fortran_order': False, 'shape': (1,), }", le(0, 8)), TensorFormat::Npy),
              HasSubstr("'descr' '<i8'"));
  // NumPy writes '|' for the byte order of a one-byte type: the type, not the byte order, is what is refused.
  EXPECT_THAT(message_of(npy("{'descr': '|i1', 'fortran_order': False, 'shape': (1,), }", le(0, 1)), TensorFormat::Npy),
              HasSubstr("'descr' '|i1': rope reads float16, float32, float64"));
  EXPECT_THAT(message_of(npy("{'descr': '|f4', 'fortran_order': False, 'shape': (1,), }", le(0, 4)), TensorFormat::Npy),
              HasSubstr("the byte order must be"));
  EXPECT_THAT(
      message_of(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4096, 4096, 4096), }", ""), TensorFormat::Npy),
      HasSubstr("more than the 16777216 elements"));
  EXPECT_THAT(message_of(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", ""),
                         TensorFormat::Npy),
              HasSubstr("dimension larger than"));
  EXPECT_THAT(message_of(npy("{'descr': '<f4', 'shape': (1,), }", le(0, 4)), TensorFormat::Npy),
              HasSubstr("missing key 'fortran_order'"));
  EXPECT_THAT(message_of(npy("{'descr': '<f4', 'descr': '<f4', }", ""), TensorFormat::Npy), HasSubstr("given twice"));
  EXPECT_THAT(message_of(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (0,), }", ""), TensorFormat::Npy),
              HasSubstr("holds no element"));
  EXPECT_THAT(
      message_of(npy("{'descr': '<f\x1b', 'fortran_order': False, 'shape': (1,), }", le(0, 4)), TensorFormat::Npy),
      HasSubstr("'descr' '<f\\e'"));
}

std::string safetensors(const std::string& json, const std::string& data) { return le(json.size(), 8) + json + data; }

TEST(Safetensors, ReadsEachDType) {
  const auto f32 = parse_safetensors(
      safetensors(R"({"q":{"dtype":"F32","shape":[1,2],"data_offsets":[0,8]},"__metadata__":{"a":"b"}})",
                  le(0x3f800000, 4) + le(0xc0000000, 4)),
      "q.safetensors");
  EXPECT_EQ(f32.values, (std::vector<double>{1.0, -2.0}));
  EXPECT_EQ(f32.shape, (std::vector<long>{1, 2}));
  const std::string two = safetensors(
      R"({"a":{"dtype":"F16","shape":[1],"data_offsets":[0,2]},"b":{"dtype":"BF16","shape":[1],"data_offsets":[2,4]},"c":{"dtype":"F64","shape":[1],"data_offsets":[4,12]}})",
      le(0x3800, 2) + le(0x3f80, 2) + le(0x4000000000000000ULL, 8));
  TensorReadOptions o;
  o.tensor = "a";
  EXPECT_EQ(parse_safetensors(two, "s", o).values, std::vector<double>{0.5});
  o.tensor = "b";
  EXPECT_EQ(parse_safetensors(two, "s", o).dtype, DType::BF16);
  EXPECT_EQ(parse_safetensors(two, "s", o).values, std::vector<double>{1.0});
  o.tensor = "c";
  EXPECT_EQ(parse_safetensors(two, "s", o).values, std::vector<double>{2.0});
  EXPECT_THAT(message_of(two, TensorFormat::Safetensors),
              HasSubstr("holds 3 tensors (a, b, c): name one with --tensor"));
}

TEST(Safetensors, RefusesMalformedFiles) {
  EXPECT_THAT(message_of("abc", TensorFormat::Safetensors), HasSubstr("byte 0: the file ends inside"));
  EXPECT_THAT(message_of(le(1000, 8) + "{}", TensorFormat::Safetensors),
              HasSubstr("header size 1000 is larger than the 2 bytes"));
  EXPECT_THAT(message_of(safetensors("[1]", ""), TensorFormat::Safetensors), HasSubstr("must begin with '{'"));
  EXPECT_THAT(message_of(safetensors("{\"a\":", ""), TensorFormat::Safetensors), HasSubstr("not valid JSON"));
  // A number too large for a double is nlohmann's out_of_range, not a parse_error (found by fuzz_tensor).
  EXPECT_THAT(message_of(safetensors(R"({"q":{"dtype":[1E2222]}})", ""), TensorFormat::Safetensors),
              HasSubstr("the header holds a number out of range"));
  EXPECT_THAT(message_of(safetensors(R"({"q":{"dtype":"I64","shape":[1],"data_offsets":[0,8]}})", le(0, 8)),
                         TensorFormat::Safetensors),
              HasSubstr("'I64' is not F16, BF16, F32 or F64"));
  EXPECT_THAT(message_of(safetensors(R"({"q":{"dtype":"F32","shape":[1],"data_offsets":[0,8]}})", le(0, 4)),
                         TensorFormat::Safetensors),
              HasSubstr("[0, 8] is not inside the 4-byte buffer"));
  EXPECT_THAT(message_of(safetensors(R"({"q":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", le(0, 4)),
                         TensorFormat::Safetensors),
              HasSubstr("holds 4 bytes, shape (2,) of F32 needs 8"));
  EXPECT_THAT(message_of(safetensors(R"({"q":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", le(0, 4)),
                         TensorFormat::Safetensors),
              HasSubstr("non-negative integer"));
  EXPECT_THAT(message_of(safetensors(R"({"q":{"dtype":"F32","shape":[65536,65536,65536],"data_offsets":[0,4]}})", ""),
                         TensorFormat::Safetensors),
              HasSubstr("more than the 16777216 elements"));
}

TEST(CsvTensor, ReadsRowsWithHeaderAndComments) {
  const auto t = parse_csv_tensor("# dumped by hand\nx0,x1\n1, 2\n3,4.5\n\n", "q.csv");
  EXPECT_EQ(t.shape, (std::vector<long>{2, 2}));
  EXPECT_EQ(t.values, (std::vector<double>{1, 2, 3, 4.5}));
  EXPECT_THAT(message_of("1,2\n3\n", TensorFormat::Csv),
              HasSubstr("q.csv: line 2: a row of length 1, but the rows before have length 2"));
  EXPECT_THAT(message_of("1,2\n3,x\n", TensorFormat::Csv),
              HasSubstr("line 2, column 2: 'x' is not a finite decimal number"));
  EXPECT_THAT(message_of("# nothing\n", TensorFormat::Csv), HasSubstr("no row of numbers"));
}

#if !ROPE_ADDRESS_SANITIZER
TEST(CsvTensor, ALineOfCommasIsParsedAsItIsSplit) {
  // 32 MiB of commas took ~34 bytes per byte as a list of cells before any was parsed (issue 37, item 6).
  const std::string text = "1\n" + std::string(32u << 20, ',');
  parse_within_memory([&] { parse_csv_tensor(text, "q.csv"); }, 64u << 20,
                      "q.csv: line 2, column 1: '' is not a finite");
}
#endif

TEST(TensorFile, DetectsTheFormatAndReportsMissingFiles) {
  EXPECT_EQ(detect_tensor_format("\x93NUMPY\x01", "x"), TensorFormat::Npy);
  EXPECT_EQ(detect_tensor_format(le(2, 8) + "{}", "x"), TensorFormat::Safetensors);
  EXPECT_EQ(detect_tensor_format("1,2", "x.csv"), TensorFormat::Csv);
  EXPECT_THROW(detect_tensor_format("1,2", "x.bin"), InvalidArgument);
  EXPECT_THROW(read_tensor_file("/nonexistent/q.npy"), IoError);
}

}  // namespace
}  // namespace rope
