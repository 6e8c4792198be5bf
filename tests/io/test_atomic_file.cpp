#include "rope/io/atomic_file.hpp"

#include <filesystem>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <sys/resource.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

#include "rope/core/error.hpp"
#include "rope/io/interrupt.hpp"
#include "support/death_test.hpp"
#include "support/temp_dir_test.hpp"

namespace rope {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

class AtomicFile : public test::TempDirTest {
 protected:
  AtomicFile() : TempDirTest("rope-atomic") {}
};

TEST_F(AtomicFile, WritesAndReplaces) {
  const fs::path p = dir_ / "a.csv";
  write_file_atomically(p.string(), "first\n");
  EXPECT_EQ(read(p), "first\n");
  write_file_atomically(p.string(), "second\n");
  EXPECT_EQ(read(p), "second\n");
  EXPECT_EQ(entries(), 1u);  // no temporary file left
}

TEST_F(AtomicFile, NewFileGetsOrdinaryPermissions) {
  const fs::path p = dir_ / "p.csv";
  const mode_t old = ::umask(022);
  write_file_atomically(p.string(), "x");
  ::umask(old);
  struct stat st {};
  ASSERT_EQ(::stat(p.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
}

TEST_F(AtomicFile, MissingDirectoryIsAnIoErrorAndLeavesNothing) {
  const fs::path p = dir_ / "missing" / "a.csv";
  EXPECT_THAT([&] { write_file_atomically(p.string(), "x"); },
              ThrowsMessage<IoError>(HasSubstr("No such file or directory")));
  EXPECT_EQ(entries(), 0u);
}

TEST_F(AtomicFile, PathThatIsADirectoryIsAnIoError) {
  EXPECT_THAT([&] { write_file_atomically(dir_.string(), "x"); }, ThrowsMessage<IoError>(HasSubstr("Is a directory")));
  EXPECT_EQ(entries(), 0u);
}

TEST_F(AtomicFile, ParentThatIsAFileIsAnIoError) {
  write_file_atomically((dir_ / "plain").string(), "x");
  EXPECT_THAT([&] { write_file_atomically((dir_ / "plain" / "a.csv").string(), "y"); },
              ThrowsMessage<IoError>(HasSubstr("Not a directory")));
  EXPECT_EQ(entries(), 1u);
  EXPECT_EQ(read(dir_ / "plain"), "x");
}

TEST_F(AtomicFile, EmptyPathIsAnIoError) { EXPECT_THROW(write_file_atomically("", "x"), IoError); }

/// In a child process: writes with a 4 kB file-size limit, exits 3 after printing the IoError.
void write_on_a_full_disk(const std::string& path, const std::string& content) {
  std::signal(SIGXFSZ, SIG_IGN);
  rlimit limit{};
  limit.rlim_cur = limit.rlim_max = 4096;
  ::setrlimit(RLIMIT_FSIZE, &limit);
  try {
    write_file_atomically(path, content);
  } catch (const IoError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    test::end_child(3);
  }
  test::end_child(0);
}

// A full disk, simulated in a child process by a file-size limit (writes past it fail with EFBIG, as
// with ENOSPC, once SIGXFSZ is ignored): an IoError naming the path, the old file intact, no temporary.
TEST_F(AtomicFile, FullDiskIsAnIoErrorAndKeepsTheOldFile) {
  GTEST_FLAG_SET(death_test_style, "fast");  // fork only: the child writes in this test's directory
  const fs::path target = dir_ / "out.csv";
  std::ofstream(target) << "old";
  const std::string content(100000, 'x');
  EXPECT_EXIT(write_on_a_full_disk(target.string(), content), ::testing::ExitedWithCode(3),
              "cannot write '.*out.csv': File too large");
  EXPECT_EQ(read(target), "old");
  EXPECT_EQ(entries(), 1u);
}

// ---------------------------------------------------------------------------------------------
// StagedOutputs: several outputs committed together

TEST_F(AtomicFile, StagedOutputsCommitSeveralFilesTogether) {
  std::ofstream(dir_ / "b.txt") << "old";
  {
    StagedOutputs staged;
    staged.stage((dir_ / "a.txt").string()).write("A");
    staged.stage((dir_ / "b.txt").string()).write("B");
    EXPECT_EQ(staged.size(), 2u);
    EXPECT_EQ(read(dir_ / "b.txt"), "old") << "nothing is in place before commit()";
    EXPECT_EQ(entries(), 1u) << "the temporary files are anonymous until commit()";
    staged.commit();
  }
  EXPECT_EQ(read(dir_ / "a.txt"), "A");
  EXPECT_EQ(read(dir_ / "b.txt"), "B");
  EXPECT_EQ(entries(), 2u);
}

// Issue 77 (4): a file the run read (noted by a reader of rope/io/) is never replaced by an output of its batch,
// whoever named it; outside a batch nothing is kept.
TEST_F(AtomicFile, AFileTheRunReadIsNeverReplaced) {
  std::ofstream(path("in.json")) << "input";
  std::ofstream(path("late.json")) << "read after it was staged";
  const std::string refused = "' is a file this run reads and is named as an output: an output never replaces an input";
  {
    OutputBatch batch;
    note_input_file(path("in.json"));
    write_file_atomically(path("other.txt"), "fine");
    try {  // read before it is staged: refused where it is staged, before any work on it
      write_file_atomically(path("in.json"), "output");
      ADD_FAILURE() << "staged over an input";
    } catch (const InvalidArgument& e) {
      EXPECT_EQ(std::string(e.what()), "'" + path("in.json") + refused);
    }
    write_file_atomically(path("late.json"), "output");
    note_input_file(path("late.json"));  // read after it was staged: refused at commit, nothing put in place
    try {
      batch.commit();
      ADD_FAILURE() << "committed over an input";
    } catch (const InvalidArgument& e) {
      EXPECT_EQ(std::string(e.what()), "'" + path("late.json") + refused);
    }
  }
  EXPECT_EQ(read(path("in.json")), "input");
  EXPECT_EQ(read(path("late.json")), "read after it was staged");
  EXPECT_FALSE(std::filesystem::exists(path("other.txt"))) << "all outputs or none";
  note_input_file(path("in.json"));  // no batch open: not kept
  {
    OutputBatch batch;
    write_file_atomically(path("in.json"), "output");
    batch.commit();
  }
  EXPECT_EQ(read(path("in.json")), "output");
}

TEST_F(AtomicFile, StagedFileHasAShortNameChosenByRopeBesideItsTarget) {
  set_anonymous_temporaries(false);
  StagedOutputs staged;
  staged.stage((dir_ / "f.csv").string());
  set_anonymous_temporaries(true);
  const std::string long_name(255, 'n');  // the longest name a directory entry can have
  staged.stage((dir_ / long_name).string()).write("long");
  EXPECT_THAT(staged.temp_name(0), ::testing::MatchesRegex("\\.rope-[a-z0-9]{8}"));
  EXPECT_TRUE(fs::exists(dir_ / staged.temp_name(0)));
  EXPECT_EQ(staged.temp_name(1), "") << "anonymous (O_TMPFILE) until commit()";
  EXPECT_EQ(staged.target(1), (dir_ / long_name).string());
  staged.commit();
  EXPECT_EQ(read(dir_ / long_name), "long");
}

TEST_F(AtomicFile, ReplacingAFileKeepsItsMode) {
  const fs::path p = dir_ / "secret.csv";
  std::ofstream(p) << "old";
  ASSERT_EQ(::chmod(p.c_str(), 0600), 0);
  write_file_atomically(p.string(), "new");
  struct stat st {};
  ASSERT_EQ(::stat(p.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(read(p), "new");
}

TEST_F(AtomicFile, TheSameTargetTwiceIsRefused) {
  StagedOutputs staged;
  staged.stage((dir_ / "x").string());
  EXPECT_THAT([&] { staged.stage((dir_ / "x").string()); }, ThrowsMessage<InvalidArgument>(HasSubstr("two outputs")));
}

TEST_F(AtomicFile, AProgramWritesThroughItsDevFdPath) {
  std::ofstream(dir_ / "fig.png") << "old";
  StagedOutputs staged;
  const std::size_t i = staged.stage_for_program((dir_ / "fig.png").string());
  EXPECT_THAT(staged.program_path(i), ::testing::MatchesRegex("/dev/fd/[0-9]+"));
  EXPECT_EQ(staged.program_fds().size(), 1u);
  std::ofstream(staged.program_path(i)) << "drawn";
  EXPECT_EQ(staged.content_size(i), 5u);
  EXPECT_EQ(staged.content_tail(i, 3), "awn");
  EXPECT_EQ(read(dir_ / "fig.png"), "old");
  staged.commit();
  EXPECT_EQ(read(dir_ / "fig.png"), "drawn");
  EXPECT_EQ(entries(), 1u);
}

TEST_F(AtomicFile, NonRegularTargetsAreWrittenInPlaceNeverReplaced) {
  const fs::path fifo = dir_ / "f.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = read(fifo); });
  {
    StagedOutputs staged;
    staged.stage(fifo.string()).write("through the fifo");
    staged.stage("/dev/null").write("discarded");
    EXPECT_EQ(staged.temp_name(0), "") << "no temporary file for a FIFO";
    staged.commit();
  }
  reader.join();
  EXPECT_EQ(got, "through the fifo");
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "/dev/null itself must never be replaced";
}

TEST_F(AtomicFile, DevFullReportsNoSpaceAndNothingElseChanges) {
  std::ofstream(dir_ / "a.csv") << "old";
  EXPECT_THAT(
      [&] {
        StagedOutputs staged;
        staged.stage((dir_ / "a.csv").string()).write("new");
        staged.stage("/dev/full").write("x");
        staged.commit();
      },
      ThrowsMessage<IoError>(HasSubstr("cannot write '/dev/full': No space left on device")));
  EXPECT_EQ(read(dir_ / "a.csv"), "old");
  EXPECT_EQ(entries(), 1u);
}

TEST_F(AtomicFile, ASymbolicLinkToAFileKeepsPointingAtTheNewContent) {
  fs::create_directory(dir_ / "real");
  std::ofstream(dir_ / "real" / "data.csv") << "old";
  fs::create_symlink(dir_ / "real" / "data.csv", dir_ / "link.csv");
  write_file_atomically((dir_ / "link.csv").string(), "new");
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.csv")) << "the link itself must not be replaced by a file";
  EXPECT_EQ(read(dir_ / "real" / "data.csv"), "new");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_ / "real"), {}), 1) << "no temporary file left";
}

TEST_F(AtomicFile, InsideABatchNothingIsWrittenUntilItCommits) {
  {
    OutputBatch batch;
    write_file_atomically((dir_ / "a.csv").string(), "A");
    EXPECT_FALSE(fs::exists(dir_ / "a.csv"));
  }
  EXPECT_EQ(entries(), 0u) << "a batch that is not committed leaves nothing";
  OutputBatch batch;
  write_file_atomically((dir_ / "a.csv").string(), "A");
  batch.commit();
  EXPECT_EQ(read(dir_ / "a.csv"), "A");
}

TEST_F(AtomicFile, WriteStagedStagesBeforeItsWorkAndCommitsAloneOrWithTheBatch) {
  bool filled = false;
  EXPECT_THROW(write_staged((dir_ / "missing" / "a.html").string(), [&](OutputFile&) { filled = true; }), IoError);
  EXPECT_FALSE(filled) << "a missing directory fails before the work that fills the file";
  EXPECT_EQ(entries(), 0u);
  write_staged((dir_ / "alone.txt").string(), [](OutputFile& f) { f.write("alone"); });
  EXPECT_EQ(read(dir_ / "alone.txt"), "alone") << "outside a batch: committed when fill returns";
  {
    OutputBatch batch;
    write_staged((dir_ / "batch.txt").string(), [](OutputFile& f) { f.write("b"); });
    EXPECT_FALSE(fs::exists(dir_ / "batch.txt")) << "inside a batch: written when the batch commits";
    batch.commit();
  }
  EXPECT_EQ(read(dir_ / "batch.txt"), "b");
  EXPECT_THROW(write_staged((dir_ / "thrown.txt").string(),
                            [](OutputFile& f) {
                              f.write("half");
                              throw IoError("stop");
                            }),
               IoError);
  EXPECT_FALSE(fs::exists(dir_ / "thrown.txt")) << "a fill that throws leaves nothing";
}

TEST_F(AtomicFile, StagedOutputsWithoutCommitLeaveNothing) {
  std::ofstream(dir_ / "keep.txt") << "old";
  {
    StagedOutputs staged;
    staged.stage((dir_ / "new.txt").string()).write("new");
    staged.stage((dir_ / "keep.txt").string());
  }
  EXPECT_EQ(read(dir_ / "keep.txt"), "old");
  EXPECT_EQ(entries(), 1u);
}

TEST_F(AtomicFile, AStageThatFailsLeavesNothingBehind) {
  std::ofstream(dir_ / "a.txt") << "old";
  EXPECT_THAT(
      [&] {
        StagedOutputs staged;
        staged.stage((dir_ / "a.txt").string()).write("A");
        staged.stage((dir_ / "missing" / "b.txt").string()).write("B");
        staged.commit();
      },
      ThrowsMessage<IoError>(HasSubstr("b.txt': No such file or directory")));
  EXPECT_EQ(read(dir_ / "a.txt"), "old");
  EXPECT_EQ(entries(), 1u);
}

TEST_F(AtomicFile, CommitChecksEveryTargetBeforeRenamingAny) {
  std::ofstream(dir_ / "a.txt") << "old";
  EXPECT_THAT(
      [&] {
        StagedOutputs staged;
        staged.stage((dir_ / "a.txt").string()).write("A");
        staged.stage((dir_ / "b.txt").string()).write("B");
        fs::create_directory(dir_ / "b.txt");  // the second target became a directory meanwhile
        staged.commit();
      },
      ThrowsMessage<IoError>(HasSubstr("b.txt': Is a directory")));
  EXPECT_EQ(read(dir_ / "a.txt"), "old") << "the first target must not be replaced";
  EXPECT_TRUE(fs::is_directory(dir_ / "b.txt"));
  EXPECT_EQ(entries(), 2u);
}

TEST_F(AtomicFile, CommitFailsIfAStagedFileVanished) {
  EXPECT_THAT(
      [&] {
        set_anonymous_temporaries(false);
        StagedOutputs staged;
        staged.stage((dir_ / "a.txt").string()).write("A");
        set_anonymous_temporaries(true);
        fs::remove(dir_ / staged.temp_name(0));
        staged.commit();
      },
      ThrowsMessage<IoError>(HasSubstr("a.txt': No such file or directory")));
  EXPECT_EQ(entries(), 0u);
}

TEST_F(AtomicFile, StagingADirectoryOrNothingIsAnIoError) {
  StagedOutputs staged;
  EXPECT_THAT([&] { staged.stage(dir_.string()); }, ThrowsMessage<IoError>(HasSubstr("Is a directory")));
  EXPECT_THAT([&] { staged.stage(""); }, ThrowsMessage<IoError>(HasSubstr("the output path is empty")));
  EXPECT_EQ(staged.size(), 0u);
  EXPECT_EQ(entries(), 0u);
}

TEST_F(AtomicFile, StagedFilesAreRemovedOnSigint) {
  GTEST_FLAG_SET(death_test_style, "fast");  // fork only: the child stages in this test's directory
  std::ofstream(dir_ / "a.png") << "old";
  EXPECT_EXIT(
      {
        install_interrupt_cleanup();
        StagedOutputs staged;
        staged.stage((dir_ / "a.png").string()).write("partial");
        staged.stage_for_program((dir_ / "b.png").string());
        std::raise(SIGINT);
      },
      ::testing::KilledBySignal(SIGINT), "");
  EXPECT_EQ(read(dir_ / "a.png"), "old");
  EXPECT_EQ(entries(), 1u);
}

}  // namespace
}  // namespace rope
