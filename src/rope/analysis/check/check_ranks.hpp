/// @file
/// The files of a distributed run's ranks (docs/check.md "Dumps of a distributed run"): each file's rank read from
/// its path, and the files put in rank order, one per rank of the run, before any of them is opened.
#pragma once

#include <string>
#include <vector>

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

}  // namespace rope
