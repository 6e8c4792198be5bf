// rope identify as one call (identify_run.hpp): the dumps opened, a streamed one sampled to kIdentifyElements,
// the type the dump was computed in, and identify_rope on one-number or per-axis positions.
#include "rope/analysis/identify/identify_run.hpp"

#include <utility>

#include "rope/analysis/dumps/dump_stream.hpp"
#include "rope/core/error.hpp"

namespace rope {

namespace {

IdentifyRun identify_files(const IdentifyRequest& request) {
  IdentifyRun run;
  run.before_file = request.dumps.before;
  run.after_file = request.dumps.after;
  LoadedDumps dumps = open_dumps(request.dumps);
  // M-RoPE: a position per axis (t, h, w(, e)), from axis positions or a [3, batch, seq] tensor; else one number.
  std::vector<AxisPosition> positions = positions_as_axes(dumps.positions, dumps.axis_positions);
  std::vector<long> kept;  // streamed: the sequence indices of the sample
  long groups_kept = 0;
  if (dumps.stream) {
    // Memory bounded whatever the files' size: every index of the first heads, or windows of indices (dump_stream.hpp).
    DumpSample sample = sample_dump(*dumps.stream, kIdentifyElements);
    std::vector<AxisPosition> kept_positions;
    for (const long i : sample.indices) kept_positions.push_back(positions[static_cast<std::size_t>(i)]);
    positions = std::move(kept_positions);
    dumps.before = std::move(sample.before);
    dumps.after = std::move(sample.after);
    kept = std::move(sample.indices);
    groups_kept = sample.groups;
  }
  if (request.dtype) {  // the rounding of the type the dump was computed in, whatever the file stores
    for (DumpVectors* v : {&dumps.before, &dumps.after}) {
      v->dtype = *request.dtype;
      v->dtype_stated = true;
    }
  }
  Identification id = identify_rope(dumps.before, dumps.after, positions);
  const long all_seq = static_cast<long>(dumps.positions.size());
  if (dumps.stream && (static_cast<long>(kept.size()) < all_seq || groups_kept < dumps.stream->groups())) {
    for (long& j : id.jumps) j = kept[static_cast<std::size_t>(j)];  // indices of the sample → of the dump
    id.notes.push_back(
        msg("identified from a sample of the files: {0} of {1} sequence indices, {2} of {3} heads (rope identify "
            "holds at most {4} elements of each dump)",
            kept.size(), all_seq, groups_kept, dumps.stream->groups(), kIdentifyElements));
  }
  drop_values(dumps);
  run.dumps = std::move(dumps);
  run.id = std::move(id);
  return run;
}

}  // namespace

IdentifyRun run_identify(const IdentifyRequest& request) {
  IdentifyRun run = identify_files(request);
  // 4 axes read as Hugging Face's [batch, heads, seq, d] without --axes, and no pairing turns the vectors of a
  // sequence index alike: the other reading, [batch, seq, heads, d], and the one that pairs is the report (its axes
  // said assumed, dump_text.hpp), as run_check does.
  if (run.id.layout != PairLayout::None || !run.dumps.axes_assumed || !request.dumps.axes.empty()) return run;
  IdentifyRequest other = request;
  other.dumps.axes = std::string(to_string(DumpAxes::BatchSeqHeadsD));
  try {
    IdentifyRun as_other = identify_files(other);
    if (as_other.id.layout == PairLayout::None) return run;
    as_other.dumps.axes_assumed = true;
    return as_other;
  } catch (const InvalidArgument&) {
    return run;
  }
}

IdentifyRun identify_arranged(DumpPair pair) {
  IdentifyRun run;
  // M-RoPE positions (t, h, w(, e) per index): each pair's axis and the sections; a tower's patches (row, column):
  // the 2-D vision kind (identify_vision.cpp).
  run.id = pair.axis_positions.empty() ? identify_rope(pair.before, pair.after, pair.positions)
                                       : identify_rope(pair.before, pair.after, pair.axis_positions);
  run.dumps = arranged_geometry(std::move(pair));
  return run;
}

}  // namespace rope
