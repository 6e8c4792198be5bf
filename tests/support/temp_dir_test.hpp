// A test fixture with a directory of its own under the temporary directory, removed after each test, and the
// small file helpers the atomic-writer tests share (tests/io/test_atomic_file.cpp, test_atomic_commit.cpp).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace rope::test {

class TempDirTest : public ::testing::Test {
 protected:
  /// `prefix` names the directory: <tmp>/<prefix>-<pid>-<test name>.
  explicit TempDirTest(std::string prefix) : prefix_(std::move(prefix)) {}
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           (prefix_ + "-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  static std::string read(const std::filesystem::path& p) {
    std::ifstream in(p);
    return {std::istreambuf_iterator<char>(in), {}};
  }
  /// How many entries the directory holds (a leftover temporary file counts).
  std::size_t entries() const {
    return static_cast<std::size_t>(std::distance(std::filesystem::directory_iterator(dir_), {}));
  }
  std::filesystem::path dir_;

 private:
  std::string prefix_;
};

}  // namespace rope::test
