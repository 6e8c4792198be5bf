#include "rope/cli/dump_options.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "rope/cli/options.hpp"
#include "rope/core/error.hpp"
#include "rope/io/tensor_file.hpp"
#include "rope/io/text_file.hpp"

namespace rope::cli {

void add_dump_options(CLI::App& app, DumpOptions& o, bool axis_positions) {
  app.add_option("--before", o.before, "the tensor before RoPE: .npy, .safetensors or .csv")->required()->type_name("FILE");
  app.add_option("--after", o.after, "the same tensor after RoPE, same shape")->required()->type_name("FILE");
  app.add_option("--positions", o.positions,
                 "position of each sequence index: a range A:B or A:B:STEP, a list 0,1,5, or @FILE (default 0:seq)")
      ->type_name("POS");
  if (axis_positions) {
    app.add_option("--axis-positions", o.axis_positions,
                   "M-RoPE: the position of each sequence index per axis, a file of rows t,h,w (rope positions --csv "
                   "writes one); instead of --positions")
        ->type_name("FILE");
  }
  app.add_option("--axes", o.axes, "axes of the shape: seq,d | seq,heads,d | batch,heads,seq,d | batch,seq,heads,d")
      ->type_name("AXES");
  app.add_option("--tensor", o.tensor, "safetensors: the tensor to read from each file (default: the only one)")
      ->type_name("NAME");
  app.add_flag("--bf16-bits", o.bf16_bits, ".npy 16-bit integers (<u2, <i2) are bfloat16 bit patterns");
}

LoadedDumps load_dumps(const DumpOptions& o) {
  TensorReadOptions read;
  read.bf16_bits = o.bf16_bits;
  read.tensor = o.tensor;
  const TensorData before = read_tensor_file(o.before, read);
  const TensorData after = read_tensor_file(o.after, read);
  const std::string before_name = escape_for_message(o.before), after_name = escape_for_message(o.after);
  if (before.shape != after.shape) {
    throw InvalidArgument(fmt::format("--after '{}' has shape {}, --before '{}' has {}: they must be equal", after_name,
                                      shape_string(after.shape), before_name, shape_string(before.shape)));
  }
  LoadedDumps l;
  l.shape = after.shape;
  l.stored = after.stored;
  if (!o.axis_positions.empty()) {
    if (!o.positions.empty()) throw InvalidArgument(error_msg("give --positions or --axis-positions, not both"));
    l.axis_positions = parse_axis_position_rows(read_text_file(o.axis_positions, "--axis-positions file", kMaxAxisPositionsBytes),
                                                fmt::format("--axis-positions '{}'", escape_for_message(o.axis_positions)),
                                                static_cast<std::size_t>(kMaxDumpPositions));
    for (const AxisPosition& p : l.axis_positions) {
      if (!(p.max_abs() <= 16777216.0)) {
        throw InvalidArgument(error_msg("--axis-positions: {0} is outside [-2^24, 2^24]", p.text()));
      }
      l.positions.push_back(p.value[0]);
    }
    l.positions_text = o.axis_positions;
  } else if (!o.positions.empty()) {
    l.positions = o.positions.find(':') != std::string::npos ? parse_position_range(o.positions, "--positions")
                                                              : parse_list_argument(o.positions, "--positions");
    l.positions_text = o.positions;
  }
  if (!o.axes.empty()) {
    l.axes = parse_dump_axes(o.axes);
  } else if (!l.positions.empty()) {
    l.axes = infer_dump_axes(after.shape, static_cast<long>(l.positions.size()), after_name);
  } else if (after.shape.size() == 4) {
    throw InvalidArgument(fmt::format("{}: shape {} has 4 axes: give --axes (batch,heads,seq,d or batch,seq,heads,d) or "
                                      "--positions",
                                      after_name, shape_string(after.shape)));
  } else {
    l.axes = infer_dump_axes(after.shape, 0, after_name);
  }
  l.before = arrange_dump(before, l.axes, before_name);
  l.after = arrange_dump(after, l.axes, after_name);
  if (l.positions.empty()) {
    for (long s = 0; s < l.after.seq; ++s) l.positions.push_back(static_cast<double>(s));
    l.positions_text = fmt::format("0:{}", l.after.seq);
    l.positions_assumed = true;
  }
  if (static_cast<long>(l.positions.size()) != l.after.seq) {
    throw InvalidArgument(error_msg("{0}: the number of positions, {1}, is not the length of the dump's sequence axis, {2} (shape {3}, axes {4})",
                                      l.axis_positions.empty() ? "--positions" : "--axis-positions", l.positions.size(), l.after.seq, shape_string(after.shape), to_string(l.axes)));
  }
  for (const double p : l.positions) {
    if (!(std::abs(p) <= 16777216.0)) {
      throw InvalidArgument(fmt::format("--positions: {} is outside [-2^24, 2^24]", p));
    }
  }
  return l;
}

std::string positions_text(const LoadedDumps& dumps, const Text& t) {
  if (!dumps.axis_positions.empty()) {
    return t.tr("per axis ({0} components) from {1}", dumps.axis_positions.front().count,
                dumps.positions_text);
  }
  return dumps.positions_assumed ? dumps.positions_text + t.tr(" (assumed)") : dumps.positions_text;
}

std::string group_name(const DumpVectors& dump, long group, const Text& t) {
  if (dump.batch > 1) return t.tr("batch {0}, head {1}", group / dump.heads, group % dump.heads);
  return t.tr("head {0}", group);
}

}  // namespace rope::cli
