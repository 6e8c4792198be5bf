/// @file
/// How a death test's child ends (EXPECT_EXIT with death_test_style "fast": a fork of the test program).
#pragma once

#include <cstdio>
#include <cstdlib>

namespace rope::test {

/// Ends a forked death-test child with `code`, its output flushed, without the exit handlers. The sanitizer tree
/// runs many tests in one process (tests/CMakeLists.txt, ROPE_UNIT_TEST_SHARDS), so an earlier test may have left
/// OpenMP's worker threads in the parent; a fork has only the calling thread, and LeakSanitizer's check at exit,
/// which stops every thread it finds, then fails with exit status 1 instead of the code the test expects.
[[noreturn]] inline void end_child(int code) {
  std::fflush(nullptr);
  std::_Exit(code);
}

}  // namespace rope::test
