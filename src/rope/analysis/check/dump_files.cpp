// Reading a pair of dumps (dump_files.hpp): the files, their positions as typed or read, arranged by dump_pair.hpp.
#include "rope/analysis/check/dump_files.hpp"

#include <cctype>
#include <utility>
#include <filesystem>
#include <fmt/format.h>

#include "rope/analysis/dumps/dump_pair.hpp"
#include "rope/analysis/dumps/dump_positions.hpp"
#include "rope/core/error.hpp"
#include "rope/io/csv.hpp"
#include "rope/io/tensor_directory.hpp"
#include "rope/io/tensor_file.hpp"
#include "rope/io/text_file.hpp"
#include "rope/core/utf8.hpp"

namespace rope {

namespace {

/// The file a --positions or --sequence-starts value names: @FILE, or a path that exists.
std::optional<std::string> named_file(const std::string& text) {
  if (!text.empty() && text[0] == '@') return text.substr(1);
  std::error_code error;
  if (std::filesystem::exists(text, error)) return text;
  return std::nullopt;
}

/// A list typed on the command line; a text that looks like a path (a '/' or an extension such as ".npy") and
/// names no file gets the error that says how a file is named.
std::vector<double> typed_list(const std::string& text, const std::string& what) {
  bool path = text.find('/') != std::string::npos;
  for (std::size_t i = 0; i + 1 < text.size(); ++i)
    path = path || (text[i] == '.' && std::isalpha(static_cast<unsigned char>(text[i + 1])));
  if (path) {
    throw InvalidArgument(
        error_msg("{0} '{1}' is neither a list of numbers nor a file that exists (name a file as "
                  "@FILE or by its path)",
                  what, escape_controls(text, kQuotedBytes)));
  }
  return parse_list_argument(text, what);
}

/// The setting sequence_starts: a list or a file of one row.
std::vector<double> sequence_starts(const std::string& text) {
  const std::string what = option_name("sequence_starts");
  if (const auto file = named_file(text)) {
    const DumpPositions p = read_positions_file(*file, what + " file");
    if (p.rows != 1 || p.components != 1) {
      throw InvalidArgument(error_msg("{0} file '{1}' has shape {2}: sequence starts are one row of indices", what,
                                      escape_controls(*file, kQuotedBytes), shape_string(p.shape)));
    }
    std::vector<double> v;
    for (const AxisPosition& a : p.values) v.push_back(a.value[0]);
    return v;
  }
  return typed_list(text, what);
}

}  // namespace

namespace {

LoadedDumps load(const DumpFiles& files, bool streamed) {
  DumpFiles one = files;
  if (files.one_dump) {
    one.after = files.before;
    one.after_tensor = files.before_tensor;
    one.after_directory = files.before_directory;
  }
  const DumpFiles& o = one;
  TensorReadOptions read, read_after;
  read.bf16_bits = o.bf16_bits;
  read.tensor = o.before_tensor.empty() ? o.tensor : o.before_tensor;
  read_after = read;
  read_after.tensor = o.after_tensor.empty() ? o.tensor : o.after_tensor;
  // A file opened once for the run (run_check_layers) is read through its directory, the others by their paths.
  const auto streamable = [](const std::string& path, const std::shared_ptr<const TensorDirectory>& d) {
    return d ? d->streamable() : TensorStream::streamable(path);
  };
  const auto stream = [](const std::string& path, const std::shared_ptr<const TensorDirectory>& d,
                         const TensorReadOptions& options) {
    return d ? d->stream(options) : TensorStream::open(path, options);
  };
  const auto whole = [](const std::string& path, const std::shared_ptr<const TensorDirectory>& d,
                        const TensorReadOptions& options) {
    return d ? d->read(options) : read_tensor_file(path, options);
  };
  streamed = streamed && !o.merge_heads_first && streamable(o.before, o.before_directory) &&
             streamable(o.after, o.after_directory);
  std::optional<TensorStream> before_stream, after_stream;
  TensorData before, after;  // read whole; or their shapes alone when streamed
  if (streamed) {
    before_stream = stream(o.before, o.before_directory, read);
    after_stream = stream(o.after, o.after_directory, read_after);
    before.shape = before_stream->header().shape, before.dtype = before_stream->header().dtype;
    after.shape = after_stream->header().shape, after.dtype = after_stream->header().dtype;
    after.stored = after_stream->header().stored;
  } else {
    before = whole(o.before, o.before_directory, read);
    after = whole(o.after, o.after_directory, read_after);
  }
  const std::string before_name = escape_controls(o.before, kQuotedBytes),
                    after_name = escape_controls(o.after, kQuotedBytes);
  // A dump whose last axis is several heads, read by its head size: a flat [tokens, heads·d] dump (vLLM's and
  // SGLang's rotary inputs and outputs) viewed [tokens, heads, d]; a [batch, seq, heads·d] one (ONNX's
  // RotaryEmbedding with num_heads, onnxruntime's) viewed [batch, seq, heads, d]. The same elements in both.
  std::vector<long> view;
  if (o.head_dim != 0 && (o.head_dim < 2 || o.head_dim % 2 != 0 || o.head_dim > kMaxDim)) {
    throw InvalidArgument(error_msg("{0} {1}: a head has an even number of channels, 2 … {2}", option_name("head_dim"),
                                    o.head_dim, kMaxDim));
  }
  if (o.head_dim > 0 && !after.shape.empty() && after.shape.back() != o.head_dim) {
    if (after.shape.size() == 4) {
      throw InvalidArgument(error_msg("{0} {1}: the dump's shape {2} has 4 axes, its heads already apart, and d = {3}",
                                      option_name("head_dim"), o.head_dim, shape_string(after.shape),
                                      after.shape.back()));
    }
    if (after.shape.back() % o.head_dim != 0) {
      throw InvalidArgument(error_msg("{0} {1} does not divide the last axis of the dump's shape {2}",
                                      option_name("head_dim"), o.head_dim, shape_string(after.shape)));
    }
    view = after.shape;
    view.back() /= o.head_dim;
    view.push_back(o.head_dim);
    if (view.size() == 4 && !o.axes.empty() && parse_dump_axes(o.axes) != DumpAxes::BatchSeqHeadsD) {
      throw InvalidArgument(error_msg("{0} {1} reads the dump's shape {2} as [batch, seq, heads, d]: leave out {3}",
                                      option_name("head_dim"), o.head_dim, shape_string(after.shape),
                                      option_name("axes")));
    }
    if (before.shape == after.shape) before.shape = view;
    after.shape = view;
  }
  // A dump of heads apart whose model turns them as one vector (LTX-Video): its last two axes are one, the same
  // elements in the same order (C order), [.., heads, d] viewed [.., 1, heads·d].
  if (o.merge_heads && after.shape.size() >= 3) {
    view = after.shape;
    const long merged = view[view.size() - 2] * view.back();
    view[view.size() - 2] = 1;
    view.back() = merged;
    if (before.shape == after.shape) before.shape = view;
    after.shape = view;
  }
  // The positions as typed or read; the library arranges the dumps with them (analysis/dumps/dump_pair.hpp).
  DumpPairInput input;
  LoadedDumps l;
  if (!o.positions_tensor.empty() && (o.positions.empty() || !named_file(o.positions))) {
    throw InvalidArgument(error_msg("{0} names a tensor of a positions file: give {1} @FILE",
                                    option_name("positions_tensor"), option_name("positions")));
  }
  l.stored = after.stored;
  if (!o.axis_positions.empty()) {
    if (!o.positions.empty()) {
      throw InvalidArgument(
          error_msg("give {0} or {1}, not both", option_name("positions"), option_name("axis_positions")));
    }
  }
  const std::optional<DumpPositions> axis_table =
      o.axis_positions.empty() ? std::nullopt
                               : read_axis_positions_tensor(o.axis_positions, option_name("axis_positions") + " file");
  if (axis_table) {  // a tensor file: as --positions reads one, every component kept
    input.axis_positions = axis_table->values;
    for (const AxisPosition& p : axis_table->values) input.positions.push_back(p.value[0]);
    input.rows = axis_table->rows;
    input.row_length = axis_table->seq;
    input.positions_setting = "axis_positions";
    l.positions_text = fmt::format("{} {}", o.axis_positions, shape_string(axis_table->shape));
  } else if (!o.axis_positions.empty()) {
    input.axis_positions = parse_axis_position_rows(
        read_text_file(o.axis_positions, option_name("axis_positions") + " file", kMaxAxisPositionsBytes),
        fmt::format("{} '{}'", option_name("axis_positions"), escape_controls(o.axis_positions, kQuotedBytes)),
        static_cast<std::size_t>(kMaxDumpPositions), &l.axis_names);
    for (const AxisPosition& p : input.axis_positions) {
      if (!(p.max_abs() <= 16777216.0)) {
        throw InvalidArgument(error_msg("{0}: {1} is outside [-2^24, 2^24]", option_name("axis_positions"), p.text()));
      }
      input.positions.push_back(p.value[0]);
    }
    input.positions_setting = "axis_positions";
    l.positions_text = o.axis_positions;
  } else if (const auto file = o.positions.empty() ? std::nullopt : named_file(o.positions)) {
    const DumpPositions table =
        read_positions_file(*file, option_name(o.positions_setting) + " file", o.positions_tensor);
    input.positions_setting = o.positions_setting;
    for (const AxisPosition& p : table.values) {
      input.positions.push_back(p.value[0]);
      if (table.components > 1) input.axis_positions.push_back(p);
    }
    input.rows = table.rows;
    input.row_length = table.seq;
    l.positions_text = fmt::format("{} {}", *file, shape_string(table.shape));
  } else if (o.positions.empty() && o.token_batch > 1 && o.token_seq > 0) {  // a table's row per token
    input.rows = o.token_batch;
    input.row_length = o.token_seq;
    for (long k = 0; k < o.token_batch * o.token_seq; ++k) input.positions.push_back(static_cast<double>(k));
    l.positions_text = fmt::format("{} × {}", o.token_batch, o.token_seq);
  } else if (!o.positions.empty()) {
    const std::string what = option_name(o.positions_setting);
    input.positions_setting = o.positions_setting;
    input.positions = o.positions.find(':') != std::string::npos ? parse_position_range(o.positions, what)
                                                                 : typed_list(o.positions, what);
    l.positions_text = o.positions;
  }
  if (!o.axes.empty()) input.axes = parse_dump_axes(o.axes);
  if (view.size() == 4) input.axes = DumpAxes::BatchSeqHeadsD;
  input.rope_delta = o.rope_delta;
  if (o.rope_delta && !l.positions_text.empty())
    l.positions_text += fmt::format(" + rope_deltas {}", format_number(*o.rope_delta));
  if (!o.sequence_starts.empty()) input.starts = sequence_starts(o.sequence_starts);
  input.before_label = fmt::format("{} '{}'", option_name(o.one_dump ? "dump" : o.before_setting), before_name);
  input.after_label = fmt::format("{} '{}'", option_name(o.one_dump ? "dump" : o.after_setting), after_name);
  input.geometry_only =
      streamed;  // streamed: the shapes alone, the values read in blocks (analysis/check/fast/dump_stream.hpp)
  DumpPair pair = arrange_dump_pair(before, after, input, before_name, after_name);
  l.before = std::move(pair.before);
  l.after = std::move(pair.after);
  l.positions = std::move(pair.positions);
  l.axis_positions = std::move(pair.axis_positions);
  l.axes = pair.axes;
  l.axes_assumed = pair.axes_assumed;
  l.shape = std::move(pair.shape);
  l.segments = std::move(pair.segments);
  l.segments_are_rows = pair.segments_are_rows;
  if (o.merge_heads_first && l.axes == DumpAxes::BatchHeadsSeqD) {
    // The vectors are held [seq][batch][heads][d] (DumpVectors): a token's heads lie in order, one vector of
    // heads·d channels each.
    for (DumpVectors* v : {&l.before, &l.after}) {
      v->d = static_cast<int>(v->heads * v->d);
      v->heads = 1;
    }
  }
  if (!o.sequence_starts.empty()) {
    l.starts_text = o.sequence_starts;
    if (l.positions_text.empty()) l.positions_text = option_name("sequence_starts") + " " + o.sequence_starts;
  }
  if (streamed) {
    l.stream = std::make_shared<StreamSource>(std::move(*before_stream), std::move(*after_stream), l.axes,
                                              input.rows > 1, view);
    l.stream->set_before_setting(o.one_dump ? "dump" : o.before_setting);
  }
  if (pair.positions_assumed) {
    l.positions_text = fmt::format("0:{}", l.after.seq);
    l.positions_assumed = true;
  }
  return l;
}

}  // namespace

LoadedDumps load_dumps(const DumpFiles& o) { return load(o, false); }

LoadedDumps open_dumps(const DumpFiles& o) { return load(o, true); }

void drop_values(LoadedDumps& dumps) {
  // Swapped with empty vectors, so that their memory is freed: `values = {}` keeps the capacity, and a run of
  // `--tensor '*'` then held every layer's values until its end (62 MiB a layer of [2048, 16, 128] in
  // bench/torch_dump_bench.py).
  std::vector<double>().swap(dumps.before.values);
  std::vector<double>().swap(dumps.after.values);
  dumps.stream.reset();
}

LoadedDumps arranged_dumps(DumpPair pair) {
  LoadedDumps d;
  d.before = std::move(pair.before);
  d.after = std::move(pair.after);
  d.positions = std::move(pair.positions);
  d.axis_positions = std::move(pair.axis_positions);
  d.positions_assumed = pair.positions_assumed;
  d.axes = pair.axes;
  d.axes_assumed = pair.axes_assumed;
  d.shape = std::move(pair.shape);
  d.stored = std::string(to_string(d.after.dtype));
  d.segments = std::move(pair.segments);
  d.segments_are_rows = pair.segments_are_rows;
  return d;
}

LoadedDumps arranged_geometry(DumpPair pair) {
  LoadedDumps d = arranged_dumps(std::move(pair));
  drop_values(d);
  return d;
}

}  // namespace rope
