/// @file
/// The files a run reads, noted by every reader of rope/io/ as it opens them, so that the one writer
/// (atomic_file.hpp) never replaces one of them with an output, whichever option, directory or index named it. A
/// file is known by its device and inode (links followed). Noting is on only while an output batch is open
/// (OutputBatch counts itself in and out); outside one nothing is kept. Any thread. Its own file, apart from the
/// writer, so that a build without the writer (the live page, web/CMakeLists.txt) still links the readers.
#pragma once

#include <cstdint>
#include <string>

namespace rope {

/// Notes that the run reads the file open on `fd` (or at `path`, links followed); nothing outside a batch.
void note_input_file(int fd);
void note_input_file(const std::string& path);

/// Whether the file of this device and inode was noted while the open batches were open.
bool is_noted_input(std::uint64_t device, std::uint64_t inode);

/// A batch opens (noting starts with the first) and closes (the noted files are forgotten with the last).
void begin_noting_inputs();
void end_noting_inputs();

}  // namespace rope
