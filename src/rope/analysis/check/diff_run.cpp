// rope diff as one call (diff_run.hpp): both outputs opened (streamed when their files allow it), the expectation
// from check's settings, the diff of dump_diff.hpp, and for a layer without RoPE what rotated either side.
#include "rope/analysis/check/diff_run.hpp"

#include <algorithm>
#include <array>

#include "rope/core/error.hpp"
#include "rope/io/tensor_file.hpp"
#include "rope/io/tensor_stream.hpp"
#include "rope/core/utf8.hpp"
#include "rope/models/layer_types.hpp"

namespace rope {
namespace {

/// Both outputs must have one shape: said before either is read whole.
void require_same_shape(const DiffRequest& request) {
  if (!TensorStream::streamable(request.dumps.after) || !TensorStream::streamable(request.after_b)) return;
  TensorReadOptions read;
  read.bf16_bits = request.dumps.bf16_bits, read.tensor = request.dumps.tensor;
  const std::vector<long> a = TensorStream::open(request.dumps.after, read).header().shape;
  const std::vector<long> b = TensorStream::open(request.after_b, read).header().shape;
  if (a != b) {
    throw InvalidArgument(error_msg("{0} '{1}' has shape {2}, {3} '{4}' has {5}: they must be equal",
                                    option_name("after_b"), escape_controls(request.after_b, kQuotedBytes),
                                    shape_string(b), option_name("after_a"),
                                    escape_controls(request.dumps.after, kQuotedBytes), shape_string(a)));
  }
}

/// The sequence indices [s0, s1) of a dump held in memory.
DumpVectors diff_rows(const DumpVectors& v, long s0, long s1) {
  DumpVectors out = v;
  const long per = v.groups() * v.d;
  out.seq = s1 - s0;
  out.values.assign(v.values.begin() + s0 * per, v.values.begin() + s1 * per);
  return out;
}

/// One side of the diff: its two dumps in memory, or read from their files in pieces (open_dumps).
struct Side {
  Side(const DumpFiles& files, const std::optional<DType>& dtype) : dumps(open_dumps(files)) {
    if (dtype) dumps.after.dtype = dumps.before.dtype = *dtype;
    if (dtype && dumps.stream) dumps.stream->set_dtype(*dtype);
    if (!dumps.stream) memory.emplace(dumps.before, dumps.after);  // refers to `dumps`: a Side is never copied or moved
  }
  Side(const Side&) = delete;
  Side& operator=(const Side&) = delete;
  LoadedDumps dumps;
  std::optional<MemorySource> memory;
  const DumpSource& source() const { return dumps.stream ? static_cast<const DumpSource&>(*dumps.stream) : *memory; }
  /// The dumps at the sequence indices [s0, s1): before and after.
  std::pair<DumpVectors, DumpVectors> read(long s0, long s1) const {
    if (dumps.stream) {
      std::vector<long> indices;
      for (long s = s0; s < s1; ++s) indices.push_back(s);
      return dumps.stream->read(indices, dumps.stream->groups());
    }
    return {diff_rows(dumps.before, s0, s1), diff_rows(dumps.after, s0, s1)};
  }
};

}  // namespace

DiffRun run_diff(const DiffRequest& request) {
  const CheckSettings& s = request.settings;
  require_same_shape(request);
  DumpFiles b_files = request.dumps;
  b_files.after = request.after_b;
  // Both sides left on disk when their files allow it (.npy, safetensors): memory holds a block at a time.
  Side side_a(request.dumps, s.dtype), side_b(b_files, s.dtype);
  const LoadedDumps& a = side_a.dumps;
  DiffRun run;
  run.before_file = request.dumps.before;
  run.after_a_file = request.dumps.after;
  run.after_b_file = request.after_b;
  run.name_a = request.name_a;
  run.name_b = request.name_b;
  double max_position = 0;
  for (const double p : a.positions) max_position = std::max(max_position, p);
  for (const AxisPosition& p : a.axis_positions) max_position = std::max(max_position, p.max_abs());
  // A layer without RoPE (a layer type of NoPE or linear-attention layers): both outputs should be the input unchanged.
  run.nope = layers_without_rope(s.source, s.rope);
  const auto& nope = run.nope;
  const RopeExpectation e =
      nope ? unchanged_expectation(a.after.d, s)
           : expectation_from_settings(s, a.after.d, !a.axis_positions.empty(), max_position, run.where);
  const std::vector<AxisPosition> positions = positions_as_axes(a.positions, a.axis_positions);
  const DiffReader read = [&](long s0, long s1) {
    auto [before, after_a] = side_a.read(s0, s1);
    return std::array<DumpVectors, 3>{std::move(before), std::move(after_a), side_b.read(s0, s1).second};
  };
  run.diff = diff_sources(side_a.source(), side_b.source(), read, positions, e, a.segments, a.segments_are_rows);
  if (nope) {  // what rotated a side that should be unchanged, on the whole and on each run (dump_diff.hpp)
    diagnose_no_rope_diff(run.diff, side_a.source(), side_b.source(), positions, e,
                          rope_of_other_layers(s, a.after.d, !a.axis_positions.empty(), max_position),
                          escape_controls(nope->model), escape_controls(nope->layer_type),
                          describe_layers(nope->layers));
  }
  run.b_type = side_b.dumps.after.dtype;
  // The dumps' values are the diff's input, not the report's: the report keeps A's geometry and positions.
  run.dumps = std::move(side_a.dumps);
  run.dumps.before.values = {};
  run.dumps.after.values = {};
  run.dumps.stream.reset();
  run.expected = e;
  return run;
}

DiffRun diff_arranged(DumpPair a, const DumpVectors& after_b, const RopeExpectation& expected,
                      const std::string& name_a, const std::string& name_b) {
  const std::vector<AxisPosition> positions = a.check_positions();
  const MemorySource source_a(a.before, a.after), source_b(a.before, after_b);
  const DiffReader read = [&](long s0, long s1) {
    return std::array<DumpVectors, 3>{diff_rows(a.before, s0, s1), diff_rows(a.after, s0, s1),
                                      diff_rows(after_b, s0, s1)};
  };
  DiffRun run;
  run.name_a = name_a;
  run.name_b = name_b;
  run.diff = diff_sources(source_a, source_b, read, positions, expected, a.segments, a.segments_are_rows);
  run.b_type = after_b.dtype;
  run.expected = expected;
  run.dumps = arranged_geometry(std::move(a));
  return run;
}

}  // namespace rope
