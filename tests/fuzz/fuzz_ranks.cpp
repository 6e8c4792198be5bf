// libFuzzer target over the inputs of a distributed run's check (rope/analysis/check/check_ranks.hpp,
// rope/report/check_ranks_report.hpp): the first byte picks one.
//   even: a rank pattern and a path, split at the first newline (rank_of_path, the files of --rank-files and
//         --rank-of): a rank, or one InvalidArgument line; a refused pattern echoed at most kRankPatternEcho bytes.
//   odd:  a rank's report (merge_rank_report_texts, the reports of --merge and rope.distributed), a report of ranks or
//         a plain check report (its rank from its name, "rank0_report.json"): a merged report whose every row's
//         verdict is its numbers', or one InvalidArgument line that starts with the report's name.
// Anything else (another exception, a crash, a sanitizer report, a hang) is a bug.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "rope/analysis/check/check_ranks.hpp"
#include "rope/core/error.hpp"
#include "rope/report/check_ranks_report.hpp"

namespace {

void one_line(const rope::InvalidArgument& e, std::string_view starts, std::size_t longest) {
  const std::string_view message = e.what();
  if (message.find('\n') != std::string_view::npos || message.rfind(starts, 0) != 0 || message.size() > longest) {
    std::fprintf(stderr, "message not one short line starting with '%.*s': %s\n", static_cast<int>(starts.size()),
                 starts.data(), e.what());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] % 2 == 0) {
    const std::size_t cut = text.find('\n');
    const std::string pattern = cut == std::string::npos ? text : text.substr(0, cut);
    const std::string path = cut == std::string::npos ? "rank0.pt" : text.substr(cut + 1);
    try {
      if (rope::rank_of_path(path, pattern) < 0) std::abort();
    } catch (const rope::InvalidArgument& e) {
      // the path echoed whole (a glob's path), the pattern cut short, each escaped (4 bytes a byte at most)
      one_line(e, "", 4 * (path.size() + rope::kRankPatternEcho) + 400);
    }
    return 0;
  }
  try {
    const rope::CheckRanksReport merged = rope::merge_rank_report_texts({{"rank0_report.json", text}});
    for (const rope::RankRow& row : merged.ranks) {
      const std::optional<bool> verdict = rope::verdict_from_numbers(row.check);
      if (!verdict || *verdict != row.passed()) std::abort();  // a row whose verdict is not its numbers'
    }
  } catch (const rope::InvalidArgument& e) {
    one_line(e, "", 1u << 20);
    const std::string_view message = e.what();
    if (message.find("report") == std::string_view::npos) {
      std::fprintf(stderr, "a refusal naming no report: %s\n", e.what());
      std::abort();
    }
  }
  return 0;
}
