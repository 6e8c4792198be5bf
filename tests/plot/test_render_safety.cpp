// rope/plot/render.hpp against what broke it (issue 19): a figure cut short by a full disk or a file
// size limit, user bytes in paths, a user's ~/.gnuplot, a gnuplot that outlives rope.
#include "rope/plot/render.hpp"

#include "support/death_test.hpp"
#include "support/scoped_env.hpp"

#include <csignal>
#include <fmt/format.h>
#include <set>
#include <tuple>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "plot/helpers.hpp"
#include "rope/core/error.hpp"

namespace rope::plot {
namespace {

using rope::test::ScopedEnv;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;
using namespace plot_test;

class RenderSafety : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("rope-render-safety-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "out");
    fs::create_directories(dir_ / "bin");
    options_.style.width = 640;
    options_.style.height = 480;
    options_.style.font_size = 12;
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path out(const std::string& name) const { return dir_ / "out" / name; }
  std::string fake_gnuplot(const std::string& body) const {
    const fs::path p = dir_ / "bin" / "gnuplot";
    std::ofstream(p) << "#!/bin/sh\n" << body << "\n";
    fs::permissions(p, fs::perms::owner_all);
    return p.string();
  }
  fs::path dir_;
  RenderOptions options_;
};

// A stand-in gnuplot that exits 0 after writing only the first bytes of each figure, as gnuplot does
// when the disk fills up: the truncated file never replaces the good one.
TEST_F(RenderSafety, ATruncatedFigureNeverReplacesTheOldOne) {
  std::ofstream(out("a.png")) << "old figure";
  std::ofstream(out("b.svg")) << "old svg";
  std::ofstream(out("c.pdf")) << "old pdf";
  // The script is its last argument; each "set output '/dev/fd/N'" gets a start and no end.
  const std::string body =
      "for f in $(sed -n \"s/^set output '\\(.*\\)'$/\\1/p\" \"$2\"); do printf '\\211PNG\\r\\n\\032\\n<svg>%%PDF' > $f; done";
  const ScopedEnv env("ROPE_GNUPLOT", fake_gnuplot(body).c_str());
  for (const auto& c :
       {std::tuple{"a.png", Format::Png, "no IEND chunk"}, std::tuple{"b.svg", Format::Svg, "no closing </svg>"},
        std::tuple{"c.pdf", Format::Pdf, "no %%EOF"}}) {
    // plain variables: clang 14 cannot capture a structured binding in a lambda
    const char* name = std::get<0>(c);
    const Format format = std::get<1>(c);
    const char* missing = std::get<2>(c);
    EXPECT_THAT(
        [&] {
          render(two_curves(), {{out(name).string(), format}}, options_);
        },
        ThrowsMessage<IoError>(HasSubstr(fmt::format("cannot write '{}': the figure gnuplot wrote is "
                                                     "incomplete (17 bytes, {}",
                                                     out(name).string(), missing))));
  }
  EXPECT_EQ(read(out("a.png")), "old figure");
  EXPECT_EQ(read(out("b.svg")), "old svg");
  EXPECT_EQ(read(out("c.pdf")), "old pdf");
  EXPECT_EQ(entries(dir_ / "out"), (std::set<std::string>{"a.png", "b.svg", "c.pdf"}));
}

// The real gnuplot under a 4 KiB file size limit (SIGXFSZ ignored, as rope does): its PNG stops short,
// gnuplot still exits 0; rope says so, naming the limit, and keeps the old file.
TEST_F(RenderSafety, AFileSizeLimitIsAnIoErrorNamingIt) {
  GTEST_FLAG_SET(death_test_style, "fast");
  std::ofstream(out("a.png")) << "old figure";
  EXPECT_EXIT(
      {
        std::signal(SIGXFSZ, SIG_IGN);
        rlimit limit{};
        limit.rlim_cur = limit.rlim_max = 4096;
        ::setrlimit(RLIMIT_FSIZE, &limit);
        try {
          render(two_curves(), {{out("a.png").string(), Format::Png}}, options_);
        } catch (const IoError& e) {
          std::fprintf(stderr, "%s\n", e.what());
          test::end_child(3);
        }
        test::end_child(0);
      },
      ::testing::ExitedWithCode(3), "a.png': the figure gnuplot wrote is incomplete .*File too large");
  EXPECT_EQ(read(out("a.png")), "old figure");
  EXPECT_EQ(entries(dir_ / "out"), std::set<std::string>{"a.png"});
}

// Bytes that are not UTF-8 and U+0085 in the directory and the name, and a 250-byte name: gnuplot
// only ever sees "/dev/fd/N", so the figure lands under exactly this name and nothing else is left.
TEST_F(RenderSafety, AnyBytesInTheOutputPathWork) {
  const fs::path odd = dir_ / "out" / "d\xff\xc2\x85";
  fs::create_directories(odd);
  const std::string name = "f\xfe\xc2\x85" + std::string(242, 'n') + ".png";
  ASSERT_EQ(name.size(), 250u);
  render(two_curves(), {{(odd / name).string(), Format::Png}}, options_);
  EXPECT_EQ(entries(odd), std::set<std::string>{name});
  EXPECT_EQ(read(odd / name).substr(1, 3), "PNG");
}

// A user's ~/.gnuplot (here one that would leave a mark and use decimal commas) is not read.
TEST_F(RenderSafety, TheUsersGnuplotInitFileIsNotRead) {
  const fs::path home = dir_ / "home";
  fs::create_directories(home);
  const fs::path mark = dir_ / "init-file-ran";
  std::ofstream(home / ".gnuplot") << "set decimalsign ','\nsystem('touch " << mark.string() << "')\n";
  const ScopedEnv env("HOME", home.c_str());
  render(two_curves(), {{out("a.svg").string(), Format::Svg}}, options_);
  EXPECT_FALSE(fs::exists(mark)) << "gnuplot ran ~/.gnuplot";
  EXPECT_THAT(read(out("a.svg")), HasSubstr("</svg>"));
}

// gnuplot gets a parent-death signal: when rope dies (even of SIGKILL) gnuplot goes too.
TEST_F(RenderSafety, GnuplotDiesWithRope) {
  const fs::path pid_file = dir_ / "gnuplot.pid";
  const std::string fake = fake_gnuplot("echo $$ > " + pid_file.string() + "\nexec sleep 60");
  const pid_t rope = ::fork();
  ASSERT_GE(rope, 0);
  if (rope == 0) {
    ::setenv("ROPE_GNUPLOT", fake.c_str(), 1);
    try {
      render(two_curves(), {{out("a.png").string(), Format::Png}}, options_);
    } catch (...) {
    }
    ::_exit(0);
  }
  for (int i = 0; i < 500 && read(pid_file).empty(); ++i) ::usleep(10000);
  const pid_t gnuplot = std::atoi(read(pid_file).c_str());
  ASSERT_GT(gnuplot, 0);
  ::kill(rope, SIGKILL);
  int status = 0;
  ::waitpid(rope, &status, 0);
  bool gone = false;
  for (int i = 0; i < 500 && !gone; ++i) {
    // The orphan is reaped by init (or a subreaper): gone, or a zombie, once the signal arrived.
    const std::string stat = read("/proc/" + std::to_string(gnuplot) + "/stat");
    gone = stat.empty() || stat.find(") Z") != std::string::npos;
    if (!gone) ::usleep(10000);
  }
  EXPECT_TRUE(gone) << "gnuplot (pid " << gnuplot << ") outlived rope";
  if (!gone) ::kill(gnuplot, SIGKILL);
}

}  // namespace
}  // namespace rope::plot
