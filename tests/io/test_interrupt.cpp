// interrupt.hpp: a registered temporary file is removed when the process is killed by SIGINT/SIGTERM,
// and the process still dies of that signal. (The whole path with the real binary and a gnuplot that
// hangs: tests/hardening/interrupt.py.)
#include "rope/io/interrupt.hpp"

#include <csignal>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <unistd.h>

namespace rope {
namespace {

std::string make_file(const std::string& name) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("rope-interrupt-" + std::to_string(::getpid()) + "-" + name)).string();
  std::ofstream(path) << "partial";
  return path;
}

TEST(InterruptDeathTest, SigintRemovesRegisteredFilesAndKillsBySigint) {
  GTEST_FLAG_SET(death_test_style, "fast");  // fork only: the child sees the same paths
  const std::string kept = make_file("kept");
  const std::string temp = make_file("temp");
  const std::string released = make_file("released");
  EXPECT_EXIT(
      {
        install_interrupt_cleanup();
        register_temp(temp.c_str());
        unregister_temp(register_temp(released.c_str()));  // renamed into place: must stay
        std::raise(SIGINT);
      },
      ::testing::KilledBySignal(SIGINT), "");
  EXPECT_FALSE(std::filesystem::exists(temp));
  EXPECT_TRUE(std::filesystem::exists(released));
  EXPECT_TRUE(std::filesystem::exists(kept));
  std::filesystem::remove(kept);
  std::filesystem::remove(released);
}

TEST(InterruptDeathTest, SigtermToo) {
  GTEST_FLAG_SET(death_test_style, "fast");  // fork only: the child sees the same paths
  const std::string temp = make_file("term");
  EXPECT_EXIT(
      {
        install_interrupt_cleanup();
        register_temp(temp.c_str());
        std::raise(SIGTERM);
      },
      ::testing::KilledBySignal(SIGTERM), "");
  EXPECT_FALSE(std::filesystem::exists(temp));
}

TEST(InterruptDeathTest, ARegisteredDirectoryGoesAfterItsFiles) {
  // rope lesson's temporary directory (issue 62 item 4): registered before the figure inside it, removed after it.
  GTEST_FLAG_SET(death_test_style, "fast");
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("rope-interrupt-" + std::to_string(::getpid()) + "-dir")).string();
  std::filesystem::create_directories(dir);
  const std::string figure = dir + "/figure1.svg";
  std::ofstream(figure) << "<svg";
  EXPECT_EXIT(
      {
        install_interrupt_cleanup();
        register_temp_dir(dir.c_str());
        register_temp(figure.c_str());
        std::raise(SIGINT);
      },
      ::testing::KilledBySignal(SIGINT), "");
  EXPECT_FALSE(std::filesystem::exists(dir));
  std::filesystem::remove_all(dir);
}

TEST(Interrupt, TableFullOrPathTooLongIsReportedNotFatal) {
  EXPECT_EQ(register_temp(std::string(5000, 'x').c_str()), -1);
  std::vector<int> slots;
  for (int i = 0; i < kMaxRegisteredTemps; ++i) slots.push_back(register_temp("/nonexistent/rope-slot"));
  EXPECT_EQ(register_temp("/nonexistent/one-more"), -1);
  for (int s : slots) {
    EXPECT_GE(s, 0);
    unregister_temp(s);
  }
  const int again = register_temp("/nonexistent/again");
  EXPECT_GE(again, 0);
  unregister_temp(again);
}

}  // namespace
}  // namespace rope
