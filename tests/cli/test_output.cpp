// apps/rope/cli/output.hpp and the run-level guarantees of cli.cpp (issue 19): standard output that
// cannot be written is exit 3; a run's outputs are all written or none; two outputs may not share a
// path; every control character in a message is escaped.
#include "rope/cli/output.hpp"

#include <algorithm>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sstream>
#include <thread>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rope/cli/cli.hpp"
#include "rope/core/sanitizer.hpp"
#include "support/cli_harness.hpp"
#include "support/scoped_env.hpp"
#include "support/shared.hpp"

namespace rope {
namespace {

using test::expect_one_line_error;
using test::Result;
using test::rope_cli;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

class Output : public test::TempDirTest {
 protected:
  std::string read(const std::string& name) const {
    std::ifstream in(path(name), std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
  }
  std::vector<std::string> names() const {
    std::vector<std::string> n;
    for (const auto& e : fs::directory_iterator(dir_)) n.push_back(e.path().filename().string());
    std::sort(n.begin(), n.end());
    return n;
  }
  /// rope's real standard output (FdOutputBuffer) on `fd`.
  static Result run_on_fd(int fd, std::vector<std::string> args) {
    args.insert(args.begin(), "rope");
    cli::FdOutputBuffer buffer(fd);
    std::ostream out(&buffer);
    std::ostringstream err;
    const int code = cli::run(args, out, err);
    return {code, "", err.str()};
  }
};

TEST_F(Output, EscapesEveryControlCharacter) {
  EXPECT_EQ(cli::escape_controls("plain ASCII, θ, 长度"), "plain ASCII, θ, 长度");
  EXPECT_EQ(cli::escape_controls("a\nb\tc\rd"), "a\\nb\\tc\\rd");
  EXPECT_EQ(cli::escape_controls("\x1b]0;title\x07\x1b[2J"), "\\e]0;title\\x07\\e[2J");
  EXPECT_EQ(cli::escape_controls(std::string("\0\x7f", 2)), "\\x00\\x7f");
  EXPECT_EQ(cli::escape_controls("\xc2\x85\xc2\x9b"
                                 "1m"),
            "\\u0085\\u009b1m");                              // C1 controls: NEL, CSI
  EXPECT_EQ(cli::escape_controls("\xff\xfe"), "\\xff\\xfe");  // not UTF-8
  // Issue 52 (8): bidirectional controls reorder what a terminal shows (a right-to-left override in a model_type).
  EXPECT_EQ(cli::escape_controls("llama\u202eamall\u202c"), "llama\\u202eamall\\u202c");
  EXPECT_EQ(cli::escape_controls("\u061c\u200e\u200f\u202a\u2066\u2069"), "\\u061c\\u200e\\u200f\\u202a\\u2066\\u2069");
  EXPECT_EQ(cli::escape_controls("\u2065\u206a"), "\u2065\u206a");  // their neighbours are kept
}

TEST_F(Output, ControlCharactersInArgumentsNeverReachTheTerminal) {
  for (const Result& r :
       {rope_cli({"decay", "--bogus\x1b]0;x\x07"}), rope_cli({"inspect", "--model", "\x1b[2Jm"}),
        rope_cli({"inspect", "no\x1b[2J\xc2\x9b.json"}), rope_cli({"decay", "--csv", "no/such\x1b[1mdir/x.csv"})}) {
    EXPECT_GE(r.code, 2);
    EXPECT_THAT(r.err, ::testing::StartsWith("rope: "));
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    for (const char c : r.err.substr(0, r.err.size() - 1)) {
      EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20 || c == 0x7f) << r.err;
    }
    EXPECT_EQ(r.err.find("\xc2\x9b"), std::string::npos) << r.err;
  }
}

TEST_F(Output, StandardOutputThatCannotBeWrittenIsExitThree) {
  const int full = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
  ASSERT_GE(full, 0);
  expect_one_line_error(run_on_fd(full, {"frequencies"}), 3, "cannot write standard output: No space left on device");
  expect_one_line_error(run_on_fd(full, {"frequencies", "--csv", "-"}), 3, "cannot write standard output: No space");
  ::close(full);
  const int read_only = ::open("/dev/null", O_RDONLY | O_CLOEXEC);  // what main() puts on a closed stdout
  expect_one_line_error(run_on_fd(read_only, {"frequencies"}), 3, "cannot write standard output: Bad file descriptor");
  ::close(read_only);
}

TEST_F(Output, StandardOutputFailingLeavesTheOutputFilesAlone) {
  std::ofstream(path("f.csv")) << "old";
  const int full = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
  expect_one_line_error(run_on_fd(full, {"frequencies", "--csv", path("f.csv")}), 3, "standard output");
  ::close(full);
  EXPECT_EQ(read("f.csv"), "old");
}

TEST_F(Output, AFailingFigureLeavesTheCsvAndTheScriptAsTheyWere) {
  std::ofstream(path("out.csv")) << "old";
  expect_one_line_error(rope_cli({"decay", "--csv", path("out.csv"), "--png", path("nodir/out.png")}), 3,
                        "nodir/out.png': No such file or directory");
  EXPECT_EQ(read("out.csv"), "old");
  const test::ScopedEnv gnuplot("ROPE_GNUPLOT", "/nonexistent/gnuplot");
  expect_one_line_error(
      rope_cli({"decay", "--csv", path("out.csv"), "--png", path("a.png"), "--keep-script", path("a.gp")}), 3,
      "gnuplot not found");
  EXPECT_EQ(read("out.csv"), "old");
  EXPECT_EQ(names(), std::vector<std::string>{"out.csv"}) << "no script, no figure, no temporary file";
}

TEST_F(Output, AttentionCompareWritesAllOrNothing) {
  const test::ScopedEnv gnuplot("ROPE_GNUPLOT", "/nonexistent/gnuplot");
  expect_one_line_error(rope_cli({"attention", "--compare", "--csv", path("a.csv"), "--png", path("a.png")}), 3,
                        "gnuplot not found");
  EXPECT_TRUE(names().empty()) << "left " << names().front();
}

TEST_F(Output, TwoOutputsOnOnePathAreExitTwoNamingBothOptions) {
  expect_one_line_error(rope_cli({"decay", "--csv", path("x"), "--png", path("x")}), 2,
                        "--csv and --png name the same file");
  expect_one_line_error(rope_cli({"decay", "--png", path("y"), "--svg", (dir_ / "." / "y").string()}), 2,
                        "--png and --svg name the same file");
  expect_one_line_error(rope_cli({"decay", "--png", path("z"), "--keep-script", path("z")}), 2,
                        "--png and --keep-script name the same file");
  EXPECT_TRUE(names().empty());
}

TEST_F(Output, AnInputNamedAsAnOutputIsExitTwoNamingBothOptions) {
  const std::string config =
      R"({"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "rope_theta": 10000})";
  std::ofstream(path("m.json")) << config;
  expect_one_line_error(rope_cli({"frequencies", "--config", path("m.json"), "--csv", path("m.json")}), 2,
                        "--config and --csv name the same file");
  fs::create_symlink(path("m.json"), path("link.csv"));  // links followed
  expect_one_line_error(rope_cli({"frequencies", "--config", path("m.json"), "--csv", path("link.csv")}), 2,
                        "--config and --csv name the same file");
  std::ofstream(path("x.npy")) << "not read";
  expect_one_line_error(
      rope_cli({"identify", "--before", path("x.npy"), "--after", path("y.npy"), "--svg", path("x.npy")}), 2,
      "--before and --svg name the same file");
  std::ofstream(path("f.txt")) << "1,1,1,1";
  expect_one_line_error(rope_cli({"frequencies", "--dim", "8", "--scaling", "longrope", "--short-factor",
                                  "@" + path("f.txt"), "--long-factor", "@" + path("f.txt"), "--csv", path("f.txt")}),
                        2, "--short-factor and --csv name the same file");
  EXPECT_EQ(read("m.json"), config);
  EXPECT_EQ(read("x.npy"), "not read");
  EXPECT_EQ(read("f.txt"), "1,1,1,1");
}

TEST_F(Output, APositionsOrStartsFileNamedByItsPathIsAnInputToo) {
  // Issue 52 (5): only @FILE and options of type FILE were inputs; --positions pos.npy --svg pos.npy and
  // --sequence-starts FILE with an output of that path exited 0 and replaced the input.
  std::ofstream(path("pos.npy")) << "0\n1\n";
  std::ofstream(path("starts.txt")) << "0\n";
  const std::vector<std::string> dumps = {"identify", "--before", test::kDumps + "q.npy", "--after",
                                          test::kDumps + "q_rope.npy"};
  const auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = dumps;
    args.insert(args.end(), extra.begin(), extra.end());
    return rope_cli(args);
  };
  expect_one_line_error(with({"--positions", path("pos.npy"), "--svg", path("pos.npy")}), 2,
                        "--positions and --svg name the same file");
  fs::create_hard_link(path("pos.npy"), path("other.svg"));  // another spelling of the same file
  expect_one_line_error(with({"--positions", path("pos.npy"), "--svg", path("other.svg")}), 2,
                        "--positions and --svg name the same file");
  expect_one_line_error(with({"--positions", "@" + path("pos.npy"), "--svg", (dir_ / "." / "pos.npy").string()}), 2,
                        "--positions and --svg name the same file");
  expect_one_line_error(with({"--sequence-starts", path("starts.txt"), "--svg", path("starts.txt")}), 2,
                        "--sequence-starts and --svg name the same file");
  EXPECT_EQ(read("pos.npy"), "0\n1\n");
  EXPECT_EQ(read("starts.txt"), "0\n");
}

// Issue 77 (4): every file a command reads is an input, whatever its option's type name: --npy was no output, a
// positional PATH no input, and a checkpoint directory's files were never compared with the outputs.
TEST_F(Output, EveryFileACommandReadsIsAnInput) {
  std::ofstream(path("s.txt")) << "0,8,24";
  expect_one_line_error(rope_cli({"positions", "--sequence-starts", "@" + path("s.txt"), "--cp-size", "2", "--cp-rank",
                                  "0", "--npy", path("s.txt")}),
                        2, "--sequence-starts and --npy name the same file");
  EXPECT_EQ(read("s.txt"), "0,8,24");
  const std::string weights = std::string(ROPE_REFERENCE_DIR) + "/../../data/weights/";
  fs::create_directories(path("hf"));
  fs::copy_file(weights + "mha-hf/model.safetensors", path("hf/model.safetensors"));
  fs::copy_file(weights + "mha-hf/config.json", path("hf/config.json"));
  const std::string checkpoint = read("hf/model.safetensors"), config = read("hf/config.json");
  const std::string candidate = weights + "mha-k-query-heads.gguf";
  expect_one_line_error(
      rope_cli({"weights", path("hf/model.safetensors"), candidate, "--png", path("hf/model.safetensors")}), 2,
      "reference and --png name the same file '" + path("hf/model.safetensors") + "'");
  expect_one_line_error(
      rope_cli({"weights", path("hf"), candidate, "--png", path("hf/model.safetensors")}), 2,
      "reference and --png name the same file '" + path("hf/model.safetensors") + "' (in " + path("hf") + ")");
  expect_one_line_error(
      rope_cli({"weights", candidate, path("hf"), "--svg", path("hf/config.json")}), 2,
      "candidate and --svg name the same file '" + path("hf/config.json") + "' (in " + path("hf") + ")");
  // A file no option names, read beside the one named (a single .safetensors file's config.json): refused when the
  // run commits, by the readers' own note of what they opened.
  expect_one_line_error(rope_cli({"weights", path("hf/model.safetensors"), candidate, "--svg", path("hf/config.json")}),
                        2, "'" + path("hf/config.json") + "' is a file this run reads and is named as an output");
  EXPECT_EQ(read("hf/model.safetensors"), checkpoint);
  EXPECT_EQ(read("hf/config.json"), config);
}

TEST_F(Output, TwoOutputsOnStandardOutputAreExitTwo) {
  expect_one_line_error(rope_cli({"decay", "--csv", "-", "--term", "text"}), 2,
                        "--csv and --term both write to standard output");
  expect_one_line_error(rope_cli({"positions", "--text", "3", "--csv", "-", "--term", "text"}), 2,
                        "--csv and --term both write to standard output");
  expect_one_line_error(rope_cli({"sections", "--csv", "-", "--term", "text"}), 2,
                        "--csv and --term both write to standard output");
  expect_one_line_error(rope_cli({"verify", "--trials", "10", "--csv", "-", "--json"}), 2,
                        "--csv and --json both write to standard output");
  EXPECT_EQ(rope_cli({"verify", "--trials", "10", "--csv", path("v.csv"), "--json"}).code, 0);
}

TEST_F(Output, StandardOutputEscapesEveryControlButNewlineAndTab) {
  std::ostringstream raw;
  {
    cli::TerminalSafeBuffer buffer(raw);
    std::ostream safe(&buffer);
    safe << "a\tb\n"
         << "\x1b]52;c;SGk=\x07" << '\x9b' << "\xe9\x95";  // a UTF-8 sequence split between writes
    safe << "\xbf"
         << "\r\n";
  }
  EXPECT_EQ(raw.str(), "a\tb\n\\e]52;c;SGk=\\x07\\x9b长\\r\n");
}

TEST_F(Output, NoStringFromAFileReachesStandardOutputAsAnEscapeSequence) {
  // OSC 52 (the clipboard), a window title and "clear screen" planted in every string of a config that
  // rope prints, and in the file's name (issue 37, item 4).
  const std::string name = path("m\x1b]0;title\x07.json");
  std::ofstream(name) << R"({"model_type": "llama\u001b]52;c;SGk=\u0007", "hidden_size": 64, "num_attention_heads": 4,
    "num_hidden_layers": 2, "text_config": {"model_type": "t\u001b[2J"},
    "rope_parameters": {"rope_theta": 10000, "rope_type": "default", "k\u001b[2J": 1},
    "layer_types": ["full_attention", "sliding\u001b]0;x\u0007"]})";
  for (const std::string command : {"inspect", "frequencies", "decay", "verify", "attention", "layouts", "matrix",
                                    "wavelengths", "sections", "precision", "extrapolation", "apply"}) {
    std::vector<std::string> args{command};
    if (command == "inspect")
      args.push_back(name);
    else
      args.insert(args.end(), {"--config", name});
    if (command == "apply") args.insert(args.end(), {"--position", "1", "--vector", "1,0,0,1"});
    const Result r = rope_cli(args);
    EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << command << ":\n" << r.out;
    EXPECT_EQ(r.out.find('\x07'), std::string::npos) << command;
    EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << command;
  }
}

TEST_F(Output, JsonOfAFileNameThatIsNotUtf8IsWrittenEscaped) {
  // nlohmann::json::dump threw on the byte 0xff: exit 4, a bug (issue 37, item 5).
  const std::string name = path("\xff.json");
  std::ofstream(name) << R"({"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "rope_theta": 10000})";
  const Result r = rope_cli({"inspect", name, "--json"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\\\\xff.json"), std::string::npos) << r.out;  // the text \xff, its backslash escaped by JSON
  EXPECT_EQ(r.out.find('\xff'), std::string::npos);
  const Result f = rope_cli({"frequencies", "--config", name, "--json"});
  EXPECT_EQ(f.code, 0) << f.err;
}

TEST_F(Output, ReplacingAFileKeepsItsMode) {
  std::ofstream(path("p.csv")) << "old";
  ASSERT_EQ(::chmod(path("p.csv").c_str(), 0600), 0);
  EXPECT_EQ(rope_cli({"frequencies", "--csv", path("p.csv")}).code, 0);
  struct stat st {};
  ASSERT_EQ(::stat(path("p.csv").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_THAT(read("p.csv"), HasSubstr("theta"));
}

TEST_F(Output, SpecialFilesAreWrittenNotReplaced) {
  const std::string fifo = path("f.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = read("f.fifo"); });
  EXPECT_EQ(rope_cli({"frequencies", "--csv", fifo}).code, 0);
  reader.join();
  EXPECT_THAT(got, HasSubstr("theta"));
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_EQ(rope_cli({"frequencies", "--csv", "/dev/null"}).code, 0);
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  const Result full = rope_cli({"frequencies", "--csv", "/dev/full"});
  EXPECT_EQ(full.code, 3);
  EXPECT_EQ(full.err, "rope: cannot write '/dev/full': No space left on device\n");
}

TEST_F(Output, FifoInputsAreRefusedNotWaitedFor) {
  const std::string fifo = path("f.json");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  expect_one_line_error(rope_cli({"inspect", fifo}), 3, "not a regular file");
  expect_one_line_error(rope_cli({"frequencies", "--config", fifo}), 3, "not a regular file");
  expect_one_line_error(rope_cli({"apply", "--position", "1", "--vector", "@" + fifo}), 3, "not a regular file");
}

#if !ROPE_ADDRESS_SANITIZER  // AddressSanitizer reserves terabytes of address space: no RLIMIT_AS
// An allocation that fails is a resource error (exit 3, one line), never "internal error" (exit 4).
TEST_F(Output, OutOfMemoryIsExitThreeNotAnInternalError) {
  GTEST_FLAG_SET(death_test_style, "fast");
  EXPECT_EXIT(
      {
        rlimit limit{};
        limit.rlim_cur = limit.rlim_max = 256u << 20;
        ::setrlimit(RLIMIT_AS, &limit);
        const Result r = rope_cli({"decay", "--points", "10000000", "--csv", path("d.csv")});
        std::fputs(r.err.c_str(), stderr);
        std::exit(r.code);
      },
      ::testing::ExitedWithCode(3), "rope: out of memory: the job needs more memory than this machine allows");
  EXPECT_TRUE(names().empty());
}
#endif

}  // namespace
}  // namespace rope
