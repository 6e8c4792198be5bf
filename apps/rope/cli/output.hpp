/// @file
/// Where machine-readable output goes: a file (written atomically, rope/io/atomic_file.hpp) or, for "-",
/// standard output.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

namespace rope::cli {

/// Writes `content` to the file `target`, or to `out` when target is "-".
/// @throws rope::IoError when the file cannot be written (nothing is left behind).
void write_output(const std::string& target, std::string_view content, std::ostream& out);

}  // namespace rope::cli
