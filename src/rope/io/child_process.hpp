/// @file
/// Running a program as a child process with a time limit: no shell, stdin from /dev/null, one of
/// stdout or stderr captured (its last kMaxCaptured bytes: an error message comes last), the other to
/// /dev/null. The child gets its own process group, which is killed on timeout and, through
/// rope/io/interrupt.hpp, on Ctrl-C, so whatever it started goes too. The figures run gnuplot and
/// fc-list with it (rope/plot/render.hpp).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace rope {

/// How many bytes of the captured stream run_child keeps (the last ones).
inline constexpr std::size_t kMaxCaptured = 64 * 1024;

struct ChildResult {
  int spawn_error = 0;  ///< errno from posix_spawnp; 0 if the program started
  bool timed_out = false;
  int status = 0;  ///< from waitpid
  std::string captured;
};

enum class Capture { Stdout, Stderr };

/// Runs `argv` (argv[0] looked up on PATH, no shell) and waits for it, at most `timeout_seconds`:
/// then its process group is killed (SIGKILL) and timed_out set. While it runs, SIGINT, SIGTERM,
/// SIGHUP and SIGQUIT kill its process group too (set_running_child, interrupt.hpp).
/// A program that cannot be started is reported in spawn_error, not thrown.
/// @throws IoError if the pipe cannot be created or waiting fails ("cannot run 'PROGRAM': ...").
ChildResult run_child(std::vector<std::string> argv, Capture capture, double timeout_seconds);

}  // namespace rope
