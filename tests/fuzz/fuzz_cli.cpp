// libFuzzer target over the command line: parsing and validation of every option of every command,
// through rope::cli::run exactly as the executable runs it.
//
// Input: one argument per line (after "rope"). The harness keeps the run inside a private temporary
// working directory and away from gnuplot: it skips inputs with an argument containing '/' (so every
// file read or written is in that directory, emptied after each run), one that asks for a figure, or a
// number between 1000 and 1e13 (real work, slow under the sanitizers); `verify` runs 10 trials unless
// --trials is given.
// Invariants checked on every input (a violation aborts, which libFuzzer reports as a crash):
//   - the exit code is 0 (ok), 1 (a verification failed), 2 (invalid input) or 3 (I/O error), never 4;
//   - with exit 2 or 3, stderr is exactly one line starting "rope: ", and nothing is left behind.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <string_view>
#include <unistd.h>
#include <vector>

#include "rope/cli/cli.hpp"

namespace {

std::filesystem::path g_dir;

bool figure_option(std::string_view a) {
  for (std::string_view f : {"--png", "--svg", "--pdf", "--output", "-o", "--keep-script"}) {
    if (a.substr(0, f.size()) == f) return true;
  }
  // a short-option cluster ending in o ("-xo"), CLI11 would read the next word as -o's file
  return a.size() > 1 && a[0] == '-' && a[1] != '-' && a.find('o') != std::string_view::npos;
}

/// A number between 1000 and 1e13: inside the limits, it may ask for real work (--dim 4096, --trials
/// 1e6), which under the sanitizers takes minutes; the parsing path is the same as for smaller numbers.
/// Larger numbers stay: they must be refused quickly by a limit.
bool large_number(const std::string& a) {
  char* end = nullptr;
  const double x = std::strtod(a.c_str(), &end);
  return end != a.c_str() && *end == '\0' && std::fabs(x) > 1000 && std::fabs(x) < 1e13;
}

[[noreturn]] void violated(const char* what, int code, const std::string& err) {
  std::fprintf(stderr, "fuzz_cli: %s (exit %d), stderr:\n%s\n", what, code, err.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  char templ[] = "/tmp/rope-fuzz-cli-XXXXXX";
  if (::mkdtemp(templ) == nullptr) std::abort();
  g_dir = templ;
  std::filesystem::current_path(g_dir);
  ::setenv("ROPE_GNUPLOT", "/nonexistent/gnuplot", 1);  // never reached (figures are skipped)
  ::setenv("TMPDIR", templ, 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 4096) return 0;
  std::vector<std::string> args = {"rope"};
  std::string current;
  for (std::size_t i = 0; i <= size; ++i) {
    if (i == size || data[i] == '\n') {
      args.push_back(current);
      current.clear();
    } else {
      current += static_cast<char>(data[i]);
    }
  }
  if (args.size() > 64) return 0;
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (args[i].find('/') != std::string::npos || figure_option(args[i]) || large_number(args[i])) return 0;
  }
  // `rope verify` runs 1000 trials by default: seconds under the sanitizers. Fewer, unless chosen.
  if (args.size() > 1 && args[1] == "verify" && std::find(args.begin(), args.end(), "--trials") == args.end()) {
    args.push_back("--trials");
    args.push_back("10");
  }
  std::ostringstream out, err;
  const int code = rope::cli::run(args, out, err);
  const std::string e = err.str();
  if (code < 0 || code > 3) violated("exit code outside 0-3", code, e);
  if (code >= 2) {
    if (e.rfind("rope: ", 0) != 0) violated("error without 'rope: '", code, e);
    if (e.find('\n') != e.size() - 1) violated("error not exactly one line", code, e);
  }
  std::error_code ec;
  bool left = false;
  for (const auto& entry : std::filesystem::directory_iterator(g_dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (code >= 2 && name.find(".rope-") != std::string::npos) left = true;
    std::filesystem::remove_all(entry.path(), ec);
  }
  if (left) violated("a temporary file was left behind", code, e);
  return 0;
}
