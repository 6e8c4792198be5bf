// Each rank's file of a distributed run (check_ranks.hpp).
#include "rope/analysis/check/check_ranks.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <regex>

#include "rope/core/error.hpp"
#include "rope/core/message.hpp"
#include "rope/io/tensor_directory.hpp"
#include "rope/io/utf8.hpp"

namespace rope {
namespace {

/// The whole number `digits` spells (at most 18 digits).
long parse_rank(const std::string& digits, const std::string& path) {
  if (digits.empty() || digits.size() > 18 ||
      !std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c) != 0; })) {
    throw InvalidArgument(error_msg("{0}: the rank read from the path, '{1}', is not a whole number",
                                    escape_controls(path, kQuotedBytes), escape_controls(digits, kQuotedBytes)));
  }
  return std::stol(digits);
}

}  // namespace

long rank_of_path(const std::string& path, const std::string& rank_of) {
  if (!rank_of.empty()) {
    std::regex re;
    try {
      re = std::regex(rank_of, std::regex::ECMAScript);
    } catch (const std::regex_error&) {
      throw InvalidArgument(error_msg("{0} '{1}' is not a regular expression", option_name("rank_of"),
                                      escape_controls(rank_of, kQuotedBytes)));
    }
    if (re.mark_count() != 1) {
      throw InvalidArgument(error_msg("{0} '{1}' has {2} groups: give one, around the rank's number",
                                      option_name("rank_of"), escape_controls(rank_of, kQuotedBytes), re.mark_count()));
    }
    std::smatch m;
    if (!std::regex_search(path, m, re)) {
      throw InvalidArgument(error_msg("{0} '{1}' does not match the path '{2}'", option_name("rank_of"),
                                      escape_controls(rank_of, kQuotedBytes), escape_controls(path, kQuotedBytes)));
    }
    return parse_rank(m[1].str(), path);
  }
  // The number after "rank", any case, wherever it is in the path (a directory per rank, or the file's name).
  static const std::regex after_rank("rank[_-]?([0-9]+)", std::regex::ECMAScript | std::regex::icase);
  std::optional<long> named;
  for (auto it = std::sregex_iterator(path.begin(), path.end(), after_rank); it != std::sregex_iterator(); ++it) {
    const long r = parse_rank((*it)[1].str(), path);
    if (named && *named != r) {
      throw InvalidArgument(error_msg("{0} names ranks {1} and {2}: give {3} REGEX, its one group the rank",
                                      escape_controls(path, kQuotedBytes), *named, r, option_name("rank_of")));
    }
    named = r;
  }
  if (named) return *named;
  const std::size_t slash = path.find_last_of('/');
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  static const std::regex number("[0-9]+");
  std::vector<std::string> numbers;
  for (auto it = std::sregex_iterator(name.begin(), name.end(), number); it != std::sregex_iterator(); ++it)
    numbers.push_back(it->str());
  if (numbers.size() != 1) {
    throw InvalidArgument(
        error_msg("the file name '{0}' holds {1} numbers and its path no \"rank\" followed by one: "
                  "give {2} REGEX, its one group the rank",
                  escape_controls(name, kQuotedBytes), numbers.size(), option_name("rank_of")));
  }
  return parse_rank(numbers.front(), path);
}

std::vector<std::string> files_by_rank(const std::vector<std::string>& paths, long cp_size, const std::string& rank_of,
                                       const std::string& setting) {
  if (paths.empty()) throw InvalidArgument(error_msg("{0} matches no file", option_name(setting)));
  if (static_cast<long>(paths.size()) > kMaxRankFiles) {
    throw InvalidArgument(
        error_msg("{0} matches {1} files, more than {2}", option_name(setting), paths.size(), kMaxRankFiles));
  }
  std::vector<std::string> out(static_cast<std::size_t>(cp_size));
  for (const std::string& p : paths) {
    const long r = rank_of_path(p, rank_of);
    if (r >= cp_size) {
      throw InvalidArgument(error_msg("'{0}' is rank {1}, beyond {2} {3} (ranks 0 … {4})",
                                      escape_controls(p, kQuotedBytes), r, option_name("cp_size"), cp_size,
                                      cp_size - 1));
    }
    std::string& slot = out[static_cast<std::size_t>(r)];
    if (!slot.empty()) {
      throw InvalidArgument(error_msg("two files of rank {0}: '{1}' and '{2}'", r, escape_controls(slot, kQuotedBytes),
                                      escape_controls(p, kQuotedBytes)));
    }
    slot = p;
  }
  for (long r = 0; r < cp_size; ++r) {
    if (out[static_cast<std::size_t>(r)].empty()) {
      throw InvalidArgument(error_msg("{0} has no file of rank {1} ({2} {3}: ranks 0 … {4})", option_name(setting), r,
                                      option_name("cp_size"), cp_size, cp_size - 1));
    }
  }
  return out;
}

std::vector<std::string> file_of_rank(const std::vector<std::string>& paths, long rank, long cp_size,
                                      const std::string& rank_of, const std::string& setting) {
  if (paths.empty()) throw InvalidArgument(error_msg("{0} matches no file", option_name(setting)));
  if (static_cast<long>(paths.size()) > kMaxRankFiles) {
    throw InvalidArgument(
        error_msg("{0} matches {1} files, more than {2}", option_name(setting), paths.size(), kMaxRankFiles));
  }
  if (rank < 0 || rank >= cp_size) {
    throw InvalidArgument(error_msg("{0} {1} is not a rank of {2} {3} (ranks 0 … {4})", option_name("cp_rank"), rank,
                                    option_name("cp_size"), cp_size, cp_size - 1));
  }
  std::vector<std::string> out(static_cast<std::size_t>(cp_size));
  std::string& slot = out[static_cast<std::size_t>(rank)];
  for (const std::string& p : paths) {
    if (rank_of_path(p, rank_of) != rank) continue;
    if (!slot.empty()) {
      throw InvalidArgument(error_msg("two files of rank {0}: '{1}' and '{2}'", rank,
                                      escape_controls(slot, kQuotedBytes), escape_controls(p, kQuotedBytes)));
    }
    slot = p;
  }
  if (slot.empty()) {
    throw InvalidArgument(error_msg("{0} has no file of rank {1} ({2} {3}: ranks 0 … {4})", option_name(setting), rank,
                                    option_name("cp_size"), cp_size, cp_size - 1));
  }
  return out;
}

bool CheckRanksRun::passed() const {
  return std::all_of(ranks.begin(), ranks.end(), [](const CheckedRank& r) { return r.run.passed(); });
}

std::vector<long> CheckRanksRun::failing_ranks() const {
  std::vector<long> out;
  for (const CheckedRank& r : ranks) {
    if (!r.run.passed()) out.push_back(r.rank);
  }
  return out;
}

namespace {

std::string joined(const std::vector<long>& values) {
  std::string out;
  for (const long v : values) out += (out.empty() ? "" : ",") + std::to_string(v);
  return out;
}

}  // namespace

CheckRanksRun run_check_ranks(const CheckRanksRequest& request) {
  CheckRanksRun out;
  out.batch = request.batch;
  const long cp = request.batch.cp_size;
  if (static_cast<long>(request.files.size()) != cp ||
      (!request.after_files.empty() && static_cast<long>(request.after_files.size()) != cp)) {
    throw InvalidArgument(
        error_msg("{0} {1}, but {2} files of ranks", option_name("cp_size"), cp, request.files.size()));
  }
  out.positions_from_files = !request.check.dumps.positions_tensor.empty();
  // Every rank's positions of the batch, computed before any file is read (a batch the layout cannot split refused).
  std::vector<CpPositions> positions;
  if (!out.positions_from_files) {
    for (long r = 0; r < cp; ++r) {
      CpPositionsRequest one = request.batch;
      one.cp_rank = r;
      positions.push_back(cp_positions(one));
    }
  }
  // The rank's files opened once (a torch.save archive's central directory and pickle, a .npy or safetensors header:
  // tensor_directory.hpp), for its check and every retry of a failing rank at other positions and layouts; one
  // rank's at a time. A file that cannot be opened so is read by its path, where run_check says why.
  std::shared_ptr<const TensorDirectory> before_directory, after_directory;
  const auto open_directory = [](const std::string& path) -> std::shared_ptr<const TensorDirectory> {
    try {
      return TensorDirectory::open(path);
    } catch (const InvalidArgument&) {
      return nullptr;
    } catch (const IoError&) {
      return nullptr;
    }
  };
  const auto check_at = [&](long rank, const CpPositions* at) {
    CheckRequest one = request.check;
    const auto k = static_cast<std::size_t>(rank);
    one.dumps.before = request.files[k];
    one.dumps.after = request.after_files.empty() ? request.files[k] : request.after_files[k];
    one.dumps.before_directory = before_directory;
    one.dumps.after_directory = request.after_files.empty() ? before_directory : after_directory;
    if (at != nullptr) {
      one.dumps.positions = joined(at->positions);
      one.dumps.positions_tensor.clear();
      if (at->local_starts.size() > 2) one.dumps.sequence_starts = joined(at->local_starts);
    } else {
      one.dumps.positions = "@" + request.files[k];
    }
    return run_check(one);
  };
  for (long r = 0; r < cp; ++r) {
    const auto k = static_cast<std::size_t>(r);
    if (request.files[k].empty()) continue;  // one rank's report: the other ranks are checked where they lie
    before_directory = open_directory(request.files[k]);
    after_directory = request.after_files.empty() ? nullptr : open_directory(request.after_files[k]);
    CheckedRank c;
    c.rank = r;
    c.file = request.files[k];
    c.after_file = request.after_files.empty() ? "" : request.after_files[k];
    c.run = check_at(r, out.positions_from_files ? nullptr : &positions[k]);
    const std::vector<double>& p = c.run.dumps.positions;
    if (!p.empty()) {
      c.first_position = *std::min_element(p.begin(), p.end());
      c.last_position = *std::max_element(p.begin(), p.end());
    }
    // A failing rank that another rank's positions pass: it holds (or was rotated at) that rank's slice.
    if (!c.run.passed() && !out.positions_from_files) {
      long tried = 0;
      for (long o = 0; o < cp && tried < kMaxOtherRanksTried && !c.matches_rank; ++o) {
        const auto ko = static_cast<std::size_t>(o);
        if (o == r || positions[ko].positions.size() != positions[k].positions.size()) continue;
        ++tried;
        if (check_at(r, &positions[ko]).passed()) c.matches_rank = o;
      }
      // Its own tokens split in another layout (a zigzag chunk taken as contiguous).
      for (const CpLayout other : {CpLayout::Zigzag, CpLayout::Contiguous, CpLayout::RoundRobin}) {
        if (c.matches_rank || c.matches_layout || other == request.batch.layout) continue;
        CpPositionsRequest as = request.batch;
        as.cp_rank = r, as.layout = other;
        try {
          const CpPositions p2 = cp_positions(as);
          if (p2.positions.size() == positions[k].positions.size() && check_at(r, &p2).passed())
            c.matches_layout = other;
        } catch (const InvalidArgument&) {
          // a batch this layout cannot split
        }
      }
    }
    out.ranks.push_back(std::move(c));
  }
  return out;
}

}  // namespace rope
