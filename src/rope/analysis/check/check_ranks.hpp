/// @file
/// The files of a distributed run's ranks (docs/check.md "Dumps of a distributed run"): each file's rank read from
/// its path, and the files put in rank order, one per rank of the run, before any of them is opened.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "rope/analysis/check/check_run.hpp"
#include "rope/analysis/dumps/cp_positions.hpp"

namespace rope {

/// Longest rank pattern (`rank_of`), in bytes; a refused pattern is echoed cut to kRankPatternEcho bytes.
inline constexpr std::size_t kMaxRankPattern = 256;
inline constexpr std::size_t kRankPatternEcho = 64;

/// The rank a dump's path names: where `rank_of` is given, the number at its one `{N}` (a pattern: literal text
/// around `{N}`, which stands for the rank's digits, searched in the path: "q{N}.pt", "step10_q{N}"; the first
/// place the text before `{N}`, one digit or more and the text after it follow each other); else the number after
/// "rank" in the path, in any case, an optional '_' or '-' between ("dump/rank3.pt", SGLang's
/// "TP0_PP0_Rank2_pid7/Pass00000.pt"); else the only number in the file's name ("q.3.pt"). Every rule is a scan of
/// the path, linear in its length (no regular expression: nothing to backtrack or recurse on).
/// @throws InvalidArgument naming the path and the rule: a pattern longer than kMaxRankPattern, of no `{N}` or of
/// several, a path it does not match, a number of more than 18 digits, "rank" followed by different numbers, a name
/// of no number or of several numbers (then asking for --rank-of).
long rank_of_path(const std::string& path, const std::string& rank_of);

/// The pattern `rank_of` refused by itself (before any path): longer than kMaxRankPattern, or not one `{N}`.
void check_rank_pattern(const std::string& rank_of);

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
  double first_position = 0, last_position = 0;  ///< its smallest and largest position (not one run)
  std::optional<long> matches_rank;              ///< a failing rank that passes at this other rank's positions
  std::optional<CpLayout> matches_layout;        ///< else one that passes at its own positions in this other layout
};

struct CheckRanksRun {
  CpPositionsRequest batch;
  bool positions_from_files = false;  ///< each rank's positions read from its file's tensor
  std::string positions_tensor;       ///< that tensor's name ("" : each rank at its positions of the batch)
  std::vector<CheckedRank> ranks;     ///< rank order (the ranks checked: every rank, or one)
  bool passed() const;
  std::vector<long> failing_ranks() const;
};

/// Every rank's files checked in one run as a front end names them (`rope check --rank-files`, `--cp-rank`): globs,
/// the rank pattern, the batch's text; the check's other settings in `check`.
struct RankFileSettings {
  std::string files;            ///< a glob of every rank's file holding both tensors
  std::string before, after;    ///< else a glob of every rank's before file and one of its after files
  std::string rank_of;          ///< the rank pattern (rank_of_path); "": the path's "rank" or only number
  std::optional<long> cp_size;  ///< none: the number of files the glob matched
  std::optional<long> cp_rank;  ///< one rank's report (file_of_rank): needs cp_size
  std::string cp_layout;        ///< "zigzag" (""), "round-robin" or "contiguous"
};

/// The paths a glob names, sorted; none when it matches nothing.
std::vector<std::string> glob_paths(const std::string& pattern);

/// The request of `settings` beside the one check's `check` (its dumps' tensor names, the batch's sequence starts
/// or the files' positions tensor, the expectation). The ranks' rules, each refused in one line naming the option:
/// before/after, positions, axis positions, rope delta, k's dumps, a shift or a shift map (one dump's settings, not
/// a run's); neither or both of the batch's sequence starts and a positions tensor (each rank is checked at its
/// positions of the batch, or at its file's own, which nothing compares with a batch: a rank numbering its own tokens
/// from 0 passes there); a cp layout beside a positions tensor; a cp size outside 1 … kMaxCpSize; a cp rank without a
/// cp size; a layout not named; starts that are not token indices (cp_positions' rules, checked before any file is
/// read); the globs as files_by_rank or file_of_rank. @throws InvalidArgument; IoError for a starts file that cannot
/// be read.
CheckRanksRequest ranks_request(const RankFileSettings& settings, const CheckRequest& check);

/// Checks each rank's files in rank order. @throws InvalidArgument as cp_positions for the batch, as files_by_rank,
/// as run_check for each rank (the rank's file named).
CheckRanksRun run_check_ranks(const CheckRanksRequest& request);

}  // namespace rope
