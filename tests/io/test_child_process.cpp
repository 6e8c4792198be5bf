// rope/io/child_process.hpp: a program run with a time limit, one stream captured, no shell.
#include "rope/io/child_process.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <gtest/gtest.h>
#include <sys/wait.h>

namespace rope {
namespace {

TEST(ChildProcess, CapturesStdoutAndTheExitStatus) {
  const ChildResult r = run_child({"sh", "-c", "echo out; echo err >&2; exit 3"}, Capture::Stdout, 30.0);
  EXPECT_EQ(r.spawn_error, 0);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.captured, "out\n");
  ASSERT_TRUE(WIFEXITED(r.status));
  EXPECT_EQ(WEXITSTATUS(r.status), 3);
}

TEST(ChildProcess, CapturesStderrWhenAsked) {
  const ChildResult r = run_child({"sh", "-c", "echo out; echo err >&2"}, Capture::Stderr, 30.0);
  EXPECT_EQ(r.captured, "err\n");
  ASSERT_TRUE(WIFEXITED(r.status));
  EXPECT_EQ(WEXITSTATUS(r.status), 0);
}

TEST(ChildProcess, ArgumentsReachTheProgramAsTheyAreWithoutAShell) {
  const ChildResult r = run_child({"printf", "%s|", "a b", "$HOME", "`id`"}, Capture::Stdout, 30.0);
  EXPECT_EQ(r.captured, "a b|$HOME|`id`|");
}

TEST(ChildProcess, StdinIsEmpty) {
  const ChildResult r = run_child({"sh", "-c", "cat; echo done"}, Capture::Stdout, 30.0);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.captured, "done\n");
}

TEST(ChildProcess, AMissingProgramIsASpawnErrorNotAnException) {
  const ChildResult r = run_child({"/nonexistent/rope-no-such-program"}, Capture::Stdout, 30.0);
  EXPECT_EQ(r.spawn_error, ENOENT);
  EXPECT_TRUE(r.captured.empty());
}

TEST(ChildProcess, KeepsTheLastBytesOfALongOutput) {
  // kMaxCaptured + 1000 bytes of 'x', then the last words: only the end is kept, the pipe drained.
  const std::string script = "head -c " + std::to_string(kMaxCaptured + 1000) + " /dev/zero | tr '\\0' x; echo END";
  const ChildResult r = run_child({"sh", "-c", script}, Capture::Stdout, 30.0);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.captured.size(), kMaxCaptured);
  EXPECT_EQ(r.captured.substr(r.captured.size() - 4), "END\n");
}

TEST(ChildProcess, ASlowProgramIsKilledAtTheTimeout) {
  const auto start = std::chrono::steady_clock::now();
  // The shell's child (sleep) holds the pipe too: the whole process group goes, and run_child does not
  // wait for the pipe to close.
  const ChildResult r = run_child({"sh", "-c", "sleep 30; echo late"}, Capture::Stdout, 0.3);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(seconds, 20.0);  // well before sleep's 30 s, with room for a loaded machine
  EXPECT_GE(seconds, 0.3);
  ASSERT_TRUE(WIFSIGNALED(r.status));
  EXPECT_EQ(WTERMSIG(r.status), SIGKILL);
  EXPECT_EQ(r.captured, "");
}

}  // namespace
}  // namespace rope
