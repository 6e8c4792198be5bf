/// @file
/// Reading a small text file a user names (a list of numbers given as @FILE, docs/errors.md) without
/// trusting it: at most a fixed number of bytes is read, so /dev/zero or a huge file cannot exhaust memory, and a
/// directory, a missing or unreadable file, or binary content each give one clear line.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace rope {

/// Largest file read for a list given as @FILE (a list has at most kMaxListItems numbers).
inline constexpr std::size_t kMaxListFileBytes = 4u << 20;

/// The whole content of `path`. `what` names the file in messages, in the caller's words ("list file";
/// the command line names its option there).
/// @throws IoError ("cannot read list file 'x': No such file or directory") if it is missing,
///         a directory or unreadable; InvalidArgument if it is larger than `max_bytes` or holds a NUL
///         byte (binary).
std::string read_text_file(const std::string& path, std::string_view what, std::size_t max_bytes);

}  // namespace rope
