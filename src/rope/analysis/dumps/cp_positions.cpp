// The positions of one context-parallel rank (cp_positions.hpp).
#include "rope/analysis/dumps/cp_positions.hpp"

#include "rope/core/error.hpp"
#include "rope/core/message.hpp"

namespace rope {

std::string_view to_string(CpLayout layout) {
  switch (layout) {
    case CpLayout::Zigzag:
      return "zigzag";
    case CpLayout::RoundRobin:
      return "round-robin";
    case CpLayout::Contiguous:
      return "contiguous";
  }
  return "?";
}

std::optional<CpLayout> parse_cp_layout(std::string_view name) {
  for (const CpLayout l : {CpLayout::Zigzag, CpLayout::RoundRobin, CpLayout::Contiguous}) {
    if (name == to_string(l)) return l;
  }
  return std::nullopt;
}

void check_cp_batch(const CpPositionsRequest& request) {
  const std::vector<long>& s = request.sequence_starts;
  const std::string starts = option_name("sequence_starts");
  if (s.size() < 2 || s.front() != 0) {
    throw InvalidArgument(error_msg(
        "{0}: give 0, the start of each later sequence and the total (cu_seqlens), at least two numbers", starts));
  }
  for (std::size_t i = 1; i < s.size(); ++i) {
    if (s[i] <= s[i - 1])
      throw InvalidArgument(error_msg("{0}: the starts must increase ({1} after {2})", starts, s[i], s[i - 1]));
  }
  if (s.back() > kMaxCpTokens) {
    throw InvalidArgument(
        error_msg("{0}: {1} tokens in the packed batch, more than the {2} allowed", starts, s.back(), kMaxCpTokens));
  }
  const long cp = request.cp_size, rank = request.cp_rank;
  if (cp < 1 || cp > kMaxCpSize) {
    throw InvalidArgument(error_msg("{0} must be between 1 and {1} (got {2})", option_name("cp_size"), kMaxCpSize, cp));
  }
  if (rank < 0 || rank >= cp) {
    throw InvalidArgument(
        error_msg("{0} must be between 0 and {1} − 1 = {2} (got {3})", option_name("cp_rank"), cp, cp - 1, rank));
  }
  for (std::size_t i = 0; i + 1 < s.size(); ++i) {
    const long length = s[i + 1] - s[i];
    const long parts = request.layout == CpLayout::Zigzag ? 2 * cp : request.layout == CpLayout::Contiguous ? cp : 1;
    if (length % parts != 0) {
      throw InvalidArgument(error_msg(
          "{0}: sequence {1} has {2} tokens, not divisible by {3} = {4}: the {5} layout splits every sequence evenly",
          starts, static_cast<long>(i), length, request.layout == CpLayout::Zigzag ? "2 · cp" : "cp", parts,
          to_string(request.layout)));
    }
  }
}

CpPositions cp_positions(const CpPositionsRequest& request) {
  check_cp_batch(request);
  const std::vector<long>& s = request.sequence_starts;
  const long cp = request.cp_size, rank = request.cp_rank;
  CpPositions out;
  out.request = request;
  const auto take = [&](long seq, long first, long count) {  // tokens [first, first + count) of sequence seq
    for (long t = first; t < first + count; ++t) {
      out.tokens.push_back(t);
      out.positions.push_back(t - s[static_cast<std::size_t>(seq)]);
      out.sequence.push_back(seq);
    }
  };
  out.local_starts.push_back(0);
  for (std::size_t i = 0; i + 1 < s.size(); ++i) {
    const long start = s[i], length = s[i + 1] - s[i], seq = static_cast<long>(i);
    const long parts = request.layout == CpLayout::Zigzag ? 2 * cp : request.layout == CpLayout::Contiguous ? cp : 1;
    if (request.layout == CpLayout::Zigzag) {
      const long chunk = length / parts;
      take(seq, start + rank * chunk, chunk);
      take(seq, start + (2 * cp - 1 - rank) * chunk, chunk);
    } else if (request.layout == CpLayout::Contiguous) {
      const long slice = length / parts;
      take(seq, start + rank * slice, slice);
    } else {  // the packed batch's token g on rank g mod cp: the first token of this sequence on the rank
      const long first = start + ((rank - start % cp) % cp + cp) % cp;
      for (long g = first; g < s[i + 1]; g += cp) take(seq, g, 1);
    }
    const long local = static_cast<long>(out.tokens.size());
    if (local > out.local_starts.back()) out.local_starts.push_back(local);  // a sequence with no token here: none
  }
  return out;
}

}  // namespace rope
