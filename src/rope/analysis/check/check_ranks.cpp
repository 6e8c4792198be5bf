// Each rank's file of a distributed run (check_ranks.hpp).
#include "rope/analysis/check/check_ranks.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <regex>

#include "rope/core/error.hpp"
#include "rope/core/message.hpp"
#include "rope/io/tensor_file.hpp"

namespace rope {
namespace {

/// The whole number `digits` spells (at most 18 digits).
long parse_rank(const std::string& digits, const std::string& path) {
  if (digits.empty() || digits.size() > 18 ||
      !std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c) != 0; })) {
    throw InvalidArgument(error_msg("{0}: the rank read from the path, '{1}', is not a whole number",
                                    escape_for_message(path), escape_for_message(digits)));
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
      throw InvalidArgument(
          error_msg("{0} '{1}' is not a regular expression", option_name("rank_of"), escape_for_message(rank_of)));
    }
    if (re.mark_count() != 1) {
      throw InvalidArgument(error_msg("{0} '{1}' has {2} groups: give one, around the rank's number",
                                      option_name("rank_of"), escape_for_message(rank_of), re.mark_count()));
    }
    std::smatch m;
    if (!std::regex_search(path, m, re)) {
      throw InvalidArgument(error_msg("{0} '{1}' does not match the path '{2}'", option_name("rank_of"),
                                      escape_for_message(rank_of), escape_for_message(path)));
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
                                      escape_for_message(path), *named, r, option_name("rank_of")));
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
                  escape_for_message(name), numbers.size(), option_name("rank_of")));
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
      throw InvalidArgument(error_msg("'{0}' is rank {1}, beyond {2} {3} (ranks 0 … {4})", escape_for_message(p), r,
                                      option_name("cp_size"), cp_size, cp_size - 1));
    }
    std::string& slot = out[static_cast<std::size_t>(r)];
    if (!slot.empty()) {
      throw InvalidArgument(
          error_msg("two files of rank {0}: '{1}' and '{2}'", r, escape_for_message(slot), escape_for_message(p)));
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

}  // namespace rope
