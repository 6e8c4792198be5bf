/// @file
/// The printers of every rank of a context-parallel run checked in one run (analysis/check/check_ranks.hpp): the
/// text, a row per rank (rank, file, verdict, positions span, largest |Δ|/tolerance, and for a failing rank its
/// diagnosis with its found parameters, or the other rank whose positions it matches), then the run's verdict; and
/// the value (`--json`): `ranks`, each rank's check_value with `rank`, `file` and `matches_rank`, then `passed` and
/// `failing_ranks`.
///
/// One renderer for two sources: a run checked here (`--rank-files`, ranks_report) and the per-rank reports of that
/// run merged (`--merge`, merge_rank_reports), each rank's report the `--json` of `rope check --rank-files … --cp-rank
/// R` where the rank's dumps lie. Both become a CheckRanksReport, whose rows are the ranks' report values; the merged
/// report of every rank's JSON is the one-command report, byte for byte.
#pragma once

#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "rope/analysis/check/check_ranks.hpp"
#include "rope/core/message.hpp"
#include "rope/report/emit.hpp"
#include "rope/report/value.hpp"

namespace rope {

class Text;

/// One rank's row: its single check's value (check_value) with the rank's fields.
struct RankRow {
  long rank = 0;
  std::string file, after_file;
  Value check;        ///< check_value of the rank's check
  Message diagnosis;  ///< the failing rank's diagnosis (merged: its English, as the report's JSON holds it)
  double first_position = 0, last_position = 0;
  std::optional<long> matches_rank;
  std::string matches_layout;   ///< "" for none
  bool positions_known = true;  ///< false: a plain check report's row, whose positions the report does not hold
  bool passed() const;          ///< the row's verdict (a merged row's was checked against its numbers on reading)
  double max_ratio() const;     ///< NaN where the JSON holds null
};

/// A row's verdict from its numbers, as check_value writes them: it fails where values fail (`failing` > 0) or its
/// largest |Δ|/tolerance exceeds 1, unless it passes as a harmless reordering (`equivalent`); nullopt where the
/// numbers are missing or not numbers.
std::optional<bool> verdict_from_numbers(const Value& check);

/// Every rank's row of a run, rank order, and the batch it was split from.
struct CheckRanksReport {
  long cp_size = 0;
  std::string layout;
  std::vector<long> sequence_starts;  ///< empty where each rank was checked at its file's positions
  std::string positions_tensor;       ///< the files' positions tensor ("" : each rank at its positions of the batch)
  bool plain = false;                 ///< merged from plain `rope check --json` reports: no batch, no positions
  std::vector<RankRow> ranks;
  bool passed() const;
  std::vector<long> failing_ranks() const;
};

/// A checked rank's row (rope.distributed.check_ranks makes one of its in-process check).
RankRow rank_row(const CheckedRank& rank);

/// The rows of a run checked here.
CheckRanksReport ranks_report(const CheckRanksRun& run);

/// Most reports merged (one per rank: kMaxRankFiles), the largest report read, the most bytes of reports read in
/// all, and the most values their rows hold in all (numbers, texts, lists and objects: the rows are kept as values
/// until the merged report is printed; each report's text and its parse are dropped before the next is read).
inline constexpr std::size_t kMaxMergedReports = static_cast<std::size_t>(kMaxRankFiles);
inline constexpr std::size_t kMaxRankReportBytes = 4u << 20;
inline constexpr std::size_t kMaxMergedReportBytes = 64u << 20;
inline constexpr std::size_t kMaxMergedValues = std::size_t{1} << 20;

/// The per-rank reports `paths` name (files, or directories whose *.json files are read), merged into the run's
/// report: each a `rope check --rank-files … --json` report of one rank or more, its ranks named by its JSON's `rank`
/// fields; or each a plain `rope check … --json` report of one rank, its rank read from its file's name
/// (rank_of_path, by the pattern `rank_of` where given), the ranks 0 … n − 1 each once, no batch compared. Counts and
/// sizes are checked before any report is read.
/// @throws InvalidArgument naming the file: more than kMaxMergedReports, a report beyond kMaxRankReportBytes or the
/// reports beyond kMaxMergedReportBytes, text that is not JSON or not a rank report, a report of another batch
/// (cp size, layout, sequence starts) or of another check (mode, expectation) than the first's, two reports of one
/// rank, a rank of the run without a report, reports of the two kinds, `rank_of` beside reports of ranks (or refused
/// by check_rank_pattern); IoError for a path that cannot be read.
CheckRanksReport merge_rank_reports(const std::vector<std::string>& paths, const std::string& rank_of = "");

/// A rank's report as text, and the name its errors give it (a file's path; "rank 3" in-process).
struct RankReportText {
  std::string name, text;
};

/// The same merge of reports already read (rope.distributed.check_ranks: each rank's report gathered to rank 0), the
/// same limits and refusals.
CheckRanksReport merge_rank_report_texts(const std::vector<RankReportText>& reports);

Value check_ranks_value(const CheckRanksReport& report);

void print_check_ranks(std::ostream& out, const CheckRanksReport& report, const Text& t);

template <>
struct Report<CheckRanksReport> {
  static Value value(const CheckRanksReport& report) { return check_ranks_value(report); }
  static void text(std::ostream& out, const CheckRanksReport& report, const Printing& how) {
    print_check_ranks(out, report, Text(how.lang));
  }
};

template <>
struct Report<CheckRanksRun> {
  static Value value(const CheckRanksRun& run) { return check_ranks_value(ranks_report(run)); }
  static void text(std::ostream& out, const CheckRanksRun& run, const Printing& how) {
    print_check_ranks(out, ranks_report(run), Text(how.lang));
  }
};

}  // namespace rope
