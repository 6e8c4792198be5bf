/// @file
/// Writing output files so that they are never seen half-written: each output goes to a temporary
/// file in the target's own directory, ".NAME.tmp-XXXXXX", which is then renamed over the target
/// (rename is atomic within a file system). On any failure the temporary files are removed and the
/// targets are left as they were. Every temporary file is registered with rope/io/interrupt.hpp while
/// it exists, so Ctrl-C removes it too.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace rope {

/// Writes `content` to `path` atomically, with permissions 0666 & ~umask like any new file.
/// @throws IoError naming the path and the system's reason (a missing or unwritable directory, a path
///         that is a directory, a full disk, ...).
void write_file_atomically(const std::string& path, std::string_view content);

/// A new temporary file that is removed when this object goes out of scope, unless released.
class TempFile {
 public:
  /// Creates an empty file from the mkstemps template `pattern` (six X before the last `suffix`
  /// characters), mode 0666 & ~umask, registered for removal on Ctrl-C before anything can throw.
  /// Errors say "cannot write <what>: <reason>": `what` names the file for the user (the quoted
  /// target, or for example "the gnuplot script in '/tmp'"), never the temporary name, which differs
  /// from run to run.
  /// @throws IoError
  TempFile(std::string pattern, int suffix, std::string what);
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile();

  const std::string& path() const { return path_; }
  /// Writes `content` and closes the file. @throws IoError (the file is then removed by the destructor).
  void write(std::string_view content);
  /// Closes the file without writing (another program fills it). @throws IoError
  void close();
  /// The file is no longer removed: it was renamed into place.
  void release() noexcept;

 private:
  [[noreturn]] void fail(int err) const;
  std::string path_;
  std::string what_;
  int fd_ = -1;
  int slot_ = -1;
  bool released_ = false;
};

/// Several outputs committed together: stage() creates each one's temporary file beside its target,
/// something fills them, commit() renames them all into place. Whatever is not committed (after an
/// exception, or when commit() is never reached) is removed by the destructor.
class StagedOutputs {
 public:
  StagedOutputs() = default;
  StagedOutputs(const StagedOutputs&) = delete;
  StagedOutputs& operator=(const StagedOutputs&) = delete;

  /// A new empty temporary file beside `target`, ".NAME.tmp-XXXXXX" (with keep_extension,
  /// ".NAME.tmp-XXXXXX.EXT", for programs that go by the extension), still open for write().
  /// @throws IoError "cannot write 'TARGET': ..." if the target is empty or a directory, or its
  ///         directory is missing or not writable.
  TempFile& stage(const std::string& target, bool keep_extension = false);

  std::size_t size() const { return staged_.size(); }
  const std::string& target(std::size_t i) const { return staged_.at(i).target; }
  const std::string& temp_path(std::size_t i) const { return staged_.at(i).temp->path(); }

  /// Checks first that every temporary file is still there and no target has become a directory, so
  /// that these failures leave every target as it was; then renames each file over its target, in the
  /// order staged. A rename that still fails (the file system changed in between) throws, leaving the
  /// targets before it written and the ones after it as they were.
  /// @throws IoError "cannot write 'TARGET': <reason>"
  void commit();

 private:
  struct Staged {
    std::string target;
    std::unique_ptr<TempFile> temp;
  };
  std::vector<Staged> staged_;
};

}  // namespace rope
