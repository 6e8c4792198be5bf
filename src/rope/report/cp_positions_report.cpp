// The printers of a context-parallel rank's positions (cp_positions_report.hpp).
#include "rope/report/cp_positions_report.hpp"

#include <cstdint>
#include <fmt/format.h>

#include "rope/core/message.hpp"
#include "rope/report/json.hpp"
#include "rope/report/text.hpp"

namespace rope {

namespace {

/// At most this many positions of one sequence are printed; JSON and --npy hold them all.
constexpr std::size_t kPrintedPerSequence = 48;

std::string joined(const std::vector<long>& v, std::size_t first, std::size_t end, const char* sep) {
  std::string s;
  for (std::size_t i = first; i < end; ++i) s += (i > first ? sep : "") + std::to_string(v[i]);
  return s;
}

}  // namespace

Value cp_positions_value(const CpPositions& run) {
  Value v = Value::object();
  v["cp_size"] = run.request.cp_size;
  v["cp_rank"] = run.request.cp_rank;
  v["layout"] = std::string(to_string(run.request.layout));
  v["sequence_starts"] = run.request.sequence_starts;
  v["positions"] = run.positions;
  v["local_sequence_starts"] = run.local_starts;
  return v;
}

void print_cp_positions(std::ostream& out, const CpPositions& run, const Text& t) {
  const CpPositionsRequest& r = run.request;
  const long cp = r.cp_size;
  if (r.layout == CpLayout::Zigzag) {
    out << t.tr(
        "rank {0} of {1}, zigzag: each sequence cut into {2} chunks, the rank holds chunks {0} and {3} "
        "(Megatron-LM, TransformerEngine)\n",
        r.cp_rank, cp, 2 * cp, 2 * cp - 1 - r.cp_rank);
  } else if (r.layout == CpLayout::RoundRobin) {
    out << t.tr("rank {0} of {1}, round-robin: token g of the packed batch on rank g mod {1} (SGLang)\n", r.cp_rank,
                cp);
  } else {
    out << t.tr("rank {0} of {1}, contiguous: each sequence cut into {1} slices, the rank holds slice {0}\n", r.cp_rank,
                cp);
  }
  const long sequences = static_cast<long>(r.sequence_starts.size()) - 1;
  out << t.tr("packed batch: {0} sequences, {1} tokens (sequence starts {2})\n", sequences, r.sequence_starts.back(),
              joined(r.sequence_starts, 0, r.sequence_starts.size(), ","));
  out << t.tr(
      "this rank: {0} tokens, each at its position within its own sequence; its own sequence starts {1} "
      "({2} for a check of this rank's dump)\n",
      run.positions.size(), joined(run.local_starts, 0, run.local_starts.size(), ","), option_name("sequence_starts"));
  std::size_t k = 0;
  for (long seq = 0; seq < sequences; ++seq) {
    const std::size_t first = k;
    while (k < run.sequence.size() && run.sequence[k] == seq) ++k;
    if (k == first) {
      out << t.tr("  sequence {0}: no token on this rank\n", seq);
      continue;
    }
    const std::size_t shown = std::min(k, first + kPrintedPerSequence);
    out << t.tr("  sequence {0}: {1}{2}\n", seq, joined(run.positions, first, shown, " "),
                shown < k ? t.tr(" … ({0} more)", k - shown) : std::string());
  }
}

std::string cp_positions_npy(const CpPositions& run) {
  std::string header =
      fmt::format("{{'descr': '<i8', 'fortran_order': False, 'shape': ({},), }}", run.positions.size());
  const std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  for (const long p : run.positions) {
    const auto u = static_cast<std::uint64_t>(static_cast<std::int64_t>(p));
    for (int b = 0; b < 8; ++b) out += static_cast<char>((u >> (8 * b)) & 0xff);
  }
  return out;
}

}  // namespace rope
