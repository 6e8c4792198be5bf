// StagedOutputs::commit() changes every output or none (issue 37, item 1), and a SIGKILL before the
// commit leaves no temporary file (item 7). The cases that need a second user, an immutable flag or a
// bind mount run as root; where the system refuses the setup, the test says it could not run. The second user
// works in a directory it can reach: under TMPDIR, else under /tmp, else the test says why it could not run.
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "rope/core/error.hpp"
#include "rope/io/atomic_file.hpp"
#include "support/temp_dir_test.hpp"

namespace rope {
namespace {

namespace fs = std::filesystem;

class AtomicCommit : public test::TempDirTest {
 protected:
  AtomicCommit() : TempDirTest("rope-commit") {}
  void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

  /// Stages a new c.txt, then a.txt and b.txt (both "old"), commits in a child process (as `uid` when
  /// it is not -1) and returns the child's message: "" when commit() succeeded.
  std::string commit_in_child(int uid) {
    int pipe_fds[2];
    if (::pipe(pipe_fds) != 0) return "pipe failed";
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::close(pipe_fds[0]);
      if (uid >= 0 && (::setgid(static_cast<gid_t>(uid)) != 0 || ::setuid(static_cast<uid_t>(uid)) != 0)) _exit(9);
      std::string what;
      try {
        StagedOutputs staged;
        staged.stage((dir_ / "c.txt").string()).write("new c");
        staged.stage((dir_ / "a.txt").string()).write("new a");
        staged.stage((dir_ / "b.txt").string()).write("new b");
        staged.commit();
      } catch (const IoError& e) {
        what = e.what();
      }
      if (!what.empty() && ::write(pipe_fds[1], what.data(), what.size()) < 0) _exit(8);
      _exit(0);
    }
    ::close(pipe_fds[1]);
    std::string what;
    char buffer[512];
    for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;)
      what.append(buffer, static_cast<std::size_t>(n));
    ::close(pipe_fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
    return what;
  }
  /// Whether `uid` can create files in `dir`: asked in a child as that user (every ancestor must let it through).
  static bool reachable_by(int uid, const fs::path& dir) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      if (::setgid(static_cast<gid_t>(uid)) != 0 || ::setuid(static_cast<uid_t>(uid)) != 0) _exit(2);
      _exit(::access(dir.c_str(), W_OK | X_OK) == 0 ? 0 : 1);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  /// Makes the test's directory a sticky one (01777) that `uid` can reach: the one under TMPDIR, or, when an
  /// ancestor of it is closed to that user (root's TMPDIR under /root, 0700; a 0700 chroot), a fresh one under
  /// /tmp (issue 52, item 9: rope then rightly failed earlier, "cannot write …/c.txt", and the test failed for
  /// that). Returns why neither works ("" when one does).
  std::string sticky_directory_for(int uid) {
    if (::chmod(dir_.c_str(), 01777) == 0 && reachable_by(uid, dir_)) return "";
    char name[] = "/tmp/rope-commit-XXXXXX";
    if (::mkdtemp(name) == nullptr) {
      return "user " + std::to_string(uid) + " cannot reach " + dir_.string() +
             " (an ancestor is closed to it) and /tmp has no room for a directory: " + std::strerror(errno);
    }
    const fs::path closed = dir_;
    fs::remove_all(dir_);
    dir_ = name;  // TearDown removes it
    if (::chmod(dir_.c_str(), 01777) == 0 && reachable_by(uid, dir_)) return "";
    return "user " + std::to_string(uid) + " can reach neither " + closed.string() + " nor " + dir_.string() +
           " (an ancestor is closed to it)";
  }
  void expect_nothing_changed(const std::string& what) {
    EXPECT_NE(what.find("cannot write '" + (dir_ / "b.txt").string() + "'"), std::string::npos) << what;
    EXPECT_EQ(read(dir_ / "a.txt"), "old a") << "the first output must be as it was";
    EXPECT_EQ(read(dir_ / "b.txt"), "old b");
    EXPECT_FALSE(fs::exists(dir_ / "c.txt")) << "a new output must not appear";
    EXPECT_EQ(entries(), 2u) << "no temporary file left";
  }
};

TEST_F(AtomicCommit, AStickyDirectoryWhoseSecondTargetBelongsToAnotherUserChangesNothing) {
  if (::geteuid() != 0) GTEST_SKIP() << "could not run: needs root to act as a second user";
  constexpr int kNobody = 65534;
  if (const std::string why = sticky_directory_for(kNobody); !why.empty()) GTEST_SKIP() << "could not run: " << why;
  write(dir_ / "a.txt", "old a");
  write(dir_ / "b.txt", "old b");
  ASSERT_EQ(::chown((dir_ / "a.txt").c_str(), kNobody, kNobody), 0);
  ASSERT_EQ(::chmod((dir_ / "b.txt").c_str(), 0666), 0);  // writable by all, yet not replaceable by nobody
  const std::string what = commit_in_child(kNobody);
  EXPECT_NE(what.find("Operation not permitted"), std::string::npos) << what;
  expect_nothing_changed(what);
}

TEST_F(AtomicCommit, AnImmutableSecondTargetChangesNothing) {
  write(dir_ / "a.txt", "old a");
  write(dir_ / "b.txt", "old b");
  const int fd = ::open((dir_ / "b.txt").c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  int flags = 0;
  if (::ioctl(fd, FS_IOC_GETFLAGS, &flags) != 0 ||
      (flags |= FS_IMMUTABLE_FL, ::ioctl(fd, FS_IOC_SETFLAGS, &flags)) != 0) {
    const int err = errno;
    ::close(fd);
    GTEST_SKIP() << "could not run: chattr +i refused here: " << std::strerror(err);
  }
  const std::string what = commit_in_child(-1);
  flags &= ~FS_IMMUTABLE_FL;
  EXPECT_EQ(::ioctl(fd, FS_IOC_SETFLAGS, &flags), 0);
  ::close(fd);
  expect_nothing_changed(what);
}

TEST_F(AtomicCommit, ABindMountedSecondTargetChangesNothing) {
  write(dir_ / "a.txt", "old a");
  write(dir_ / "b.txt", "old b");
  write(dir_ / "source", "old b");
  if (::mount((dir_ / "source").c_str(), (dir_ / "b.txt").c_str(), nullptr, MS_BIND, nullptr) != 0) {
    GTEST_SKIP() << "could not run: a bind mount is refused here: " << std::strerror(errno);
  }
  const std::string what = commit_in_child(-1);
  EXPECT_EQ(::umount((dir_ / "b.txt").c_str()), 0);
  fs::remove(dir_ / "source");
  expect_nothing_changed(what);
}

TEST_F(AtomicCommit, ASigkillBeforeTheCommitLeavesNoTemporaryFile) {
  write(dir_ / "a.png", "old");
  const pid_t pid = ::fork();
  if (pid == 0) {
    StagedOutputs staged;
    staged.stage((dir_ / "a.png").string()).write(std::string(1 << 20, 'x'));
    staged.stage((dir_ / "b.csv").string()).write("partial");
    ::kill(::getpid(), SIGKILL);
    _exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  EXPECT_EQ(read(dir_ / "a.png"), "old");
  EXPECT_EQ(entries(), 1u) << "a temporary file was left beside the target";
}

TEST_F(AtomicCommit, WithNamedTemporariesAStickyDirectoryChangesNothingToo) {
  if (::geteuid() != 0) GTEST_SKIP() << "could not run: needs root to act as a second user";
  if (const std::string why = sticky_directory_for(65534); !why.empty()) GTEST_SKIP() << "could not run: " << why;
  set_anonymous_temporaries(false);  // the path of a file system without O_TMPFILE
  write(dir_ / "a.txt", "old a");
  write(dir_ / "b.txt", "old b");
  ASSERT_EQ(::chown((dir_ / "a.txt").c_str(), 65534, 65534), 0);
  const std::string what = commit_in_child(65534);
  set_anonymous_temporaries(true);
  expect_nothing_changed(what);
}

}  // namespace
}  // namespace rope
