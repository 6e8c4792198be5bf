// A parse run in a child process whose address space may grow by a bounded amount: the tests of the readers'
// memory bounds (tests/io/test_tensor_file.cpp, tests/models/test_axes.cpp). Not under AddressSanitizer, which
// reserves terabytes of address space (no RLIMIT_AS).
#pragma once

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>

#include "rope/core/error.hpp"
#include "rope/core/sanitizer.hpp"

namespace rope::test {

#if !ROPE_ADDRESS_SANITIZER
/// Runs `parse` in a child whose address space may grow by at most `extra` bytes; the child exits 0 when it
/// threw InvalidArgument with `expected` in its message, 1 otherwise (std::bad_alloc included).
inline void parse_within_memory(const std::function<void()>& parse, std::size_t extra, const std::string& expected) {
  GTEST_FLAG_SET(death_test_style, "fast");
  EXPECT_EXIT(
      {
        std::ifstream status("/proc/self/status");
        std::size_t vm_kib = 0;
        for (std::string line; std::getline(status, line);) {
          if (line.rfind("VmSize:", 0) == 0) vm_kib = std::stoul(line.substr(7));
        }
        rlimit limit{};
        limit.rlim_cur = limit.rlim_max = vm_kib * 1024 + extra;
        ::setrlimit(RLIMIT_AS, &limit);
        try {
          parse();
        } catch (const InvalidArgument& e) {
          std::exit(std::string(e.what()).find(expected) != std::string::npos ? 0 : 1);
        } catch (...) {
        }
        std::exit(1);
      },
      ::testing::ExitedWithCode(0), "");
}
#endif

}  // namespace rope::test
