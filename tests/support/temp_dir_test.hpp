// The one test fixture with a directory of its own under the temporary directory, removed after each test, and
// the small file helpers the tests that write files share (the atomic-writer tests, the command tests through
// support/cli_harness.hpp). One definition: two classes of this name in two headers broke the one-definition
// rule, and the linker then gave some tests the other one's SetUp.
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
  /// The directory is <tmp>/rope-<test suite>-<pid>-<test name>.
  TempDirTest() = default;
  /// `prefix` names the directory: <tmp>/<prefix>-<pid>-<test name>.
  explicit TempDirTest(std::string prefix) : prefix_(std::move(prefix)) {}
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    const std::string prefix = prefix_.empty() ? "rope-" + std::string(info->test_suite_name()) : prefix_;
    dir_ = std::filesystem::temp_directory_path() / (prefix + "-" + std::to_string(::getpid()) + "-" + info->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  /// The path of `name` in the directory.
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  static std::string read(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
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
