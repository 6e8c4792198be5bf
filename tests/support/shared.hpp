/// @file
/// Constants and small helpers several test files need: one definition each, so that the test files can be
/// compiled in batches (the sanitizer tree's unity build, docs/architecture.md) and never drift apart.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

namespace rope::test {

/// float64 machine epsilon, 2^−52.
inline constexpr double kEps = std::numeric_limits<double>::epsilon();

/// The directory of the sample dumps, data/dumps/, with its trailing slash.
inline const std::string kDumps = std::string(ROPE_REFERENCE_DIR) + "/../../data/dumps/";

/// A GGUF file built for the tests (tests/CMakeLists.txt, rope_gguf_files).
inline std::string gguf_path(const std::string& name) { return std::string(ROPE_GGUF_DIR) + "/" + name; }

/// `v` as n little-endian bytes (bytes past the eighth are zero).
inline std::string le(std::uint64_t v, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += static_cast<char>(i < 8 ? (v >> (8 * i)) & 0xff : 0);
  return s;
}

}  // namespace rope::test
