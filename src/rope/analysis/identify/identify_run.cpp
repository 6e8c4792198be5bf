// rope identify as one call (identify_run.hpp): the dumps opened, a streamed one sampled to kIdentifyElements,
// the type the dump was computed in, and identify_rope on one-number or per-axis positions.
#include "rope/analysis/identify/identify_run.hpp"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "rope/analysis/check/fast/dump_stream.hpp"
#include "rope/core/error.hpp"

namespace rope {

namespace {

/// IdentifyRun::segment_offsets: each segment's shift, constant over it (the dump's positions, jumps and offset
/// applied, less the given ones), listed where they differ.
std::vector<SegmentOffset> segment_offsets(const LoadedDumps& dumps, const Identification& id) {
  const std::vector<double>& given = dumps.positions;
  if (dumps.segments.size() < 2 || id.dump_positions.size() != given.size()) return {};
  std::vector<SegmentOffset> out;
  bool differ = false;
  for (std::size_t k = 0; k < dumps.segments.size(); ++k) {
    const DumpSegment& seg = dumps.segments[k];
    if (seg.length < 1 || seg.start + seg.length > static_cast<long>(given.size())) return {};
    const auto at = [&](long i) {
      return id.dump_positions[static_cast<std::size_t>(i)] - given[static_cast<std::size_t>(i)];
    };
    const double shift = at(seg.start);
    for (long i = seg.start + 1; i < seg.start + seg.length; ++i) {
      if (at(i) != shift) return {};  // not a constant: jumps within the segment, which the jumps name
    }
    differ = differ || shift != at(dumps.segments.front().start);
    if (shift != 0) out.push_back({static_cast<long>(k), seg.start, shift});
  }
  return differ ? out : std::vector<SegmentOffset>{};
}

/// [3, batch, seq] positions (t, h, w of batch row b at index b·S + i) as a kernel reads the same buffer as [batch, 3,
/// seq]: component k of row b is the flat row 3b + k of [3·batch, seq], component (3b + k) / batch of row (3b + k) mod
/// batch.
std::vector<AxisPosition> batch_rows_as_axes(const std::vector<AxisPosition>& positions, long rows) {
  const long S = static_cast<long>(positions.size()) / rows;
  std::vector<AxisPosition> out = positions;
  for (long b = 0; b < rows; ++b) {
    for (long i = 0; i < S; ++i) {
      AxisPosition& p = out[static_cast<std::size_t>(b * S + i)];
      for (int k = 0; k < 3; ++k) {
        const long flat = 3 * b + k;
        p.value[static_cast<std::size_t>(k)] =
            positions[static_cast<std::size_t>((flat % rows) * S + i)][static_cast<int>(flat / rows)];
      }
    }
  }
  return out;
}

/// The leading sequence indices whose position has several components, all equal (a diffusion transformer's text
/// tokens), when at least two of them share one position; 0 otherwise.
long leading_text_rows(const std::vector<AxisPosition>& positions) {
  if (positions.size() < 2 || positions.front().count < 2) return 0;
  const long rows = equal_component_rows(positions);
  return rows >= 2 && positions[0].value == positions[1].value ? rows : 0;
}

/// A latent grid's text tokens counted 0, 1, 2, … (rope check's text-ids-counted) where the positions given fit no
/// grid: the leading `rows` tokens, or one fewer (the image's first token may share the text's position), counted on
/// one axis or on every axis; the reading whose identification matches a grid with the least residual replaces `id`.
std::optional<IdentifyRun::TextCounted> text_ids_counted(const LoadedDumps& dumps,
                                                         const std::vector<AxisPosition>& positions,
                                                         Identification& id) {
  const long rows = leading_text_rows(positions);
  if (rows < 2 || id.grid || id.vision) return std::nullopt;
  const int axes = positions.front().count;
  std::optional<IdentifyRun::TextCounted> best;
  Identification found;
  for (const long n : {rows, rows - 1}) {
    if (n < 2) continue;
    for (int axis = 0; axis <= axes; ++axis) {  // axis == axes: every axis
      const std::vector<AxisPosition> counted = first_rows_counted(positions, n, axis);
      Identification other;
      try {
        other = identify_rope(dumps.before, dumps.after, counted);
      } catch (const InvalidArgument&) {
        continue;
      }
      if (!other.grid || (best && other.grid->residual >= found.grid->residual)) continue;
      best = IdentifyRun::TextCounted{axis == axes ? -1 : axis, n};
      found = std::move(other);
    }
  }
  if (!best) return std::nullopt;
  const long last = best->tokens - 1;
  found.notes.push_back(
      best->axis < 0
          ? msg("the first {0} tokens (the text: every component of their positions equal) are turned at their order 0 "
                "… {1} on every axis, where the positions given put them all at one position; identified at the "
                "positions so counted (rope check names it text-ids-counted)",
                best->tokens, last)
          : msg("the first {0} tokens (the text: every component of their positions equal) are turned at their order 0 "
                "… {1} on axis {2}, where the positions given put them all at one position; identified at the "
                "positions so counted (rope check names it text-ids-counted)",
                best->tokens, last, std::string(1, "thwe"[std::min(best->axis, 3)])));
  id = std::move(found);
  return best;
}

/// LTX's table spans every head's channels (its processor turns [B, S, H·D] before the heads are split): a dump in
/// heads whose (t, h, w) reading as heads sharing one table names no grid, no M-RoPE map, no vision or XD-RoPE (or
/// whose one-column t of an axis-positions file, LTX-2's audio, fits no family or pairs nothing), read
/// again with its heads side by side (one batch row; H·D at most kMaxIdentifyDim; a streamed dump sampled with every
/// head at each index kept). The reading's identification, with the indices it kept, where it names LTX's table.
struct SideBySide {
  Identification id;
  std::vector<long> kept;  ///< the sequence indices of a streamed dump's sample
};
std::optional<SideBySide> heads_together(const LoadedDumps& dumps, const Identification& id) {
  const DumpVectors& shape = dumps.stream ? dumps.stream->geometry() : dumps.before;
  const long H = shape.heads;
  std::vector<AxisPosition> positions = positions_as_axes(dumps.positions, dumps.axis_positions);
  // (t, h, w) positions: the video's table; one column t of an axis-positions file: LTX-2's audio stream's.
  const bool audio = positions.size() == dumps.axis_positions.size() && !positions.empty() &&
                     positions.front().count == 1 &&
                     (id.layout == PairLayout::None || id.fit.family == Family::PerPair);
  if (H < 2 || shape.batch != 1 || H * shape.d > kMaxIdentifyDim || positions.empty() ||
      (positions.front().count != 3 && !audio) || id.grid || id.vision || id.xdrope ||
      (id.axes && !id.axes->sections.empty()))
    return std::nullopt;
  SideBySide out;
  DumpVectors before, after;
  if (dumps.stream) {
    DumpSample sample = sample_dump(*dumps.stream, kIdentifyElements, true);
    std::vector<AxisPosition> kept_positions;
    for (const long i : sample.indices) kept_positions.push_back(positions[static_cast<std::size_t>(i)]);
    positions = std::move(kept_positions);
    before = std::move(sample.before), after = std::move(sample.after);
    out.kept = std::move(sample.indices);
  } else {
    before = dumps.before, after = dumps.after;
  }
  for (DumpVectors* v : {&before, &after}) v->d *= static_cast<int>(v->heads), v->heads = 1;  // [seq][heads·d]
  try {
    out.id = identify_rope(before, after, positions);
  } catch (const InvalidArgument&) {
    return std::nullopt;
  }
  if (!out.id.grid || !out.id.grid->per_frequency) return std::nullopt;
  out.id.notes.push_back(
      msg("the {0} heads of {1} channels read side by side, one vector of {2} channels per token: read as heads "
          "sharing one table they fit none, and LTX's table spans every head's channels (its processor turns the "
          "[batch, seq, heads·d] query before splitting the heads)",
          H, shape.d, H * shape.d));
  return out;
}

/// The largest ratio of query heads to key heads tried for k read with q's head count (GQA's groups: 8 in Llama 3 70B,
/// 16 in some).
constexpr long kMaxQueryHeadRatio = 16;

/// The largest RMS angle residual (rad) of a pair that a reading of the positions may leave: a float32 angle's own
/// error at position 131071 is 0.008 rad, the residual of a wrong reading a good part of a radian.
constexpr double kReadingResidual = 0.05;

/// rope check's k-with-query-heads (ColossalAI PR #6429: `k_head_num = q.shape[1]`, q's token
/// stride for k): k's buffer [T, H_k, d] walked as [T·H_k/H_q, H_q, d], so key (t, h), the flat vector t·H_k + h, is
/// turned at the position of index ⌊(t·H_k + h) / H_q⌋. Where the positions given do not fit a dump of one batch row
/// and several heads, each H_q = r·H_k (r = 2 … 16, at least two indices of the walk) is tried: the dump as T·H_k
/// vectors of one head at those positions. Of the readings whose identification has its positions as read (no
/// offset, jump, hold or head of its own) and pairs its channels, the one whose worst pair's angle residual is the
/// least, where that is within kReadingResidual, is the reading: its H_q, else 0.
long query_heads_reading(const LoadedDumps& dumps, Identification* id) {
  const DumpVectors& before = dumps.before;
  const long T = before.seq, H = before.heads;
  if (before.batch != 1 || H < 2 || !dumps.axis_positions.empty() || static_cast<long>(dumps.positions.size()) != T)
    return 0;
  DumpVectors b = before, a = dumps.after;
  for (DumpVectors* v : {&b, &a}) v->seq = T * H, v->heads = 1;
  long best = 0;
  double least = kReadingResidual;
  for (long r = 2; r <= kMaxQueryHeadRatio && 2 * r <= T; ++r) {
    const long hq = r * H;
    std::vector<double> walked(static_cast<std::size_t>(T * H));
    for (long f = 0; f < T * H; ++f)
      walked[static_cast<std::size_t>(f)] = dumps.positions[static_cast<std::size_t>(f / hq)];
    Identification read;
    try {
      read = identify_rope(b, a, walked);
    } catch (const InvalidArgument&) {
      continue;  // a reading that leaves nothing to identify (every position so read 0)
    }
    if (read.layout == PairLayout::None || read.position_offset != 0 || !read.jumps.empty() || read.held_from >= 0 ||
        !read.group_offsets.empty() || read.reversed || read.angle_residual.size() == 0)
      continue;
    const double worst = read.angle_residual.maxCoeff();
    if (!(worst <= least)) continue;
    least = worst, best = hq;
    *id = std::move(read);
  }
  if (best > 0) {
    id->notes.push_back(
        msg("the keys are turned at the positions of q's head count: k's {0} heads walked as {1} (k's buffer read as "
            "[T·{0}/{1}, {1}, d]), key (t, h) at the position of index ⌊(t·{0} + h) / {1}⌋; identified at the "
            "positions so read ({2} names it k-with-query-heads)",
            H, best, "rope check " + option_name("k_before")));
  }
  return best;
}

/// The whole reading of dumps opened or arranged: the identification at the positions given, then each reading of
/// them that explains what those positions leave unexplained (M-RoPE's batch rows, text ids counted, heads side by
/// side, one turn, q's head count) and the segments' shifts.
IdentifyRun identify_loaded(LoadedDumps dumps, const std::optional<DType>& dtype) {
  IdentifyRun run;
  require_identify_dim(dumps.before.d);  // from the shape, before a streamed dump's sample is read
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
  if (dtype) {  // the rounding of the type the dump was computed in, whatever the file stores
    for (DumpVectors* v : {&dumps.before, &dumps.after}) {
      v->dtype = *dtype;
      v->dtype_stated = true;
    }
  }
  Identification id = identify_rope(dumps.before, dumps.after, positions);
  const long all_seq = static_cast<long>(dumps.positions.size());
  // M-RoPE's position_ids [3, batch, seq] read by the kernel as [batch, 3, seq] (the same buffer; rope check's
  // mrope-batch-rows): when the t, h, w given fit no axis map, the positions as such a kernel reads them.
  const long rows = static_cast<long>(dumps.segments.size());
  if (id.axes && id.axes->sections.empty() && dumps.segments_are_rows && rows > 1 &&
      static_cast<long>(positions.size()) == all_seq && !positions.empty() && positions.front().count >= 3 &&
      std::all_of(dumps.segments.begin(), dumps.segments.end(),
                  [&](const DumpSegment& g) { return g.length * rows == all_seq; })) {
    Identification misread = identify_rope(dumps.before, dumps.after, batch_rows_as_axes(positions, rows));
    if (misread.axes && !misread.axes->sections.empty()) {
      misread.notes.push_back(
          msg("the positions are M-RoPE's position_ids [3, batch, seq] read as [batch, 3, seq] ({0} batch rows): row "
              "b's t, h, w are rows 3b, 3b + 1, 3b + 2 of the flattened [3·batch, seq]; identified at the positions so "
              "read",
              rows));
      id = std::move(misread);
      run.mrope_batch_rows = rows;
    }
  }
  if (run.mrope_batch_rows == 0) run.text_counted = text_ids_counted(dumps, positions, id);
  if (run.mrope_batch_rows == 0 && !run.text_counted) {
    if (std::optional<SideBySide> together = heads_together(dumps, id)) {
      const DumpVectors& shape = dumps.stream ? dumps.stream->geometry() : dumps.before;
      run.heads_together = IdentifyRun::HeadsTogether{shape.heads, shape.d};
      id = std::move(together->id);
      if (dumps.stream) kept = std::move(together->kept), groups_kept = dumps.stream->groups();
    }
  }
  const bool whole =
      !dumps.stream || (static_cast<long>(kept.size()) == all_seq && groups_kept == dumps.stream->groups());
  // Every key turned by one angle per pair where the positions given differ (a K cache moved by one shift).
  if (whole && dumps.axis_positions.empty() && run.mrope_batch_rows == 0 && !run.text_counted)
    run.one_turn = one_turn_reading(dumps.before, dumps.after, dumps.positions, id);
  // An offset, jumps or a hold that explain every pair, the same for every head, are their own reading: the walks of
  // q's head count (which turn each head at positions of its own) are tried only where heads differ or a pair is left
  // unexplained (each walk is a whole identification: 15 of them made a plain off-by-one dump 15× dearer).
  // Read at the given positions, such keys advance r times too slowly, each head offset from the others: their
  // frequencies fit a linear scaling (factor r) or their heads turn at offsets of their own.
  const bool walk_likely = !id.group_offsets.empty() || (!id.fits.empty() && id.fit.family == Family::Linear);
  const bool offset_alone = !walk_likely || (id.layout != PairLayout::None && id.angle_residual.size() > 0 &&
                                             id.angle_residual.maxCoeff() <= kReadingResidual);
  if (whole && run.mrope_batch_rows == 0 && !run.one_turn && !offset_alone &&
      (id.position_offset != 0 || !id.jumps.empty() || id.held_from >= 0 || !id.group_offsets.empty())) {
    run.query_heads = query_heads_reading(dumps, &id);
  }
  if (dumps.stream && (static_cast<long>(kept.size()) < all_seq || groups_kept < dumps.stream->groups())) {
    for (long& j : id.jumps) j = kept[static_cast<std::size_t>(j)];  // indices of the sample → of the dump
    id.notes.push_back(
        msg("identified from a sample of the files: {0} of {1} sequence indices, {2} of {3} heads (rope identify "
            "holds at most {4} elements of each dump)",
            kept.size(), all_seq, groups_kept, dumps.stream->groups(), kIdentifyElements));
  }
  // One turn for every key: each key a shift of its own against the given positions, which the one δ says.
  if ((!dumps.stream || kept.size() == dumps.positions.size()) && !run.one_turn)
    run.segment_offsets = segment_offsets(dumps, id);
  drop_values(dumps);
  run.dumps = std::move(dumps);
  run.id = std::move(id);
  return run;
}

IdentifyRun identify_files(const IdentifyRequest& request) {
  IdentifyRun run = identify_loaded(open_dumps(request.dumps), request.dtype);
  run.before_file = request.dumps.before;
  run.after_file = request.dumps.after;
  return run;
}

/// 4 axes read as Hugging Face's [batch, heads, seq, d] without the axes given, and no pairing turns the vectors of a
/// sequence index alike: the other reading, [batch, seq, heads, d], and the one that pairs is the report (its axes
/// said assumed, dump_text.hpp), as run_check does. `identify_as` identifies the dumps read with the axes it is given.
template <class IdentifyAs>
IdentifyRun with_other_axes(IdentifyRun run, bool axes_given, const IdentifyAs& identify_as) {
  if (run.id.layout != PairLayout::None || !run.dumps.axes_assumed || axes_given) return run;
  try {
    IdentifyRun as_other = identify_as(DumpAxes::BatchSeqHeadsD);
    if (as_other.id.layout == PairLayout::None) return run;
    as_other.dumps.axes_assumed = true;
    return as_other;
  } catch (const InvalidArgument&) {
    return run;
  }
}

}  // namespace

IdentifyRun run_identify(const IdentifyRequest& request) {
  return with_other_axes(identify_files(request), !request.dumps.axes.empty(), [&](DumpAxes axes) {
    IdentifyRequest other = request;
    other.dumps.axes = std::string(to_string(axes));
    return identify_files(other);
  });
}

IdentifyRun identify_arranged(DumpPair pair) { return identify_loaded(arranged_dumps(std::move(pair)), std::nullopt); }

IdentifyRun identify_tensors(const TensorData& before, const TensorData& after, const DumpPairInput& input) {
  const auto identify_as = [&](std::optional<DumpAxes> axes) {
    DumpPairInput in = input;
    in.axes = axes;
    return identify_arranged(arrange_dump_pair(before, after, in, "before", "after"));
  };
  return with_other_axes(identify_as(input.axes), input.axes.has_value(),
                         [&](DumpAxes axes) { return identify_as(axes); });
}

}  // namespace rope
