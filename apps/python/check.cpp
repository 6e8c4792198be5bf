// rope._rope.reference, check and identify: arrays (as .npy bytes, read by the library's own reader, so a dump
// means what the same file means to `rope check`) arranged by the library (analysis/dumps/dump_pair.hpp) and checked
// against the expectation of a Spec (analysis/check/expectation.hpp), as `rope check` does.
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <fmt/ranges.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "report.hpp"
#include "rope/analysis/check/check_run.hpp"
#include "rope/analysis/check/cos_sin_table.hpp"
#include "rope/analysis/check/diff_run.hpp"
#include "rope/analysis/dumps/dump_pair.hpp"
#include "rope/analysis/dumps/dump_slices.hpp"
#include "rope/analysis/check/fast/dump_stream.hpp"
#include "rope/analysis/check/expectation.hpp"
#include "rope/analysis/check/fope_coefficients.hpp"
#include "rope/analysis/identify/identify_run.hpp"
#include "rope/analysis/spectrum/spectrum.hpp"
#include "rope/report/check_ranks_report.hpp"
#include "rope/report/check_report.hpp"
#include "rope/report/diff_report.hpp"
#include "rope/report/identify_report.hpp"
#include "rope/report/spectrum_report.hpp"
#include "rope/report/text.hpp"
#include "rope/core/error.hpp"
#include "rope/core/message.hpp"
#include "rope/io/csv.hpp"
#include "rope/io/tensor_file.hpp"
#include "rope/io/tensor_stream.hpp"

namespace rope::python {

namespace {

TensorData read_array(const py::bytes& npy, const std::string& name, bool bf16_bits) {
  TensorReadOptions read;
  read.bf16_bits = bf16_bits;
  return parse_npy(std::string(npy), name, read);
}

/// An array of float64 (rope/__init__.py converts it) as a tensor of the library's.
TensorData float_tensor(const py::object& array) {
  const auto a = py::cast<py::array_t<double, py::array::c_style | py::array::forcecast>>(array);
  TensorData t;
  for (py::ssize_t k = 0; k < a.ndim(); ++k) t.shape.push_back(static_cast<long>(a.shape(k)));
  t.values.assign(a.data(), a.data() + a.size());
  return t;
}

/// The keywords of rope.check, diff, identify and reference as rope/__init__.py's _settings reads them, each by its
/// own rule and in its own name: one value per call, in the library's types.
struct CallSettings {
  bool bf16_bits = false;  ///< the arrays' 16-bit integers are bfloat16 bit patterns
  py::object positions = py::none(), starts = py::none(), patches = py::none(), rope_delta = py::none();
  py::object shift = py::none(), shift_map = py::none();
  std::string dtype, angles, axes, coefficients, lang = "en", name_a = "A", name_b = "B";
  bool grad = false, strict_order = false;
  std::optional<long> kv_head;
  /// The table a kernel was handed (cos_sin_table.hpp): cos and sin, or vLLM's cos_sin_cache, each the bytes of a
  /// .npy and whether its 16-bit integers are bfloat16 bit patterns; None where not given. `layout`: the pairing
  /// ("half", "interleaved"; "" the spec's).
  py::object cos = py::none(), sin = py::none(), cache = py::none();
  std::string layout;
  bool table_given() const { return !cos.is_none() || !sin.is_none() || !cache.is_none(); }
};

CallSettings settings_of(const py::dict& given) {
  CallSettings o;
  const auto text = [&](const char* key, std::string& into) {
    if (given.contains(key)) into = given[key].cast<std::string>();
  };
  const auto object = [&](const char* key, py::object& into) {
    if (given.contains(key)) into = given[key];
  };
  const auto flag = [&](const char* key, bool& into) {
    if (given.contains(key)) into = given[key].cast<bool>();
  };
  flag("bf16_bits", o.bf16_bits);
  object("positions", o.positions), object("sequence_starts", o.starts), object("patches", o.patches);
  object("rope_delta", o.rope_delta), object("shift", o.shift), object("shift_map", o.shift_map);
  text("dtype", o.dtype), text("angles", o.angles), text("axes", o.axes), text("coefficients", o.coefficients);
  text("lang", o.lang), text("name_a", o.name_a), text("name_b", o.name_b);
  flag("grad", o.grad), flag("strict_order", o.strict_order);
  if (given.contains("kv_head") && !given["kv_head"].is_none()) o.kv_head = given["kv_head"].cast<long>();
  object("cos", o.cos), object("sin", o.sin), object("cos_sin_cache", o.cache), text("layout", o.layout);
  return o;
}

/// A table of the settings, (the .npy bytes, bfloat16 bits) as rope/__init__.py's _table gives it, read as a tensor.
TensorData table_array(const py::object& given, const char* name) {
  const auto t = given.cast<py::tuple>();
  return read_array(t[0].cast<py::bytes>(), name, t[1].cast<bool>());
}

/// The table a kernel was handed as the reference instead of θ (cos_sin_table.hpp), as rope check --cos --sin or
/// --cos-sin-cache takes it: the pairing from `layout=` or the spec, a row gathered by each position id (a table of a
/// row per token needs the dump's tokens arranged as the command line arranges them: refused here), the model's
/// layer types not tried.
void use_table(const CallSettings& o, DumpPair& pair, RopeExpectation& e, LayerTypeTrial& trial) {
  if (o.cache.is_none() && (o.cos.is_none() || o.sin.is_none())) {
    throw InvalidArgument(error_msg("{0} needs {1}: a table is cos and sin (or give {2})",
                                    option_name(o.cos.is_none() ? "sin" : "cos"),
                                    option_name(o.cos.is_none() ? "cos" : "sin"), option_name("cos_sin_cache")));
  }
  if (!o.cache.is_none() && (!o.cos.is_none() || !o.sin.is_none())) {
    throw InvalidArgument(error_msg("{0} holds cos and sin: leave out {1}", option_name("cos_sin_cache"),
                                    option_name(o.cos.is_none() ? "sin" : "cos")));
  }
  if (!o.layout.empty()) e.rope.layout = parse_layout(o.layout);
  const bool interleaved = e.rope.layout == Layout::Interleaved;
  auto table = std::make_shared<GivenTable>(
      o.cache.is_none() ? given_table(table_array(o.cos, "cos"), table_array(o.sin, "sin"), interleaved, std::nullopt,
                                      pair.after.d, option_name("cos"))
                        : given_cache_table(table_array(o.cache, "cos_sin_cache"), interleaved, std::nullopt,
                                            pair.after.d, option_name("cos_sin_cache")));
  if (table->per_token) {
    throw InvalidArgument(error_msg("{0}: a table of a row per token {1}: give [max_pos, w] and the position ids",
                                    table->name, shape_string(table->shape)));
  }
  for (const double p : pair.positions) {
    if (!table->has_row(p)) {
      throw InvalidArgument(error_msg("{0}: position {1} has no row in the table {2} of {3} rows (0 … {4})",
                                      option_name("positions"), format_number(p), table->name, table->rows,
                                      table->rows - 1));
    }
  }
  expect_table(e, std::move(table));
  trial = {};
}

/// A vision tower's patches, (row, column) each: [patches, 2] or [batch, patches, 2], the last axis as Hugging Face's
/// vision code holds them (Gemma 4's pixel_position_ids, Qwen2-VL's rot_pos_emb pos_ids).
DumpPositions patch_positions(const TensorData& t) {
  const std::size_t rank = t.shape.size();
  if ((rank != 2 && rank != 3) || t.shape.back() != 2) {
    throw InvalidArgument(
        error_msg("{0}: patches of shape {1}: expected [patches, 2] or [batch, patches, 2], the (row, column) "
                  "of each patch",
                  "patches", shape_string(t.shape)));
  }
  DumpPositions p;
  p.components = 2, p.rows = rank == 3 ? t.shape[0] : 1, p.seq = t.shape[rank - 2], p.shape = t.shape;
  if (p.rows < 1 || p.seq < 1)
    throw InvalidArgument(error_msg("{0}: positions of shape {1} hold no position", "patches", shape_string(t.shape)));
  if (p.rows * p.seq > kMaxDumpPositions)
    throw InvalidArgument(error_msg("{0}: more than {1} positions", "patches", kMaxDumpPositions));
  for (std::size_t i = 0; i + 1 < t.values.size(); i += 2) {
    AxisPosition a;
    a.count = 2;
    for (std::size_t k = 0; k < 2; ++k) {
      a.value[k] = t.values[i + k];
      if (!(std::abs(a.value[k]) <= kMaxDumpPosition)) {
        throw InvalidArgument(error_msg("{0}: position {1} is outside [-2^24, 2^24]", "patches", a.value[k]));
      }
    }
    p.values.push_back(a);
  }
  return p;
}

/// The positions (one number, or M-RoPE's components) or a vision tower's patches, as arrays of float64, or None.
DumpPairInput pair_input(const py::object& positions, const py::object& starts, const std::string& axes,
                         const py::object& patches = py::none(), const py::object& rope_delta = py::none()) {
  DumpPairInput in;
  // M-RoPE decoding (rope check --rope-delta): the positions are the tokens' sequence indices, each at index +
  // rope_deltas on t, h and w; the library checks it is a whole number and that positions are given.
  if (!rope_delta.is_none()) in.rope_delta = py::cast<double>(rope_delta);
  if (!positions.is_none() && !patches.is_none()) {
    throw InvalidArgument(
        error_msg("give positions or patches, not both: patches are a vision tower's (row, column) per patch"));
  }
  if (!positions.is_none() || !patches.is_none()) {
    const DumpPositions p = patches.is_none() ? positions_from_tensor(float_tensor(positions), option_name("positions"))
                                              : patch_positions(float_tensor(patches));
    for (const AxisPosition& v : p.values) {
      in.positions.push_back(v.value[0]);
      if (p.components > 1) in.axis_positions.push_back(v);
    }
    in.rows = p.rows;
    in.row_length = p.seq;
    if (!patches.is_none()) in.positions_setting = "patches";
  }
  if (!starts.is_none()) in.starts = py::cast<std::vector<double>>(starts);
  if (!axes.empty()) in.axes = parse_dump_axes(axes);
  return in;
}

/// The same of a call's settings, in the axes `axes` (its own, or another reading's).
DumpPairInput pair_input(const CallSettings& o, const std::string& axes) {
  return pair_input(o.positions, o.starts, axes, o.patches, o.rope_delta);
}

/// Every value of the tensor to rotate or identify is a number: NaN or infinity there leaves nothing to compute
/// with (check leaves this to the library's check, which says the same of `before`).
void require_finite(const TensorData& t, const std::string& name) {
  for (std::size_t i = 0; i < t.values.size(); ++i) {
    if (!std::isfinite(t.values[i])) {
      throw InvalidArgument(error_msg("{0}: element {1} is {2}: the tensor before RoPE must hold finite numbers", name,
                                      i, std::isnan(t.values[i]) ? "NaN" : "infinite"));
    }
  }
}

struct Prepared {
  DumpPair pair;
  RopeExpectation expected;
  /// A model of several layer types and no layer_type given: each type, tried when the default one fails (as
  /// rope check without --layer-type).
  LayerTypeTrial trial;
};

/// A Spec of a model with FoPE (models/fope.hpp) in a function that computes rotations by m·θ_i (reference,
/// spectrum): refused with the library's one sentence, as every command of the command line refuses it.
void refuse_fope_rotations(const Spec& spec) {
  if (spec.rope.spec.fope) throw InvalidArgument(fope_refusal(spec.rope.spec.name));
}

Prepared prepare(const Spec& spec, const TensorData& before, const TensorData& after, const DumpPairInput& in,
                 const std::string& before_name, const std::string& after_name, const std::string& dtype,
                 const std::string& angles, std::optional<double> shift = std::nullopt,
                 const std::string& coefficients = "", std::optional<long> kv_head = std::nullopt) {
  Prepared p{arrange_dump_pair(before, after, in, before_name, after_name), {}, {}};
  if (!dtype.empty()) p.pair.after.dtype = p.pair.before.dtype = parse_dtype(dtype);
  const bool tower = spec.rope.spec.axes && spec.rope.spec.axes->vision();
  const bool patches = !p.pair.axis_positions.empty() && p.pair.axis_positions.front().count == 2;
  if (tower && !patches) {
    throw InvalidArgument(
        error_msg("the spec is a vision tower's 2-D RoPE, which turns each patch by its (row, column): "
                  "give patches=, an array [patches, 2] or [batch, patches, 2]"));
  }
  if (patches && !tower) {
    throw InvalidArgument(
        error_msg("patches= are a vision tower's (row, column) per patch, and the spec is not a vision tower: "
                  "give positions=, or a vision tower's spec (vision= or tower=)"));
  }
  double max_position = 0;
  for (const double m : p.pair.positions) max_position = std::max(max_position, m);
  for (const AxisPosition& m : p.pair.axis_positions) max_position = std::max(max_position, m.max_abs());
  if (shift) max_position = std::abs(*shift);  // every key at δ (H1), as rope check --shift resolves it
  // The settings of `rope check` that a Spec holds, and the library's one expectation of a resolved model
  // (analysis/check/check_run.hpp, the one check_run uses for the model and each of its layer types).
  CheckSettings settings;
  settings.source = spec.source;
  settings.rope = spec.overrides;
  settings.layout = spec.overrides.layout;
  settings.longrope = spec.longrope;
  if (!angles.empty()) settings.angles = parse_angle_model(angles);
  settings.coefficients =
      fope_checkpoint(coefficients);  // FoPE's checkpoint and its reader (analysis/check/fope_coefficients.hpp)
  settings.kv_head = kv_head;         // rope check --kv-head
  const bool per_axis = !p.pair.axis_positions.empty();
  Message where;  // the report of a Python check names no setting's origin
  p.expected = expectation_of_resolved(spec.rope, settings, p.pair.after.d, per_axis, max_position, where);
  if (spec.source.any()) {
    p.trial = layer_types_to_try(spec.rope, spec.overrides.layer_type);
    p.trial.expectation = [settings, d = p.pair.after.d, per_axis, max_position](const ModelRope& layer, Message& at) {
      return expectation_of_resolved(layer, settings, d, per_axis, max_position, at);
    };
  }
  return p;
}

/// rope.check(grad=True) and rope.check(shift=δ) (analysis/check/check_mode.hpp): the expectation of that mode, for the
/// default layer type and each one tried; a shift takes no positions (every key turns by δ).
void set_python_mode(Prepared& p, bool grad, const py::object& shift, bool positions_given) {
  if (grad && !shift.is_none()) {
    throw InvalidArgument(error_msg("{0} excludes {1}", option_name("shift"), option_name("grad")));
  }
  const CheckMode mode = grad ? CheckMode::Grad : shift.is_none() ? CheckMode::Forward : CheckMode::Shift;
  const double delta = shift.is_none() ? 0.0 : shift.cast<double>();
  if (mode == CheckMode::Shift && positions_given) {
    throw InvalidArgument(
        error_msg("{0} turns every key by the same δ: leave out {1}", option_name("shift"), option_name("positions")));
  }
  set_mode(p.expected, mode, delta);
  if (p.trial.expectation) {
    p.trial.expectation = [inner = p.trial.expectation, mode, delta](const ModelRope& layer, Message& where) {
      RopeExpectation e = inner(layer, where);
      set_mode(e, mode, delta);
      return e;
    };
  }
}

/// rope.check(shift_map=) as float64 [n, 2] (old, new) per key: each key's δ = new − old (the positions of the check)
/// and the largest |δ| (the expectation's largest position), refused with positions, grad or shift.
struct ShiftMapDeltas {
  bool given = false;
  py::array_t<double> deltas;
  std::optional<double> largest;
};

ShiftMapDeltas shift_map_deltas(const py::object& shift_map, const py::object& positions, bool grad,
                                const py::object& shift) {
  ShiftMapDeltas out;
  if (shift_map.is_none()) return out;
  const std::string name = option_name("shift_map");
  if (grad || !shift.is_none())
    throw InvalidArgument(error_msg("{0} excludes {1}", name, option_name(grad ? "grad" : "shift")));
  if (!positions.is_none()) {
    throw InvalidArgument(
        error_msg("{0} turns each key by its own δ = new − old: leave out {1}", name, option_name("positions")));
  }
  const TensorData t = float_tensor(shift_map);
  if (t.shape.size() != 2 || t.shape[1] != 2) {
    throw InvalidArgument(error_msg("{0}: shape [{1}] is not [n, 2], a row (old, new) per key", name,
                                    fmt::format("{}", fmt::join(t.shape, ", "))));
  }
  const auto n = static_cast<py::ssize_t>(t.shape[0]);
  out.given = true;
  out.deltas = py::array_t<double>(n);
  double largest = 0;
  for (py::ssize_t r = 0; r < n; ++r) {
    const double o = t.values[static_cast<std::size_t>(2 * r)], w = t.values[static_cast<std::size_t>(2 * r + 1)];
    if (!std::isfinite(o) || !std::isfinite(w)) {  // a NaN is no position (not a move beyond the bound)
      throw InvalidArgument(error_msg("{0}: row {1} is ({2}, {3}): old and new are finite positions", name, r,
                                      format_number(o), format_number(w)));
    }
    if (!(std::abs(w - o) <= kMaxDumpPosition)) {
      throw InvalidArgument(
          error_msg("{0}: row {1} moves a key by {2} − {3}, beyond 2^24", name, r, format_number(w), format_number(o)));
    }
    out.deltas.mutable_at(r) = w - o;
    largest = std::max(largest, std::abs(w - o));
  }
  out.largest = largest;
  return out;
}

/// The shift-map mode (H2) on the expectation of the default layer type and each one tried.
void set_shift_map_mode(Prepared& p) {
  set_mode(p.expected, CheckMode::ShiftMap);
  if (p.trial.expectation) {
    p.trial.expectation = [inner = p.trial.expectation](const ModelRope& layer, Message& where) {
      RopeExpectation e = inner(layer, where);
      set_mode(e, CheckMode::ShiftMap);
      return e;
    };
  }
}

/// An array the caller holds (C-contiguous, native byte order: rope/__init__.py hands it over as it is, or a
/// contiguous copy when it is not) with its .npy header as NumPy writes it, without the data: the library's reader
/// takes its type and shape as it takes a file's (the same messages), and check reads its elements in place.
struct HeldArray {
  TensorHeader header;
  const unsigned char* data = nullptr;
};

HeldArray held_array(const py::tuple& held, const std::string& name, bool bf16_bits) {
  const std::string head(held[0].cast<py::bytes>());
  const auto array = held[1].cast<py::buffer>();
  const py::buffer_info info = array.request();  // the array's own memory, no copy
  py::ssize_t stride = info.itemsize;
  for (py::ssize_t k = info.ndim; k-- > 0;) {
    if (info.shape[static_cast<std::size_t>(k)] > 1 && info.strides[static_cast<std::size_t>(k)] != stride)
      throw std::logic_error("rope._rope.check_arrays: " + name + " is not C-contiguous");
    stride *= info.shape[static_cast<std::size_t>(k)];
  }
  TensorReadOptions read;
  read.bf16_bits = bf16_bits;
  const auto bytes = static_cast<std::uint64_t>(info.size) * static_cast<std::uint64_t>(info.itemsize);
  HeldArray a{parse_npy_header(head, head.size() + bytes, name, read, kMaxStreamElements),
              static_cast<const unsigned char*>(info.ptr)};
  if (a.header.count != static_cast<long>(info.size) || a.header.bytes != static_cast<int>(info.itemsize))
    throw std::logic_error("rope._rope.check_arrays: " + name + "'s header does not describe the array");
  return a;
}

/// A held array's geometry as a tensor without values (the values stay in the array).
TensorData geometry_of(const HeldArray& a) {
  TensorData t;
  t.shape = a.header.shape, t.dtype = a.header.dtype, t.stored = a.header.stored;
  return t;
}

/// rope.check's limit on one call: the sequence indices a check holds positions for (kMaxDumpPositions); the
/// elements have none but 2^40 (a streamed tensor's). Said with the keywords and how to split.
void require_indices_within_limit(const std::vector<long>& shape, const DumpPairInput& in) {
  if (shape.size() < 2 || shape.size() > 4) return;  // arrange_dump_pair says what is wrong with the shape
  const long rows = in.rows;
  const DumpAxes axes =
      in.axes
          ? *in.axes
          : infer_dump_axes(shape, in.positions.empty() ? 0 : static_cast<long>(in.positions.size()) / rows, "after");
  if (shape.size() != (axes == DumpAxes::SeqD ? 2u : axes == DumpAxes::SeqHeadsD ? 3u : 4u)) return;
  const DumpVectors g = dump_geometry(shape, axes, "after");
  const long indices = g.seq * (rows > 1 && g.batch == rows ? rows : 1);
  if (indices > kMaxDumpPositions) {
    throw InvalidArgument(error_msg(
        "{0}: shape {1} (axes {2}) has {3} sequence indices, more than the {4} one call of rope.check "
        "takes: check slices of the sequence axis within that limit, each with its own {5}",
        "before=, after=", shape_string(shape), to_string(axes), indices, kMaxDumpPositions, option_name("positions")));
  }
}

/// The vectors of `v` (arranged as `pair`) back in the order of the tensor's shape.
py::array_t<double> in_shape(const DumpVectors& v, const DumpPair& pair) {
  std::vector<py::ssize_t> shape(pair.shape.begin(), pair.shape.end());
  py::array_t<double> out(shape);
  double* o = out.mutable_data();
  const int d = v.d;
  long batch = 1, heads = 1, seq = 0;
  switch (pair.axes) {
    case DumpAxes::SeqD:
      seq = pair.shape[0];
      break;
    case DumpAxes::SeqHeadsD:
      seq = pair.shape[0], heads = pair.shape[1];
      break;
    case DumpAxes::BatchHeadsSeqD:
      batch = pair.shape[0], heads = pair.shape[1], seq = pair.shape[2];
      break;
    case DumpAxes::BatchSeqHeadsD:
      batch = pair.shape[0], seq = pair.shape[1], heads = pair.shape[2];
      break;
  }
  for (long b = 0; b < batch; ++b) {
    for (long h = 0; h < heads; ++h) {
      for (long s = 0; s < seq; ++s) {
        // rows_along_sequence: batch row b at index b·seq + s, the groups are the heads.
        const double* x = pair.segments_are_rows ? v.vector(b * seq + s, h) : v.vector(s, b * heads + h);
        const long at =
            pair.axes == DumpAxes::BatchHeadsSeqD ? ((b * heads + h) * seq + s) : ((b * seq + s) * heads + h);
        std::copy(x, x + d, o + at * d);
      }
    }
  }
  return out;
}

/// rope check's rule (run_check): 4 axes read as Hugging Face's [batch, heads, seq, d] because axes= was not given,
/// and the dump fails: the other reading, [batch, seq, heads, d], is the result when it passes (its axes said
/// assumed).
template <class CheckAs>
CheckRun with_other_axes(CheckRun run, const std::string& axes, const CheckAs& check_as) {
  if (run.passed() || !run.dumps.axes_assumed || !axes.empty()) return run;
  try {
    CheckRun other = check_as(std::string(to_string(DumpAxes::BatchSeqHeadsD)));
    if (!other.passed()) return run;
    other.dumps.axes_assumed = true;
    return other;
  } catch (const InvalidArgument&) {
    return run;
  }
}

/// A finished check held for Python: its report's faces are the library's (report/emit.hpp), so `to_json()` is
/// `rope check --json` and `summary(lang=)` `rope check`'s text.
struct CheckResult {
  std::shared_ptr<const CheckRun> run;
};

/// The fields of rope check --json (check_value: English, as the JSON), the report's sentences in `lang` ("en"
/// or "zh", as rope check --lang prints them): the diagnosis and the notes; and the run itself, for its JSON
/// text and its text printer.
py::dict checked(CheckRun run, const std::string& lang) {
  const Lang l = parse_lang(lang);
  py::dict out;
  out["data"] = to_python(Report<CheckRun>::value(run));
  const auto sentences = [&](const CheckRun& r, py::dict& into) {
    const CheckDiagnosis& d = r.report.diagnosis;
    into["diagnosis"] = r.report.comparison.passed() ? std::string() : d.message.in(l);  // an equivalent one named
    py::list notes;
    for (const Message& n : r.report.notes) notes.append(n.in(l));
    into["notes"] = notes;
  };
  sentences(run, out);
  if (run.k) {  // q and k together: k's sentences in `lang` too (its fields are data["k"])
    py::dict k;
    sentences(*run.k, k);
    out["k"] = k;
  }
  if (run.pair) {  // and the pair's diagnosis sentence in `lang` (data["pair"]["diagnosis"] its English)
    py::dict pair;
    pair["diagnosis"] = qk_pair_diagnosis(*run.pair, run.expected).in(l);
    out["pair"] = pair;
  }
  // The text names the dumps as rope check names its files: here by the arguments that held them.
  if (run.before_file.empty()) run.before_file = "before";
  if (run.after_file.empty()) run.after_file = "after";
  if (run.k && run.k->before_file.empty()) {  // k's report, named by its arguments too
    auto k = std::make_shared<CheckRun>(*run.k);
    k->before_file = "k_before", k->after_file = "k_after";
    run.k = std::move(k);
  }
  out["result"] = CheckResult{std::make_shared<const CheckRun>(std::move(run))};
  return out;
}

/// The report of `result` as emit prints it (Format::Json: one line and its newline; Format::Text).
std::string emitted(const CheckResult& result, const Printing& how) {
  std::ostringstream text;
  emit(text, *result.run, how);
  return text.str();
}

/// One tensor's check on arrays held in memory (q's, or k's), read in place a block at a time in the axes `order`:
/// `names` are the tensor's settings ("before", "after"; "k_before", "k_after").
CheckRun check_held(const HeldArray& hb, const HeldArray& ha, const Spec& spec, const CallSettings& o,
                    const ShiftMapDeltas& map, const std::array<const char*, 2>& names, const std::string& order) {
  DumpPairInput in =
      pair_input(map.given ? py::object(map.deltas) : o.positions, o.starts, order, o.patches, o.rope_delta);
  in.geometry_only = true;
  const TensorData gb = geometry_of(hb), ga = geometry_of(ha);
  if (gb.shape == ga.shape) require_indices_within_limit(ga.shape, in);
  const std::optional<double> delta = o.shift.is_none() ? std::nullopt : std::optional(o.shift.cast<double>());
  Prepared p = prepare(spec, gb, ga, in, names[0], names[1], o.dtype, o.angles, map.given ? map.largest : delta,
                       o.coefficients, o.kv_head);
  if (map.given) {
    set_shift_map_mode(p);
  } else {
    set_python_mode(p, o.grad, o.shift, !o.positions.is_none());
  }
  if (o.table_given()) use_table(o, p.pair, p.expected, p.trial);
  StreamSource source(TensorStream::in_memory(hb.data, hb.header, names[0]),
                      TensorStream::in_memory(ha.data, ha.header, names[1]), p.pair.axes, p.pair.segments_are_rows);
  if (!o.dtype.empty()) source.set_dtype(parse_dtype(o.dtype));
  source.set_before_setting(names[0]);
  // The arrays stay referenced by the call's arguments; the check's threads read them without the GIL.
  const py::gil_scoped_release release;
  return check_arranged(std::move(p.pair), p.expected, source, p.trial, o.strict_order);
}

/// A held tensor's values for the pair's sample of scores, read in place in the axes its check took.
LoadedDumps held_values(const HeldArray& hb, const HeldArray& ha, const CallSettings& o,
                        const std::array<const char*, 2>& names, const py::object& positions,
                        const std::string& order) {
  DumpPairInput in =
      pair_input(positions, positions.is_none() ? py::object(py::none()) : o.starts, order, o.patches, o.rope_delta);
  in.geometry_only = true;
  DumpPair pair = arrange_dump_pair(geometry_of(hb), geometry_of(ha), in, names[0], names[1]);
  if (!o.dtype.empty()) pair.after.dtype = pair.before.dtype = parse_dtype(o.dtype);
  auto stream = std::make_shared<StreamSource>(TensorStream::in_memory(hb.data, hb.header, names[0]),
                                               TensorStream::in_memory(ha.data, ha.header, names[1]), pair.axes,
                                               pair.segments_are_rows);
  if (!o.dtype.empty()) stream->set_dtype(parse_dtype(o.dtype));
  LoadedDumps v = arranged_geometry(std::move(pair));
  v.stream = std::move(stream);
  return v;
}

/// q and k together (check_run.hpp join_qk): the pair's rules on the geometry, each tensor checked (in the other
/// 4-axis reading where its own fails), then the pair.
CheckRun check_held_qk(const HeldArray& b, const HeldArray& a, const HeldArray& kb, const HeldArray& ka,
                       const Spec& spec, const CallSettings& o, const ShiftMapDeltas& map) {
  if (o.grad || !o.shift.is_none() || map.given) {
    throw InvalidArgument(error_msg("{0} checks q and k of the forward pass: leave out {1}", option_name("k_before"),
                                    option_name(o.grad      ? "grad"
                                                : map.given ? "shift_map"
                                                            : "shift")));
  }
  const std::array<const char*, 2> q_names{"before", "after"}, k_names{"k_before", "k_after"};
  require_qk_geometry(held_values(b, a, o, q_names, o.positions, o.axes).after,
                      held_values(kb, ka, o, k_names, py::none(), o.axes).after);
  const auto checked_as = [&](const HeldArray& hb, const HeldArray& ha, const std::array<const char*, 2>& names) {
    const auto as = [&](const std::string& order) { return check_held(hb, ha, spec, o, map, names, order); };
    return with_other_axes(as(o.axes), o.axes, as);
  };
  CheckRun q = checked_as(b, a, q_names), k = checked_as(kb, ka, k_names);
  const auto order = [&](const CheckRun& run) {
    return o.axes.empty() ? std::string(to_string(run.dumps.axes)) : o.axes;
  };
  const LoadedDumps qv = held_values(b, a, o, q_names, o.positions, order(q)),
                    kv = held_values(kb, ka, o, k_names, o.positions, order(k));
  const py::gil_scoped_release release;
  return join_qk(std::move(q), std::move(k), qv, kv);
}

}  // namespace

void bind_check(py::module_& m) {
  // One rank's report of a distributed run (rope.distributed.check_ranks): the rank's finished check as a row of the
  // run's report (report/check_ranks_report.hpp rank_row), the JSON `rope check --rank-files … --cp-rank R --json`
  // writes, for the merge on rank 0. `row`: the rank's fields as rope/distributed.py gathers them.
  m.def(
      "rank_report",
      [](const CheckResult& result, const py::dict& row) {
        CheckedRank rank;
        rank.rank = row["rank"].cast<long>();
        rank.file = row["file"].cast<std::string>();
        rank.run = *result.run;
        rank.first_position = row["first_position"].cast<double>();
        rank.last_position = row["last_position"].cast<double>();
        if (!row["matches_rank"].is_none()) rank.matches_rank = row["matches_rank"].cast<long>();
        if (!row["matches_layout"].is_none())
          rank.matches_layout = parse_cp_layout(row["matches_layout"].cast<std::string>());
        CheckRanksReport one;
        one.cp_size = row["cp_size"].cast<long>();
        one.layout = row["layout"].cast<std::string>();
        one.sequence_starts = row["sequence_starts"].cast<std::vector<long>>();
        one.ranks.push_back(rank_row(rank));
        std::ostringstream text;
        emit(text, one, {Format::Json, Lang::En, std::nullopt});
        return text.str();
      },
      py::arg("result"), py::arg("row"));
  py::class_<CheckResult>(m, "CheckResult")
      .def("json",
           [](const CheckResult& r) {
             return emitted(r, {Format::Json, Lang::En, std::nullopt});
           })
      .def(
          "text",
          [](const CheckResult& r, const std::string& lang, const std::optional<int>& digits) {
            if (digits && (*digits < 0 || *digits > 17)) {
              throw InvalidArgument(
                  error_msg("{0} must be between {1} and {2} (got {3})", option_name("digits"), 0, 17, *digits));
            }
            return emitted(r, {Format::Text, parse_lang(lang), digits});
          },
          py::arg("lang") = "en", py::arg("digits") = py::none());
  m.def(
      "reference",
      [](const py::bytes& x, const Spec& spec, const py::dict& settings) {
        const CallSettings o = settings_of(settings);
        refuse_fope_rotations(spec);
        const TensorData t = read_array(x, "x", o.bf16_bits);
        require_finite(t, "x");  // check leaves `before` to the library (check_source says the same)
        const Prepared p =
            prepare(spec, t, t, pair_input(o.positions, py::none(), o.axes, o.patches), "x", "x", "", "");
        return in_shape(expected_dump(p.pair.before, p.pair.check_positions(), p.expected), p.pair);
      },
      py::arg("x"), py::arg("spec"), py::arg("settings"));
  // rope.reference of more elements than one read holds: the library's slices (dump_slices.hpp) and the axes they
  // were cut by, which each slice is then read with: slices of 2^22 elements where a cut makes them so, else of at
  // most `max_elements`, at most the read's limit (smaller: the tests).
  m.attr("reference_max_elements") = kMaxTensorElements;
  m.def(
      "reference_slices",
      [](const std::vector<long>& shape, const py::object& positions, const std::string& axes, long max_elements) {
        const DumpPairInput in = pair_input(positions, py::none(), axes);
        const long rows = std::max(1L, in.rows);
        const long per_row = in.positions.empty() ? 0 : static_cast<long>(in.positions.size()) / rows;
        const DumpAxes order = in.axes ? *in.axes : infer_dump_axes(shape, per_row, "x");
        py::list cuts;
        if (max_elements < 1 || max_elements > kMaxTensorElements) max_elements = kMaxTensorElements;
        const long preferred = std::min(max_elements, kPreferredSliceElements);
        for (const DumpSlice& c : dump_slices(shape, order, rows, max_elements, preferred))
          cuts.append(py::make_tuple(c.axis, c.start, c.stop));
        return py::make_tuple(std::string(to_string(order)), cuts);
      },
      py::arg("shape"), py::arg("positions"), py::arg("axes") = "", py::arg("max_elements") = kMaxTensorElements);
  // check on arrays held in memory, read in place a block at a time (analysis/check/fast/dump_stream.hpp over
  // TensorStream::in_memory): no size limit but the sequence indices', memory bounded by the blocks. `before` and
  // `after`: (the .npy header, the array); `k`: None, or k's (header, array, header, array) before and after.
  m.def(
      "check_arrays",
      [](const py::tuple& before, const py::tuple& after, const Spec& spec, const py::dict& settings,
         const py::object& k) {
        const CallSettings o = settings_of(settings);
        const HeldArray b = held_array(before, "before", o.bf16_bits), a = held_array(after, "after", o.bf16_bits);
        // shift_map= (rope check --shift-map, (H2)): each key at its δ = new − old, which become the positions.
        const ShiftMapDeltas map = shift_map_deltas(o.shift_map, o.positions, o.grad, o.shift);
        if (k.is_none()) {
          const std::array<const char*, 2> names{"before", "after"};
          const auto as = [&](const std::string& order) { return check_held(b, a, spec, o, map, names, order); };
          return checked(with_other_axes(as(o.axes), o.axes, as), o.lang);
        }
        const auto kt = k.cast<py::tuple>();
        if (kt[1].is_none() != kt[3].is_none()) {
          throw InvalidArgument(error_msg("{0} needs {1}: k is checked before and after RoPE, as q is",
                                          option_name(kt[1].is_none() ? "k_after" : "k_before"),
                                          option_name(kt[1].is_none() ? "k_before" : "k_after")));
        }
        const HeldArray kb = held_array(py::make_tuple(kt[0], kt[1]), "k_before", o.bf16_bits),
                        ka = held_array(py::make_tuple(kt[2], kt[3]), "k_after", o.bf16_bits);
        return checked(check_held_qk(b, a, kb, ka, spec, o, map), o.lang);
      },
      py::arg("before"), py::arg("after"), py::arg("spec"), py::arg("settings"), py::arg("k") = py::none());
  // rope spectrum on an array held in memory, read in place a block at a time (analysis/spectrum/spectrum.hpp): the
  // fields of rope spectrum --json, its notes and its text in `lang`. spec None: plain RoPE of base 10000, said so.
  m.def(
      "spectrum_array",
      [](const py::tuple& x_held, const py::object& spec, const py::dict& settings) {
        const CallSettings o = settings_of(settings);
        const HeldArray x = held_array(x_held, "x", o.bf16_bits);
        DumpPairInput in = pair_input(o.positions, py::none(), o.axes);
        std::function<RopeExpectation(int, Message&)> expected;
        if (!spec.is_none()) {
          const Spec s = py::cast<Spec>(spec);
          refuse_fope_rotations(s);
          expected = [s](int head_dim, Message& where) {
            ExpectationRequest q;
            q.head_dim = head_dim;
            q.from_model = s.source.any();
            q.vision = !s.overrides.vision.empty();
            q.gguf = s.gguf;
            q.layout = s.overrides.layout;
            // Where the layout came from, as check_run says it (expectation_of_resolved): given, the model's
            // class, or assumed where the Spec names no model.
            where = s.overrides.layout ? Message::same(option_name("layout"))
                    : s.source.any()   ? msg("the model's class")
                                       : msg("assumed: Hugging Face's rotate_half; give {0}", option_name("layout"));
            return expectation_from_rope(s.rope, q);
          };
        }
        SpectrumRun run;
        {
          const py::gil_scoped_release release;
          run = spectrum_of_tensor(x.data, x.header, "x", in, expected);
        }
        const Lang l = parse_lang(o.lang);
        py::dict out;
        out["data"] = to_python(spectrum_value(run));
        py::list notes;
        for (const Message& n : run.notes) notes.append(n.in(l));
        out["notes"] = notes;
        std::ostringstream text;
        emit(text, run, {Format::Text, l, std::nullopt});
        out["text"] = text.str();
        return out;
      },
      py::arg("x"), py::arg("spec"), py::arg("settings"));
  // rope diff on arrays: A's and B's outputs of one input, each against the expectation of the spec (FoPE's with
  // coefficients=) and against each other (analysis/check/diff_run.hpp diff_arranged): the fields of rope diff --json,
  // its text in `lang`, its JSON text.
  m.def(
      "diff",
      [](const py::bytes& before, const py::bytes& after_a, const py::bytes& after_b, const Spec& spec,
         const py::dict& settings) {
        const CallSettings o = settings_of(settings);
        const TensorData b = read_array(before, "before", o.bf16_bits), a = read_array(after_a, "after_a", o.bf16_bits),
                         c = read_array(after_b, "after_b", o.bf16_bits);
        const DumpPairInput in = pair_input(o.positions, o.starts, o.axes);
        Prepared p = prepare(spec, b, a, in, "before", "after_a", o.dtype, o.angles, std::nullopt, o.coefficients);
        DumpPair other = arrange_dump_pair(b, c, in, "before", "after_b");
        if (!o.dtype.empty()) other.after.dtype = parse_dtype(o.dtype);
        DiffRun run = diff_arranged(std::move(p.pair), other.after, p.expected, o.name_a, o.name_b);
        // The text names the outputs as rope diff names its files: here by the arguments that held them.
        run.before_file = "before", run.after_a_file = "after_a", run.after_b_file = "after_b";
        const Lang l = parse_lang(o.lang);
        py::dict out;
        out["data"] = to_python(Report<DiffRun>::value(run));
        std::ostringstream text, json;
        emit(text, run, {Format::Text, l, std::nullopt});
        emit(json, run, {Format::Json, l, std::nullopt});
        out["text"] = text.str();
        out["json"] = json.str();
        return out;
      },
      py::arg("before"), py::arg("after_a"), py::arg("after_b"), py::arg("spec"), py::arg("settings"));
  m.def(
      "identify",
      [](const py::bytes& before, const py::bytes& after, const py::dict& settings) {
        const CallSettings o = settings_of(settings);
        const TensorData b = read_array(before, "before", o.bf16_bits), a = read_array(after, "after", o.bf16_bits);
        require_finite(b, "before");
        // rope identify's one reading (identify_run.hpp): M-RoPE positions (t, h, w(, e) per index) give each pair's
        // axis and the sections, as --axis-positions; a tower's patches (row, column) the 2-D vision kind; a dump in
        // heads that fits nothing is read with its heads side by side. The fields of rope identify --json (no second
        // builder).
        return to_python(identify_value(identify_tensors(b, a, pair_input(o, o.axes))));
      },
      py::arg("before"), py::arg("after"), py::arg("settings"));
}

}  // namespace rope::python
