// text_file.hpp (bounded reads of a user's file) and the @FILE form of list options.
#include "rope/io/text_file.hpp"

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <string>
#include <unistd.h>

#include "support/cli_harness.hpp"
#include "rope/core/error.hpp"

namespace rope {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

class TextFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("rope-text-file-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& content) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << content;
    return path;
  }
  std::filesystem::path dir_;
};

TEST_F(TextFile, ReadsSmallText) {
  EXPECT_EQ(read_text_file(write("a.txt", "1, 2\n3"), "--vector file", 100), "1, 2\n3");
  EXPECT_EQ(read_text_file(write("e.txt", ""), "--vector file", 100), "");
}

TEST_F(TextFile, MissingDirectoryAndUnreadableAreIoErrors) {
  EXPECT_THAT([&] { read_text_file((dir_ / "missing").string(), "--vector file", 100); },
              ThrowsMessage<IoError>(HasSubstr("cannot read --vector file '")));
  EXPECT_THAT([&] { read_text_file((dir_ / "missing").string(), "--vector file", 100); },
              ThrowsMessage<IoError>(HasSubstr("No such file or directory")));
  EXPECT_THAT([&] { read_text_file(dir_.string(), "--vector file", 100); },
              ThrowsMessage<IoError>(HasSubstr("Is a directory")));
  // Readable to stat and open, but read() fails (EIO): the case of an unreadable file even for root.
  EXPECT_THAT([&] { read_text_file("/proc/self/mem", "--vector file", 100); },
              ThrowsMessage<IoError>(HasSubstr("cannot read --vector file '/proc/self/mem'")));
}

TEST_F(TextFile, LimitAndBinaryAreInvalidArguments) {
  EXPECT_EQ(read_text_file(write("ok.txt", std::string(100, '1')), "f", 100).size(), 100u);
  EXPECT_THAT([&] { read_text_file(write("big.txt", std::string(101, '1')), "f", 100); },
              ThrowsMessage<InvalidArgument>(HasSubstr("is larger than the 100-byte limit")));
  // A device is never read (an endless /dev/zero, a terminal): exit 3, one line.
  EXPECT_THAT([&] { read_text_file("/dev/zero", "f", 1000); },
              ThrowsMessage<IoError>(HasSubstr("cannot read f '/dev/zero': not a regular file")));
  EXPECT_THAT([&] { read_text_file(write("bin.txt", std::string("1,2\0,3", 6)), "f", 100); },
              ThrowsMessage<InvalidArgument>(HasSubstr("is not a text file (it holds a NUL byte)")));
  EXPECT_THAT([&] { read_text_file("", "--vector file", 100); },
              ThrowsMessage<InvalidArgument>(HasSubstr("--vector file name is empty")));
}

TEST_F(TextFile, VectorFromFileEqualsVectorTyped) {
  const std::string path = write("v.txt", "1 0\n0,1\r\n");
  const auto typed = test::rope_cli({"apply", "--position", "2", "--vector", "1,0,0,1"});
  const auto from_file = test::rope_cli({"apply", "--position", "2", "--vector", "@" + path});
  EXPECT_EQ(typed.code, 0) << typed.err;
  EXPECT_EQ(from_file.code, 0) << from_file.err;
  EXPECT_EQ(typed.out, from_file.out);
}

TEST_F(TextFile, VectorFileErrorsAreOneLine) {
  test::expect_one_line_error(test::rope_cli({"apply", "--position", "1", "--vector", "@" + (dir_ / "nope").string()}),
                              3, "cannot read --vector file '");
  test::expect_one_line_error(test::rope_cli({"apply", "--position", "1", "--vector", "@" + dir_.string()}), 3,
                              "Is a directory");
  test::expect_one_line_error(
      test::rope_cli({"apply", "--position", "1", "--vector", "@" + write("blank.txt", " \n\n")}), 2,
      "holds no numbers");
  test::expect_one_line_error(
      test::rope_cli({"apply", "--position", "1", "--vector", "@" + write("bad.txt", "1 2 x 4")}), 2,
      "item 3 must be a decimal number (got 'x')");
  std::string many;
  for (int i = 0; i < 70000; ++i) many += "1\n";
  test::expect_one_line_error(test::rope_cli({"apply", "--position", "1", "--vector", "@" + write("many.txt", many)}),
                              2, "has more than 65536 items");
}

TEST_F(TextFile, BoundedReadReportsErrnoAndStopsPastTheLimit) {
  // The reader under read_text_file and read_model_config: it throws nothing, the caller words the message.
  const BoundedRead missing = read_file_bounded((dir_ / "missing.txt").string(), 100);
  EXPECT_EQ(missing.error, ENOENT);
  EXPECT_EQ(missing.text, "");
  EXPECT_EQ(read_file_bounded(dir_.string(), 100).error, EISDIR);
  const BoundedRead small = read_file_bounded(write("s.txt", std::string("ab\0c", 4)), 4);
  EXPECT_EQ(small.error, 0);
  EXPECT_EQ(small.text, std::string("ab\0c", 4));  // NUL bytes are the caller's business
  // Larger than the limit: more than max_bytes come back, and never the whole of a large file.
  const std::string big(300000, 'x');
  const BoundedRead over = read_file_bounded(write("big.txt", big), 10);
  EXPECT_EQ(over.error, 0);
  EXPECT_GT(over.text.size(), 10u);
  EXPECT_LT(over.text.size(), big.size());
  const BoundedRead zero = read_file_bounded("/dev/zero", 1000);
  EXPECT_EQ(zero.error, kNotRegularFile);
  EXPECT_TRUE(zero.text.empty());
}

// A FIFO used to hang the read for ever (issue 19, item 3): refused at once, before any read.
TEST_F(TextFile, FifoIsRefusedWithoutWaiting) {
  const std::string fifo = write("unused", "") + ".fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const BoundedRead r = read_file_bounded(fifo, 1000);
  EXPECT_EQ(r.error, kNotRegularFile);
  EXPECT_EQ(r.reason(), "not a regular file (a FIFO, device or socket is not read)");
  EXPECT_THAT([&] { read_text_file(fifo, "--vector file", 1000); },
              ThrowsMessage<IoError>(HasSubstr("cannot read --vector file '" + fifo + "': not a regular file")));
  ::unlink(fifo.c_str());
}

}  // namespace
}  // namespace rope
