// The streamed tensor reader (rope/io/tensor_stream.hpp): the same values as the whole-file readers, no size
// limit but the disk's, and a file truncated while it is read reported as an I/O error.
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <tuple>

#include "rope/core/error.hpp"
#include "rope/io/tensor_stream.hpp"
#include "support/cli_harness.hpp"
#include "support/shared.hpp"

namespace rope {
namespace {

using test::le;

std::string npy_header(const std::string& descr, const std::string& shape) {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  return std::string("\x93NUMPY", 6) + '\x01' + '\0' + le(header.size(), 2) + header;
}

class TensorStreamTest : public test::TempDirTest {
 protected:
  std::string write(const std::string& name, const std::string& bytes) {
    const auto p = (dir_ / name).string();
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }
};

TEST_F(TensorStreamTest, ReadsTheValuesTheWholeFileReaderReads) {
  std::string data;
  for (int i = 0; i < 24; ++i) {
    const float f = 0.25f * static_cast<float>(i) - 2.0f;
    std::uint32_t bits;
    std::memcpy(&bits, &f, 4);
    data += le(bits, 4);
  }
  const std::string header = npy_header("<f4", "(2, 3, 4)");
  const std::string path = write("q.npy", header + data);
  const TensorStream s = TensorStream::open(path);
  EXPECT_EQ(s.header().shape, (std::vector<long>{2, 3, 4}));
  EXPECT_EQ(s.header().count, 24);
  EXPECT_EQ(s.header().data_offset, header.size());
  const TensorData whole = read_tensor_file(path);
  std::vector<double> got(10);
  std::vector<unsigned char> scratch;
  s.read(7, 10, got.data(), scratch);
  for (int k = 0; k < 10; ++k) EXPECT_EQ(got[k], whole.values[7 + k]);
}

TEST_F(TensorStreamTest, DecodesBfloat16AndBigEndianLikeTheWholeFileReader) {
  std::string bf, be;
  for (int i = 0; i < 8; ++i) bf += le(0x3f80u + 0x11u * i, 2);  // bfloat16 bits
  for (int i = 0; i < 8; ++i) be += std::string("\x3f\xf0\x00\x00\x00\x00\x00", 7) + static_cast<char>(i);  // >f8
  TensorReadOptions o;
  o.bf16_bits = true;
  for (const auto& [name, bytes] : {std::pair<std::string, std::string>{"b.npy", npy_header("<u2", "(8,)") + bf},
                                    {"e.npy", npy_header(">f8", "(8,)") + be}}) {
    const std::string path = write(name, bytes);
    const TensorStream s = TensorStream::open(path, o);
    const TensorData whole = read_tensor_file(path, o);
    std::vector<double> got(8);
    std::vector<unsigned char> scratch;
    s.read(0, 8, got.data(), scratch);
    for (int k = 0; k < 8; ++k) EXPECT_EQ(got[k], whole.values[k]) << name << " " << k;
  }
}

TEST_F(TensorStreamTest, OpensAFileAboveTheWholeFileLimit) {
  // 2^25 float32 elements (128 MiB, a sparse file): above kMaxTensorElements, refused whole, streamed.
  const std::string header = npy_header("<f4", "(33554432,)");
  const std::string path = write("big.npy", header);
  std::filesystem::resize_file(path, header.size() + (std::uintmax_t{1} << 27));
  EXPECT_THROW(read_tensor_file(path), InvalidArgument);
  const TensorStream s = TensorStream::open(path);
  EXPECT_EQ(s.header().count, 1L << 25);
  std::vector<double> got(4, 1.0);
  std::vector<unsigned char> scratch;
  s.read((1L << 25) - 4, 4, got.data(), scratch);
  EXPECT_EQ(got, std::vector<double>(4, 0.0));
}

TEST_F(TensorStreamTest, AFileTruncatedWhileReadIsAnIoErrorNamingTheByte) {
  const std::string header = npy_header("<f4", "(1024,)");
  const std::string path = write("t.npy", header + std::string(4096, '\0'));
  const TensorStream s = TensorStream::open(path);
  std::filesystem::resize_file(path, header.size() + 1000);
  std::vector<double> got(1024);
  std::vector<unsigned char> scratch;
  try {
    s.read(0, 1024, got.data(), scratch);
    FAIL() << "no error";
  } catch (const IoError& e) {
    const std::string want = "it ends at byte " + std::to_string(header.size() + 1000) + ", its header promised " +
                             std::to_string(header.size() + 4096);
    EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
  }
}

TEST_F(TensorStreamTest, HeadersLongerThanTheFirstReadAreReadWhole) {
  // open() reads the first 64 KiB and the rest of a header only when it announces more: a .npy 2.0 header and a
  // safetensors header of 100 KiB (padded with spaces, as writers align them) open as the whole-file reader
  // reads them, and a length beyond the 1 MiB rule is refused as before.
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }";
  while ((12 + dict.size() + 1) % 64 != 0 || dict.size() < 100000) dict += ' ';
  dict += '\n';
  std::string data;
  for (int i = 0; i < 4; ++i) {
    const float f = 1.5f * static_cast<float>(i);
    std::uint32_t bits;
    std::memcpy(&bits, &f, 4);
    data += le(bits, 4);
  }
  const std::string npy = std::string("\x93NUMPY", 6) + '\x02' + '\0' + le(dict.size(), 4) + dict;
  std::string json = R"({"q":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})";
  json.append(100000, ' ');
  for (const auto& [name, bytes, offset] :
       {std::tuple<std::string, std::string, std::size_t>{"long.npy", npy + data, npy.size()},
        {"long.safetensors", le(json.size(), 8) + json + data, 8 + json.size()}}) {
    const std::string path = write(name, bytes);
    const TensorStream s = TensorStream::open(path);
    EXPECT_EQ(s.header().data_offset, offset) << name;
    const TensorData whole = read_tensor_file(path);
    std::vector<double> got(4);
    std::vector<unsigned char> scratch;
    s.read(0, 4, got.data(), scratch);
    for (int k = 0; k < 4; ++k) EXPECT_EQ(got[k], whole.values[k]) << name << " " << k;
  }
  const std::string too_long =
      write("huge.npy", std::string("\x93NUMPY", 6) + '\x02' + '\0' + le(2u << 20, 4) + dict + data);
  try {
    (void)TensorStream::open(too_long);
    FAIL() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("header length 2097152"), std::string::npos) << e.what();
  }
}

TEST_F(TensorStreamTest, CsvAndMalformedFilesAreNotStreamed) {
  const std::string csv = write("q.csv", "1,2\n3,4\n");
  EXPECT_FALSE(TensorStream::streamable(csv));
  EXPECT_THROW(TensorStream::open(csv), InvalidArgument);
  EXPECT_FALSE(TensorStream::streamable((dir_ / "missing.npy").string()));
  EXPECT_THROW(TensorStream::open((dir_ / "missing.npy").string()), IoError);
  const std::string short_data = write("s.npy", npy_header("<f4", "(8,)") + std::string(12, '\0'));
  EXPECT_THROW(TensorStream::open(short_data), InvalidArgument);  // the header's shape needs 32 bytes
}

}  // namespace
}  // namespace rope
