/// @file
/// Writing output files so that they are never seen half-written, and so that the outputs of one run
/// change together or not at all.
///
/// Each output is staged: a regular (or new) target gets a temporary file in its own directory, anonymous
/// (O_TMPFILE) where the file system has them, so that nothing of it exists under any name until commit()
/// and even a SIGKILL before then leaves nothing behind; commit() fsyncs it, gives it the old target's mode
/// (and, as root, its owner), links it under a short ASCII name chosen by rope, ".rope-XXXXXX" (so a
/// target name of up to 255 bytes works and no byte of the user's path reaches another program), and
/// swaps it with the target (RENAME_EXCHANGE), so that when a later output cannot be put in place (a
/// sticky directory whose file belongs to another user, an immutable file, a file that is a mount point)
/// every output already swapped is swapped back: the run changes no file. Where the file system has no
/// O_TMPFILE the temporary file has its name from the start; where it has no RENAME_EXCHANGE, a plain
/// rename is used and cannot be undone. Replacing a file this way makes a new
/// file: other hard links to the old one keep the old content, and a user who is not root becomes the
/// owner. An existing target that is not a regular file (a FIFO, /dev/stdout, /dev/null, /dev/full, a
/// link to /dev/fd/1) is never renamed over: its content is kept in memory and written to it directly
/// at commit (a FIFO waits kFifoWaitSeconds for a reader). Content that another program writes (gnuplot)
/// goes to an anonymous memory file it reaches as "/dev/fd/N" (program_path()); commit() copies it into a
/// temporary file made then (stage_for_program() only probes that one can be made), so while gnuplot
/// runs no file of it exists, and even a SIGKILL then leaves nothing behind.
/// Every temporary file is registered with rope/io/interrupt.hpp while it exists, so a signal removes it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rope/io/input_files.hpp"

namespace rope {

/// How long commit() waits for a reader to open a FIFO that is an output.
inline constexpr double kFifoWaitSeconds = 10.0;

/// Writes `content` to `path` atomically, with permissions 0666 & ~umask like any new file (or those of
/// the file it replaces). Inside an OutputBatch the file is only staged: it is written when the batch
/// commits.
/// @throws IoError naming the path and the system's reason (a missing or unwritable directory, a path
///         that is a directory, a full disk, ...).
void write_file_atomically(const std::string& path, std::string_view content);

class StagedOutputs;

/// One staged output that rope fills itself (buffered; flushed by commit()).
class OutputFile {
 public:
  /// Appends `content`. @throws IoError "cannot write 'TARGET': <reason>"
  void write(std::string_view content);
  /// Writes the buffered bytes. @throws IoError
  void flush();

 private:
  friend class StagedOutputs;
  OutputFile(const StagedOutputs* owner, std::size_t index) : owner_(owner), index_(index) {}
  const StagedOutputs* owner_;
  std::size_t index_;
  std::string buffer_;
};

/// Several outputs committed together: stage() or stage_for_program() prepares each one (creating its
/// temporary file, so that a missing or unwritable directory fails at once), something fills them,
/// commit() puts them all in place. Whatever is not committed (after an exception, or when commit() is
/// never reached) is removed by the destructor.
class StagedOutputs {
 public:
  StagedOutputs();
  StagedOutputs(const StagedOutputs&) = delete;
  StagedOutputs& operator=(const StagedOutputs&) = delete;
  ~StagedOutputs();

  /// An output that rope writes. @throws IoError "cannot write 'TARGET': ..." if the target is empty
  /// or a directory, or its directory is missing or not writable; InvalidArgument if the same file was
  /// already staged.
  OutputFile& stage(const std::string& target);
  /// An output that another program writes, through program_path(index) (returned). @throws as stage().
  std::size_t stage_for_program(const std::string& target);

  std::size_t size() const;
  const std::string& target(std::size_t i) const;
  /// "/dev/fd/N": where a child process started with program_fds() kept open writes output i.
  std::string program_path(std::size_t i) const;
  /// The descriptors a child needs to keep open for every program_path().
  std::vector<int> program_fds() const;
  /// How many bytes output i holds so far, and its last `n` bytes (for a completeness check).
  std::uint64_t content_size(std::size_t i) const;
  std::string content_tail(std::size_t i, std::size_t n) const;
  /// The name of the temporary file of output i in the target's directory ("" if the target is written
  /// directly): for tests.
  std::string temp_name(std::size_t i) const;

  /// First, with no target changed yet: checks that every temporary file is still there and no target
  /// has become a directory, copies what programs wrote, fsyncs every file, gives each the mode of the
  /// file it replaces, and opens every non-regular target; any failure here leaves every target as it
  /// was. Then writes the non-regular targets (/dev/full fails here: nothing is renamed yet) and
  /// swaps the files with their targets, in the order staged; when one fails, the ones before it are
  /// swapped back and the old files stay.
  /// @throws IoError "cannot write 'TARGET': <reason>"
  /// @throws InvalidArgument when a target is a file the run read (note_input_file, input_files.hpp), nothing changed;
  /// IoError.
  void commit();

  struct Staged;  ///< (private)

 private:
  friend class OutputFile;
  [[noreturn]] void fail(std::size_t i, int err) const;
  std::size_t add(const std::string& target, bool for_program);
  std::vector<std::unique_ptr<Staged>> staged_;
  std::vector<std::unique_ptr<OutputFile>> files_;
};

/// Makes every output of a run (write_file_atomically, the figures of rope/plot/render.hpp) stage into
/// one StagedOutputs, committed at the end by commit(): one failure anywhere and no output changes.
/// One batch per thread at a time; the rope CLI opens one per command.
class OutputBatch {
 public:
  OutputBatch();
  OutputBatch(const OutputBatch&) = delete;
  OutputBatch& operator=(const OutputBatch&) = delete;
  ~OutputBatch();
  StagedOutputs& outputs() { return outputs_; }
  void commit() { outputs_.commit(); }

 private:
  StagedOutputs outputs_;
  StagedOutputs* previous_;
};

/// Whether temporary files start anonymous (O_TMPFILE, named only at commit) where the file system
/// has them (the default), or with a name from the start (for tests of that path).
void set_anonymous_temporaries(bool on);

/// The batch open on this thread, or nullptr.
StagedOutputs* current_output_batch();

/// Writes `path` through `fill`: staged in the batch open on this thread (written when the batch commits),
/// else in a StagedOutputs of its own, committed when `fill` returns. The file is staged before `fill` runs,
/// so a missing or unwritable directory fails before any work. @throws IoError as write_file_atomically.
void write_staged(const std::string& path, const std::function<void(OutputFile&)>& fill);

}  // namespace rope
