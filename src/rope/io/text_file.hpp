/// @file
/// Reading a small text file a user names (a list of numbers given as @FILE, docs/errors.md) without
/// trusting it: at most a fixed number of bytes is read, so /dev/zero or a huge file cannot exhaust memory, and a
/// directory, a missing or unreadable file, or binary content each give one clear line.
#pragma once

#include <cstddef>
#include <string>
#include <vector>
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

/// BoundedRead::error for a FIFO, device or socket: never read (a FIFO could block forever, a device
/// never end).
inline constexpr int kNotRegularFile = -1;

/// What read_file_bounded found.
struct BoundedRead {
  std::string text;  ///< the bytes read; more than max_bytes of them means the file is larger than the limit
  int error = 0;     ///< 0, the errno that stopped the read (EISDIR for a directory), or kNotRegularFile
  /// The error in words: strerror, or "not a regular file (...)".
  std::string reason() const;
};

/// The one bounded reader under read_text_file and read_model_config (models/model_config.hpp): it stops
/// at most one 64 KiB buffer past `max_bytes`, so that /dev/zero or a huge file cannot exhaust memory and
/// the caller can still tell that the file is larger than `max_bytes`. Throws nothing: a missing, unreadable
/// or directory `path`, or one that is not a regular file, comes back as `error`, for the caller to word its own
/// message.
BoundedRead read_file_bounded(const std::string& path, std::size_t max_bytes);

/// A list of numbers as typed for a list option: "1,0,0,1" (rope/core/parse.hpp parse_real_list), or
/// "@FILE" naming a text file (at most kMaxListFileBytes, rope/io/text_file.hpp) of numbers separated by
/// commas or white space.
/// @throws InvalidArgument for a bad list or file content, IoError for a file that cannot be read.
std::vector<double> parse_list_argument(const std::string& text, const std::string& what);

}  // namespace rope
