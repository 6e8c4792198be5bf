// Each rank's file of a distributed run (check_ranks.hpp).
#include "rope/analysis/check/check_ranks.hpp"

#include <glob.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <string_view>

#include "rope/core/error.hpp"
#include "rope/core/message.hpp"
#include "rope/io/tensor_directory.hpp"
#include "rope/io/text_file.hpp"
#include "rope/io/tensor_file.hpp"
#include "rope/core/utf8.hpp"

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

bool is_digit(char c) { return c >= '0' && c <= '9'; }

/// The length of the run of digits at `at` (0 where none).
std::size_t digits_at(const std::string& text, std::size_t at) {
  std::size_t n = 0;
  while (at + n < text.size() && is_digit(text[at + n])) ++n;
  return n;
}

/// A refused pattern as a message shows it: at most kRankPatternEcho bytes (cut before a UTF-8 continuation
/// byte), then "…", control characters escaped.
std::string echoed(const std::string& pattern) {
  if (pattern.size() <= kRankPatternEcho) return escape_controls(pattern, kQuotedBytes);
  std::size_t cut = kRankPatternEcho;
  while (cut > 0 && (static_cast<unsigned char>(pattern[cut]) & 0xC0) == 0x80) --cut;
  return escape_controls(pattern.substr(0, cut), kQuotedBytes) + "…";
}

constexpr std::string_view kRankMark = "{N}";

/// The rank at `rank_of`'s `{N}` in `path` (rank_of_path).
long rank_of_pattern(const std::string& path, const std::string& rank_of) {
  check_rank_pattern(rank_of);
  const std::size_t mark = rank_of.find(kRankMark);
  const std::string before = rank_of.substr(0, mark), after = rank_of.substr(mark + kRankMark.size());
  // Each place the text before {N} starts; its digits, longest first, then the text after them.
  for (std::size_t at = 0; at + before.size() <= path.size(); ++at) {
    if (path.compare(at, before.size(), before) != 0) continue;
    const std::size_t first = at + before.size();
    for (std::size_t n = digits_at(path, first); n > 0; --n) {
      if (path.compare(first + n, after.size(), after) == 0 && first + n + after.size() <= path.size())
        return parse_rank(path.substr(first, n), path);
    }
  }
  throw InvalidArgument(error_msg("{0} '{1}' does not match the path '{2}'", option_name("rank_of"), echoed(rank_of),
                                  escape_controls(path, kQuotedBytes)));
}

}  // namespace

void check_rank_pattern(const std::string& rank_of) {
  if (rank_of.size() > kMaxRankPattern) {
    throw InvalidArgument(error_msg("{0} '{1}' is {2} bytes, longer than the {3} allowed", option_name("rank_of"),
                                    echoed(rank_of), rank_of.size(), kMaxRankPattern));
  }
  const std::size_t mark = rank_of.find(kRankMark);
  if (mark == std::string::npos || rank_of.find(kRankMark, mark + 1) != std::string::npos) {
    throw InvalidArgument(
        error_msg("{0} '{1}' is not a pattern of one {{N}}: the text around the rank's number, {{N}} where its "
                  "digits stand (e.g. 'q{{N}}.pt')",
                  option_name("rank_of"), echoed(rank_of)));
  }
}

long rank_of_path(const std::string& path, const std::string& rank_of) {
  if (!rank_of.empty()) return rank_of_pattern(path, rank_of);
  // The number after "rank" (any case, then an optional '_' or '-'), wherever it is in the path (a directory per
  // rank, or the file's name).
  std::optional<long> named;
  for (std::size_t at = 0; at + 4 <= path.size();) {
    bool rank = true;
    for (std::size_t i = 0; i < 4; ++i)
      rank = rank && std::tolower(static_cast<unsigned char>(path[at + i])) == "rank"[i];
    if (!rank) {
      ++at;
      continue;
    }
    std::size_t first = at + 4;
    if (first < path.size() && (path[first] == '_' || path[first] == '-') && digits_at(path, first + 1) > 0) ++first;
    const std::size_t n = digits_at(path, first);
    if (n == 0) {
      ++at;
      continue;
    }
    const long r = parse_rank(path.substr(first, n), path);
    if (named && *named != r) {
      throw InvalidArgument(error_msg("{0} names ranks {1} and {2}: give {3} PATTERN, its {{N}} the rank",
                                      escape_controls(path, kQuotedBytes), *named, r, option_name("rank_of")));
    }
    named = r;
    at = first + n;
  }
  if (named) return *named;
  const std::size_t slash = path.find_last_of('/');
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  std::vector<std::string> numbers;
  for (std::size_t at = 0; at < name.size();) {
    const std::size_t n = digits_at(name, at);
    if (n == 0) {
      ++at;
      continue;
    }
    numbers.push_back(name.substr(at, n));
    at += n;
  }
  if (numbers.size() != 1) {
    throw InvalidArgument(
        error_msg("the file name '{0}' holds {1} numbers and its path no \"rank\" followed by one: "
                  "give {2} PATTERN, its {{N}} the rank",
                  escape_controls(name, kQuotedBytes), numbers.size(), option_name("rank_of")));
  }
  return parse_rank(numbers.front(), path);
}

std::vector<std::string> glob_paths(const std::string& pattern) {
  std::vector<std::string> out;
  glob_t g{};
  if (glob(pattern.c_str(), 0, nullptr, &g) == 0) {
    for (std::size_t i = 0; i < g.gl_pathc; ++i) out.emplace_back(g.gl_pathv[i]);
  }
  globfree(&g);
  return out;
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

CheckRanksRequest ranks_request(const RankFileSettings& settings, const CheckRequest& check) {
  const DumpFiles& d = check.dumps;
  const std::string files = option_name(!settings.files.empty()    ? "rank_files"
                                        : !settings.before.empty() ? "rank_files_before"
                                                                   : "rank_files_after");
  // One dump's settings, which a run of every rank's files would leave unread.
  for (const auto& [given, name] :
       {std::pair{!d.before.empty(), "before"}, std::pair{!d.after.empty(), "after"},
        std::pair{!d.positions.empty(), "positions"}, std::pair{!d.axis_positions.empty(), "axis_positions"},
        std::pair{d.rope_delta.has_value(), "rope_delta"}, std::pair{check.keys.has_value(), "k_before"},
        std::pair{!check.settings.shift_map.empty(), "shift_map"},
        std::pair{check.settings.mode == CheckMode::Shift, "shift"}}) {
    if (given) {
      throw InvalidArgument(
          error_msg("{0} checks one tensor per rank at the rank's positions: leave out {1}", files, option_name(name)));
    }
  }
  if (settings.files.empty() ? settings.before.empty() || settings.after.empty()
                             : !settings.before.empty() || !settings.after.empty()) {
    throw InvalidArgument(error_msg("give {0}, or {1} and {2}", option_name("rank_files"),
                                    option_name("rank_files_before"), option_name("rank_files_after")));
  }
  const bool from_files = !d.positions_tensor.empty();
  // Each rank checked at its positions of the batch, or at its file's own: never both, since a file's own positions
  // compared with nothing pass a rank that numbered its own tokens from 0.
  if (from_files == !d.sequence_starts.empty()) {
    const std::string tensor = option_name("positions_tensor"), starts = option_name("sequence_starts");
    throw InvalidArgument(
        from_files ? error_msg("{0} checks each rank at its file's positions, {1} at its positions of the packed "
                               "batch: give one",
                               tensor, starts)
                   : error_msg("{0} needs the packed batch's {1} (or {2}: each rank at its file's positions)", files,
                               starts, tensor));
  }
  if (from_files && !settings.cp_layout.empty()) {
    throw InvalidArgument(error_msg("{0} splits the packed batch of {1}: with {2} each rank is at its file's positions",
                                    option_name("cp_layout"), option_name("sequence_starts"),
                                    option_name("positions_tensor")));
  }
  if (settings.cp_size && (*settings.cp_size < 1 || *settings.cp_size > kMaxCpSize)) {
    throw InvalidArgument(
        error_msg("{0} must be between 1 and {1} (got {2})", option_name("cp_size"), kMaxCpSize, *settings.cp_size));
  }
  if (settings.cp_rank && !settings.cp_size) {
    throw InvalidArgument(error_msg("{0} needs {1}: one rank's files do not say how many ranks the run has",
                                    option_name("cp_rank"), option_name("cp_size")));
  }
  if (!settings.rank_of.empty()) check_rank_pattern(settings.rank_of);
  CheckRanksRequest r;
  r.check = check;
  r.check.dumps.sequence_starts.clear();
  const std::string layout = settings.cp_layout.empty() ? "zigzag" : settings.cp_layout;
  const std::optional<CpLayout> parsed = parse_cp_layout(layout);
  if (!parsed) {
    throw InvalidArgument(error_msg("{0} must be zigzag, round-robin or contiguous (got '{1}')",
                                    option_name("cp_layout"), escape_controls(layout, kQuotedBytes)));
  }
  r.batch.layout = *parsed;
  const std::string starts = option_name("sequence_starts");
  if (!from_files) {
    for (const double v : parse_list_argument(d.sequence_starts, starts)) {
      if (!(v >= 0 && v <= static_cast<double>(kMaxCpTokens) && v == std::floor(v))) {
        throw InvalidArgument(error_msg("{0}: {1} is not a token index in [0, {2}]", starts, v, kMaxCpTokens));
      }
      r.batch.sequence_starts.push_back(static_cast<long>(v));
    }
  }
  const std::vector<std::string> first = glob_paths(settings.files.empty() ? settings.before : settings.files);
  r.batch.cp_size = settings.cp_size.value_or(static_cast<long>(std::min<std::size_t>(first.size(), kMaxRankFiles)));
  if (r.batch.cp_size < 1) throw InvalidArgument(error_msg("{0} matches no file", files));
  if (!from_files) check_cp_batch(r.batch);  // the batch's rules before any file is read
  const auto by_rank = [&](const std::vector<std::string>& paths, const char* setting) {
    return settings.cp_rank ? file_of_rank(paths, *settings.cp_rank, r.batch.cp_size, settings.rank_of, setting)
                            : files_by_rank(paths, r.batch.cp_size, settings.rank_of, setting);
  };
  if (!settings.files.empty()) {
    r.files = by_rank(first, "rank_files");
  } else {
    r.files = by_rank(first, "rank_files_before");
    r.after_files = by_rank(glob_paths(settings.after), "rank_files_after");
  }
  return r;
}

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
  out.positions_tensor = request.check.dumps.positions_tensor;
  if (out.positions_from_files && !request.batch.sequence_starts.empty()) {  // ranks_request's rule, for every caller
    throw InvalidArgument(
        error_msg("{0} checks each rank at its file's positions, {1} at its positions of the packed batch: give one",
                  option_name("positions_tensor"), option_name("sequence_starts")));
  }
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
    one.dumps.positions_setting = at != nullptr ? "sequence_starts" : "positions_tensor";
    if (at != nullptr) {
      one.dumps.positions = joined(at->positions);
      one.dumps.positions_tensor.clear();
      if (at->local_starts.size() > 2) one.dumps.sequence_starts = joined(at->local_starts);
    } else {
      one.dumps.positions = "@" + request.files[k];
    }
    try {
      return run_check(one);
    } catch (const InvalidArgument& e) {  // the rank and its file named before the rule its check broke
      throw InvalidArgument(error_msg("rank {0} ('{1}'): {2}", rank, escape_controls(request.files[k], kQuotedBytes),
                                      e.message() != nullptr ? *e.message() : Message::same(e.what())));
    } catch (const IoError& e) {
      throw IoError(error_msg("rank {0} ('{1}'): {2}", rank, escape_controls(request.files[k], kQuotedBytes),
                              e.message() != nullptr ? *e.message() : Message::same(e.what())));
    }
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
