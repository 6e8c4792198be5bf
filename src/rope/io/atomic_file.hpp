/// @file
/// Writing an output file so that it is never seen half-written: the content goes to a temporary
/// file in the same directory, which is then renamed over the target (rename is atomic within a file
/// system). On any failure the temporary file is removed and the target is left as it was.
#pragma once

#include <string>
#include <string_view>

namespace rope {

/// Writes `content` to `path` atomically, with permissions 0666 & ~umask like any new file.
/// @throws IoError naming the path and the system's reason (a missing or unwritable directory, a path
///         that is a directory, a full disk, ...).
void write_file_atomically(const std::string& path, std::string_view content);

}  // namespace rope
