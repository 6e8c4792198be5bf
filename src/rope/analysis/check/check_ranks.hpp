/// @file
/// The files of a distributed run's ranks (docs/check.md "Dumps of a distributed run"): each file's rank read from
/// its path, and the files put in rank order, one per rank of the run, before any of them is opened.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rope/analysis/check/check_run.hpp"
#include "rope/analysis/dumps/cp_positions.hpp"

namespace rope {

/// The rank a dump's path names: the one group of `rank_of` (a regular expression, ECMAScript, searched in the
/// path) where given; else the number after "rank" in the path, in any case ("dump/rank3.pt", SGLang's
/// "TP0_PP0_Rank2_pid7/Pass00000.pt"); else the only number in the file's name ("q.3.pt").
/// @throws InvalidArgument naming the path and the rule: a regular expression that does not compile or has not one
/// group, a path it does not match or whose group is no whole number, "rank" followed by different numbers, a name
/// of no number or of several numbers (then asking for --rank-of).
long rank_of_path(const std::string& path, const std::string& rank_of);

/// Most ranks a run's files may hold (the context-parallel size's limit, kMaxCpSize).
inline constexpr long kMaxRankFiles = 1L << 16;

/// `paths` in rank order (index r: rank r's file), each rank read by rank_of_path; `setting` names the option that
/// gave them ("rank_files"). @throws InvalidArgument: no path, more than kMaxRankFiles, a rank at or beyond
/// `cp_size`, two files of one rank (both named), a rank of 0 … cp_size − 1 without a file.
std::vector<std::string> files_by_rank(const std::vector<std::string>& paths, long cp_size, const std::string& rank_of,
                                       const std::string& setting);

/// One rank's file among `paths` (`rope check --rank-files GLOB --cp-rank R`: one rank's report, for `--merge`):
/// index `rank` holds it, the others are empty. Paths of other ranks are left out. @throws InvalidArgument: no path,
/// more than kMaxRankFiles, `rank` outside 0 … cp_size − 1, no file of `rank`, two files of it (both named).
std::vector<std::string> file_of_rank(const std::vector<std::string>& paths, long rank, long cp_size,
                                      const std::string& rank_of, const std::string& setting);

/// Every rank's dump of a context-parallel run checked in one run (`rope check --rank-files`).
struct CheckRanksRequest {
  CheckRequest check;  ///< the settings and the tensors' names; each rank's files and positions set per rank
  /// Each rank's file, rank order (files_by_rank): both tensors; a rank whose file is empty is not checked (one rank's
  /// report, file_of_rank).
  std::vector<std::string> files;
  std::vector<std::string> after_files;  ///< where the engine writes them apart, each rank's after file; else empty
  /// The packed batch's starts (the whole batch's cu_seqlens, its total), the cp size and the layout; cp_rank unused.
  /// Each rank's positions are cp_positions of it, unless check.dumps.positions_tensor names a tensor of each file.
  CpPositionsRequest batch;
};

/// Most other ranks' positions tried on a failing rank.
inline constexpr long kMaxOtherRanksTried = 16;

struct CheckedRank {
  long rank = 0;
  std::string file, after_file;
  CheckRun run;  ///< the rank's check (its values dropped: one rank's tensors at a time)
  double first_position = 0, last_position = 0;  ///< the span of the positions it was checked at
  std::optional<long> matches_rank;              ///< a failing rank that passes at this other rank's positions
  std::optional<CpLayout> matches_layout;        ///< else one that passes at its own positions in this other layout
};

struct CheckRanksRun {
  CpPositionsRequest batch;
  bool positions_from_files = false;  ///< each rank's positions read from its file's tensor
  std::vector<CheckedRank> ranks;     ///< rank order (the ranks checked: every rank, or one)
  bool passed() const;
  std::vector<long> failing_ranks() const;
};

/// Checks each rank's files in rank order. @throws InvalidArgument as cp_positions for the batch, as files_by_rank,
/// as run_check for each rank (the rank's file named).
CheckRanksRun run_check_ranks(const CheckRanksRequest& request);

}  // namespace rope
