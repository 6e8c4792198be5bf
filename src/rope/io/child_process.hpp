/// @file
/// Running a program as a child process with a time limit: no shell, stdin from /dev/null, one of
/// stdout or stderr captured (its last kMaxCaptured bytes: an error message comes last), the other to
/// /dev/null. The child gets its own process group, which is killed on timeout and, through
/// rope/io/interrupt.hpp, on a signal, so whatever it started goes too; it also gets SIGKILL as its
/// parent-death signal (PR_SET_PDEATHSIG), so it cannot outlive rope even after a SIGKILL. The figures
/// run gnuplot and fc-list with it (rope/plot/render.hpp).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace rope {

/// How many bytes of the captured stream run_child keeps (the last ones).
inline constexpr std::size_t kMaxCaptured = 64 * 1024;

struct ChildResult {
  int spawn_error = 0;  ///< errno of starting the program (ENOENT: not found); 0 if it started
  bool timed_out = false;
  int status = 0;  ///< from waitpid
  std::string captured;
};

enum class Capture { Stdout, Stderr };

/// What else a child gets.
struct ChildOptions {
  std::vector<int> keep_fds;           ///< descriptors left open in the child (under the same numbers)
  std::vector<std::string> unset_env;  ///< environment variables removed for the child
  std::vector<std::string> set_env;    ///< "NAME=VALUE" entries set for the child
};

/// Runs `argv` (argv[0] looked up on PATH, no shell) and waits for it, at most `timeout_seconds`:
/// then its process group is killed (SIGKILL) and timed_out set.
/// A program that cannot be started is reported in spawn_error, not thrown.
/// @throws IoError if the pipe cannot be created or waiting fails ("cannot run 'PROGRAM': ...").
ChildResult run_child(std::vector<std::string> argv, Capture capture, double timeout_seconds,
                      const ChildOptions& options = {});

}  // namespace rope
