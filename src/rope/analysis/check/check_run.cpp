// rope check as one call (check_run.hpp): the expectation from the settings (shared with rope diff), the layers
// without RoPE, and the comparison of the whole dump and of each batch row or packed sequence.
#include "rope/analysis/check/check_run.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <memory>
#include <string>
#include <tuple>
#include <unordered_set>

#include "rope/analysis/check/check_table.hpp"
#include "rope/analysis/check/expectation.hpp"
#include "rope/analysis/check/fope_coefficients.hpp"
#include "rope/analysis/dumps/dump_positions.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "rope/io/csv.hpp"
#include "rope/io/gguf.hpp"
#include "rope/io/tensor_file.hpp"
#include "rope/core/utf8.hpp"
#include "rope/analysis/check/cos_sin_table.hpp"
#include "rope/io/json_reader.hpp"
#include "rope/models/layer_types.hpp"
#include "rope/models/longrope_rule.hpp"

namespace rope {

bool CheckSettings::any() const {
  return source.any() || !rope.first_scaling_setting().empty() || !rope.vision.empty() || rope.tower != Tower::Default;
}

namespace {

/// The rows found over a range's parts (VariantRow::over_parts: its batch rows or packed sequences, each checked),
/// asked in the table's order.
void diagnose_parts(CheckReport& report, const SegmentChecks& checks, const std::vector<DumpSegment>& parts, bool rows,
                    const DumpSource& source, const std::vector<AxisPosition>& positions) {
  PartsSearch search{report, checks, parts, rows, source, positions};
  for (const VariantRow& row : variant_table()) {
    if (row.over_parts) row.over_parts(search);
  }
}

/// The model's RoPE for a dump of `head_dim` channels: the settings' model, or plain RoPE of that head and the
/// base (the layout is the expectation's: the settings' layout is imposed there, not on the model).
ModelRope resolve_for(const CheckSettings& s, int head_dim) {
  if (!s.any()) check_dimension(head_dim);
  RopeOverrides r = s.rope;
  r.head_dim = std::nullopt;
  r.default_head_dim = head_dim;
  r.base = s.base;
  r.default_base = kDefaultBase;
  r.layout = std::nullopt;
  r.default_layout = Layout::Interleaved;
  return resolve_model_rope(s.source, r);
}

bool is_gguf_source(const ModelSource& source) { return !source.file.empty() && is_gguf_file(source.file); }

/// A list of layer type names for one line: at most kMaxListedNames, each cut to kMaxListedNameBytes bytes, then
/// "and N more" (the bound of names read from a config, io/json_reader.hpp).
Message listed_layer_types(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < detail::kMaxListedNames; ++i) {
    out += (out.empty() ? "" : ", ") + escape_controls(detail::shown_name(names[i]));
  }
  if (names.size() <= detail::kMaxListedNames) return Message::same(out);
  return msg("{0} and {1} more", out, names.size() - detail::kMaxListedNames);
}

/// Whether two layer types' expectations check a dump the same way (names that share a spec share a try).
bool same_layer_expectation(const RopeExpectation& a, const RopeExpectation& b) {
  const auto same_axes = [](const std::optional<AxisMap>& x, const std::optional<AxisMap>& y) {
    if (!x || !y) return !x && !y;
    return x->pair_axis == y->pair_axis && x->second_axis == y->second_axis &&
           x->sin_from_second == y->sin_from_second && x->axes == y->axes && x->first_axis == y->first_axis &&
           x->position_offset == y->position_offset && x->source.order == y->source.order;
  };
  const auto same_other = [](const std::optional<RopeExpectation::OtherList>& x,
                             const std::optional<RopeExpectation::OtherList>& y) {
    if (!x || !y) return !x && !y;
    return x->is_short == y->is_short && x->theta.size() == y->theta.size() && x->theta == y->theta;
  };
  return a.rope.layout == b.rope.layout && a.rope.head_dim == b.rope.head_dim &&
         a.rope.rotary_offset == b.rope.rotary_offset && a.theta().size() == b.theta().size() &&
         a.theta() == b.theta() && a.attention_factor() == b.attention_factor() && a.base() == b.base() &&
         a.scaled() == b.scaled() && same_axes(a.rope.axes, b.rope.axes) && a.angles == b.angles && a.mode == b.mode &&
         a.scaling == b.scaling && a.yarn_factor == b.yarn_factor && same_other(a.longrope_other, b.longrope_other) &&
         a.yarn_truncated_theta.size() == b.yarn_truncated_theta.size() &&
         a.yarn_truncated_theta == b.yarn_truncated_theta && a.error_model.en == b.error_model.en &&
         a.rope.deinterleaved_output == b.rope.deinterleaved_output && a.rope.axis_blocks == b.rope.axis_blocks &&
         a.rope.head_slices == b.rope.head_slices && a.query_beta == b.query_beta &&
         a.query_original == b.query_original && a.query_shift == b.query_shift &&
         a.longrope_l0_unturned == b.longrope_l0_unturned;
}

/// The arrangement of the dump that check's variants need: the rope_deltas its positions include (the variant
/// "decode tokens without rope_deltas") and its batch rows when of equal length (the variant "M-RoPE batch rows read
/// as t, h, w").
void expect_arrangement(RopeExpectation& e, double rope_delta, const std::vector<DumpSegment>& segments, bool rows) {
  e.rope_delta = rope_delta;
  if (rows && segments.size() > 1 && std::all_of(segments.begin(), segments.end(), [&](const DumpSegment& g) {
        return g.length == segments.front().length;
      })) {
    e.batch_rows = static_cast<long>(segments.size());
    e.row_length = segments.front().length;
  }
}

/// One RoPE of the model's layer types tried: its expectation, and the names of the types that share it.
struct LayerTypeTry {
  RopeExpectation expected;
  Message where;
  std::vector<std::string> names;
};

/// A model of several layer types and none given (a Gemma 3 config: its default type is full_attention, base 1e6,
/// while layer 0 is sliding_attention, base 10000): a failing dump is checked against each distinct RoPE of its
/// types (names that share one share a try; the default type's was checked already), at most kMaxLayerTypeTries of
/// them, each type's taken from the run's one resolution, and passes as the one it matches; else the failure names
/// the types, rather than a hint such as "is rope_theta read?".
void try_layer_types(const LayerTypeTrial& trial, const DumpSource& source, const std::vector<AxisPosition>& positions,
                     DType dtype, RopeExpectation& e, CheckReport& report, CheckRun& run) {
  if (trial.types.empty() || !trial.model) return;
  run.layer_types = trial.types;
  if (report.comparison.passed()) {  // as the default type (Gemma 3's full_attention): said, as another type's pass
    if (trial.default_type.empty()) {
      run.layer_types.clear();
      return;
    }
    run.layer_type = trial.default_type;
    report.notes.insert(report.notes.begin(),
                        msg("PASS as a {0} layer: the model has the layer types {1}; give {2} to check one type",
                            escape_controls(detail::shown_name(trial.default_type)),
                            listed_layer_types(run.layer_types), option_name("layer_type=")));
    return;
  }
  // Each type's expectation from the one resolution, grouped by what it checks.
  std::vector<LayerTypeTry> tries;
  ModelRope one;
  one.model = trial.model->model;
  one.plain = trial.model->plain;
  for (const LayerRope& l : trial.model->layers) {
    if (!l.spec) continue;
    one.spec = *l.spec;
    Message where;
    RopeExpectation te;
    try {
      te = trial.expectation(one, where);
    } catch (const InvalidArgument&) {
      continue;
    }
    te.rope_delta = e.rope_delta;
    te.batch_rows = e.batch_rows;
    te.row_length = e.row_length;
    const auto same = std::find_if(tries.begin(), tries.end(),
                                   [&](const LayerTypeTry& t) { return same_layer_expectation(t.expected, te); });
    if (same != tries.end()) {
      same->names.push_back(l.type);
    } else if (tries.size() <= kMaxLayerTypeTries) {  // the tries and the default type's RoPE, kept to compare
      tries.push_back({std::move(te), where, {l.type}});
    } else {  // beyond the bound: not tried, and not compared with the others any further
      run.layer_types_not_tried.push_back(l.type);
    }
  }
  std::size_t tried = 0;
  for (LayerTypeTry& t : tries) {
    if (same_layer_expectation(t.expected, e)) continue;  // the default type's RoPE: checked, failed above
    if (tried == kMaxLayerTypeTries) {
      run.layer_types_not_tried.insert(run.layer_types_not_tried.end(), t.names.begin(), t.names.end());
      continue;
    }
    ++tried;
    CheckReport tr = check_source(source, 0, positions, t.expected);
    if (!tr.comparison.passed()) continue;
    run.layer_type = t.names.front();
    run.where = t.where;
    run.angles = t.expected.angles.value_or(default_angle_model(dtype));
    e = std::move(t.expected);
    report = std::move(tr);
    report.notes.insert(report.notes.begin(),
                        msg("PASS as a {0} layer: the model has the layer types {1}; give {2} to check one type",
                            escape_controls(detail::shown_name(run.layer_type)), listed_layer_types(run.layer_types),
                            option_name("layer_type=")));
    run.layer_types_not_tried.clear();
    break;
  }
  run.layer_type_tries = tried;
  if (!run.layer_types_not_tried.empty()) {
    report.notes.push_back(msg(
        "layer types not tried ({0}): at most {1} distinct RoPEs of a model's layer types are tried; give {2} to check one",
        listed_layer_types(run.layer_types_not_tried), kMaxLayerTypeTries, option_name("layer_type=")));
  }
  if (run.layer_type.empty()) {
    const Message found = report.diagnosis.message;
    report.diagnosis.message =
        found.empty() ? msg("the dump matches none of the model's layer types ({0}); give {1} to check one type",
                            listed_layer_types(run.layer_types), option_name("layer_type="))
                      : msg("the dump matches none of the model's layer types ({0}); as the default one: {1}",
                            listed_layer_types(run.layer_types), found);
  }
}

}  // namespace

LayerTypeTrial layer_types_to_try(const ModelRope& model, const std::string& layer_type) {
  LayerTypeTrial trial;
  if (!layer_type.empty()) return trial;
  std::vector<std::string>& types = trial.types;
  std::unordered_set<std::string> seen;
  for (const LayerRope& l : model.layers) {
    if (l.spec && seen.insert(l.type).second) types.push_back(l.type);
  }
  if (types.size() < 2) types.clear();
  if (!types.empty()) {
    trial.default_type = model.spec.layer_type;
    trial.model = std::make_shared<const ModelRope>(model);
  }
  return trial;
}

RopeExpectation expectation_from_settings(const CheckSettings& s, int head_dim, bool per_axis, double max_position,
                                          Message& where) {
  return expectation_of_resolved(resolve_for(s, head_dim), s, head_dim, per_axis, max_position, where);
}

RopeExpectation expectation_of_resolved(const ModelRope& rope, const CheckSettings& s, int head_dim, bool per_axis,
                                        double max_position, Message& where) {
  if (!rope.plain && rope.spec.axes && rope.spec.axes->vision() && !per_axis) {
    throw InvalidArgument(
        error_msg("a vision tower's 2-D RoPE turns each patch by its (row, column): give {0} FILE with "
                  "a row ROW,COL per sequence index, or check the tower's rotation with {1} ROW,COL",
                  option_name("axis_positions"), option_name("apply.position")));
  }
  // The library's one construction (analysis/check/expectation.hpp), shared with the Python module.
  ExpectationRequest q;
  q.head_dim = head_dim;
  q.from_model = !s.source.file.empty() || !s.source.preset.empty();
  q.vision = !s.rope.vision.empty();
  q.gguf = is_gguf_source(s.source);
  q.angles = s.angles;
  q.layout = s.layout;
  q.max_position = max_position;
  q.longrope = s.longrope;
  RopeExpectation e = expectation_from_rope(rope, q);
  // A query: Ministral 3 and Mistral 4 multiply the query by s(p) (S21) after RoPE, on every layer (HF
  // get_llama_4_attn_scale in Ministral3Attention.forward); keys are not scaled.
  if (s.query && !s.source.any()) {
    throw InvalidArgument(error_msg("{0} scales a query as a model's attention does: give {1} or {2}",
                                    option_name("query"), option_name("model"), option_name("config")));
  }
  if (s.query && rope.model.query_scaling) {
    e.query_beta = rope.model.query_scaling->beta;
    e.query_original = rope.model.query_scaling->original;
  }
  if (s.layout) {
    where = Message::same(option_name("layout"));
  } else if (!rope.plain && q.from_model) {
    where = msg("the model's class");
  } else if (!rope.plain && q.vision) {
    where = Message::same(fmt::format("{} {}", option_name("vision"), s.rope.vision));
  } else {
    where = msg("assumed: Hugging Face's rotate_half; give {0}", option_name("layout"));
  }
  // FoPE (models/fope.hpp): the checkpoint's coefficients make each pair's cos and sin (F2); without them the dump
  // cannot be checked.
  e.fope = fope_coefficients_for(e.rope, rope.plain, s.coefficients);
  if (s.kv_head) e.fope_matrix = fope_kv_matrix(e.rope, e.fope.get(), *s.kv_head);  // refused without FoPE
  // The mode's expectation, made from the forward one (check_table.hpp: the one place a mode plugs in).
  set_mode(e, s.mode, s.shift);
  return e;
}

/// The angle model is the source's (float32 for Hugging Face, whose Llama 4 temperature (S20) is float32; ggml for a
/// GGUF), or the settings'.
RopeExpectation unchanged_expectation(int head_dim, const CheckSettings& s, int axis_components) {
  RopeExpectation e;
  if (axis_components > 1) {  // Qwen3.5's linear attention: t,h,w positions that turn nothing (θ = 0, an all-t map)
    std::vector<int> sections(static_cast<std::size_t>(axis_components), 0);
    sections.front() = head_dim / 2;  // every pair on t
    e.rope.axes =
        make_axis_map({sections, axis_components == 3 ? SectionOrder::Chunked : SectionOrder::GgmlMrope}, head_dim / 2);
  }
  e.angles = s.angles ? *s.angles : is_gguf_source(s.source) ? AngleModel::Ggml : AngleModel::Float32;
  e.rope.head_dim = head_dim;
  e.set_theta(Eigen::VectorXd::Zero(head_dim / 2));
  e.error_model = msg("unchanged: the layer has no RoPE");
  e.mode = s.mode;
  return e;
}

std::optional<RopeExpectation> rope_of_other_layers(const CheckSettings& s, int head_dim, bool per_axis,
                                                    double max_position) {
  CheckSettings other = s;
  other.rope.layer_type.clear();
  try {
    const ModelRope model = resolve_for(other, head_dim);
    if (!model.layers.empty()) {  // the first layer type that rotates (the default one may be a type without RoPE)
      const auto with_rope =
          std::find_if(model.layers.begin(), model.layers.end(), [](const LayerRope& l) { return l.spec.has_value(); });
      if (with_rope == model.layers.end()) return std::nullopt;
      other.rope.layer_type = with_rope->type;
    }
    Message where;
    return expectation_from_settings(other, head_dim, per_axis, max_position, where);
  } catch (const InvalidArgument&) {  // the model's RoPE does not fit this dump (another head dimension): nothing to
                                      // compare with
    return std::nullopt;
  }
}

namespace {

/// The config's head_dim by which a flat [tokens, heads·d] dump is read (vLLM's and SGLang's rotary inputs and
/// outputs, query.view(num_tokens, -1, head_size)) where no head size is given and the config's head is a part of
/// the dump's last axis; 0 where the dump is read as it is.
int config_head_view(const DumpFiles& files, const CheckSettings& s, const LoadedDumps& dumps) {
  if (files.head_dim != 0 || !s.source.any() || layers_without_rope(s.source, s.rope) || dumps.axes != DumpAxes::SeqD)
    return 0;
  const int h = resolve_for(s, dumps.after.d).spec.head_dim;
  return h > 1 && h < dumps.after.d && dumps.after.d % h == 0 ? h : 0;
}

/// A given cos/sin table is the reference: what would make another one is refused beside it, one line naming it.
void refuse_beside_table(const CheckSettings& s, const DumpFiles& f) {
  // A tensor's name beside no file of its table names nothing: refused, not ignored.
  for (const auto& [tensor, file, setting, needs] :
       {std::tuple{&s.table.cos_tensor, &s.table.cos, "cos_tensor", "cos"},
        std::tuple{&s.table.sin_tensor, &s.table.sin, "sin_tensor", "sin"},
        std::tuple{&s.table.cache_tensor, &s.table.cache, "cos_sin_cache_tensor", "cos_sin_cache"}}) {
    if (!tensor->empty() && file->empty()) {
      throw InvalidArgument(error_msg("{0} names a tensor of {1}'s file: give {2}", option_name(setting),
                                      option_name(needs), option_name(needs)));
    }
  }
  if (!s.table.given()) return;
  const std::string table = option_name(s.table.cache.empty() ? "cos" : "cos_sin_cache");
  RopeOverrides scaling = s.rope;
  scaling.partial_rotary_factor.reset();  // decides the table's form where both fit (cos_sin_table.hpp)
  std::string other = s.base ? "base" : scaling.first_scaling_setting();
  if (other.empty() && !s.coefficients.path.empty()) other = "coefficients";
  if (other.empty() && s.kv_head) other = "kv_head";
  if (other.empty() && s.angles) other = "angles";
  if (other.empty() && !s.rope.vision.empty()) other = "vision";
  if (other.empty() && s.source.any()) other = s.source.preset.empty() ? "config" : "model";
  if (!other.empty()) {
    throw InvalidArgument(
        error_msg("{0} is the reference: leave out {1}, which makes another (a table has no θ, "
                  "scaling or model to follow)",
                  table, option_name(other)));
  }
  for (const auto& [given, name] : {std::pair{!f.axis_positions.empty(), "axis_positions"},
                                    {f.rope_delta.has_value(), "rope_delta"},
                                    {s.mode == CheckMode::Shift || s.mode == CheckMode::ShiftMap,
                                     s.mode == CheckMode::Shift ? "shift" : "shift_map"},
                                    {s.query, "query"}}) {
    if (given) {
      throw InvalidArgument(
          error_msg("{0} is gathered by one position a token: leave out {1}", table, option_name(name)));
    }
  }
}

/// The table of the settings as the expectation's reference (cos_sin_table.hpp), the positions checked against its
/// rows: a row per token reads each token's own (no --positions), a table gathered by position ids has a row for
/// every one. Returns the report's note naming the table.
Message use_given_table(const CheckSettings& s, const DumpFiles& f, LoadedDumps& dumps, RopeExpectation& e) {
  auto table = std::make_shared<const GivenTable>(
      read_given_table(s.table, e.rope.layout == Layout::Interleaved, s.rope.partial_rotary_factor, dumps.after.d));
  const GivenTable& t = *table;
  if (t.per_token) {
    if (!f.positions.empty() || !f.sequence_starts.empty()) {
      throw InvalidArgument(error_msg("{0} holds a row per token ({1}): each token reads its own; leave out {2}",
                                      t.name, shape_string(t.shape),
                                      option_name(f.positions.empty() ? "sequence_starts" : "positions")));
    }
    if (t.rows != static_cast<long>(dumps.positions.size())) {
      throw InvalidArgument(error_msg("{0} holds {1} rows, one per token ({2}), for a dump of {3} tokens", t.name,
                                      t.rows, shape_string(t.shape), dumps.positions.size()));
    }
    for (std::size_t k = 0; k < dumps.positions.size(); ++k) dumps.positions[k] = static_cast<double>(k);
  } else {
    for (const double p : dumps.positions) {
      if (!t.has_row(p)) {
        throw InvalidArgument(error_msg("{0}: position {1} has no row in the table {2} of {3} rows (0 … {4})",
                                        option_name(f.positions.empty() ? "before" : "positions"), format_number(p),
                                        t.name, t.rows, t.rows - 1));
      }
    }
  }
  expect_table(e, table);
  return msg(
      "the reference is the table {0} {1}, {2} form ({3} pairs a row{4}): {5} of {6} channels rotated, "
      "tolerance (T1)",
      t.name, shape_string(t.shape), to_string(t.form), t.half,
      t.per_token ? msg(", a row per token") : msg(", gathered by position id"), 2 * t.half, dumps.after.d);
}

/// One check of the dumps as `request` reads them; `model` holds the run's one resolution (made by the first reading,
/// kept for another one).
/// A failing dump whose diagnosis is a harmless reordering of the output (equivalent_reordering, check_table.hpp)
/// passes as equivalent, unless the order is asked for.
void name_equivalent(CheckRun& run, bool strict_order) {
  const CheckDiagnosis& dg = run.report.diagnosis;
  if (strict_order || run.report.comparison.passed() || !dg.matches || run.nope) return;
  if (equivalent_reordering(*dg.matches) != nullptr) run.equivalent = dg.matches;
}

CheckRun check_files(const CheckRequest& request, std::optional<ModelRope>& model) {
  const CheckSettings& s = request.settings;
  CheckRun run;
  run.before_file = request.dumps.before;
  run.after_file = request.dumps.after;
  const bool shift_map = s.mode == CheckMode::ShiftMap;
  if (s.mode == CheckMode::Shift || shift_map) {  // (H1), (H2): every key turns by its δ, wherever it sits
    const std::string option = option_name(shift_map ? "shift_map" : "shift");
    if (s.query) {
      throw InvalidArgument(
          error_msg("{0} checks a K cache: keys, which {1} does not scale", option, option_name("query")));
    }
    const DumpFiles& f = request.dumps;
    for (const auto& [given, name] : {std::pair{!f.positions.empty(), "positions"},
                                      {!f.axis_positions.empty(), "axis_positions"},
                                      {!f.sequence_starts.empty(), "sequence_starts"},
                                      {f.rope_delta.has_value(), "rope_delta"}}) {
      if (!given) continue;
      throw InvalidArgument(
          shift_map ? error_msg("{0} turns each key by its own δ = new − old: leave out {1}", option, option_name(name))
                    : error_msg("{0} turns every key by the same δ: leave out {1}", option, option_name(name)));
    }
  }
  // (H2): the map, read before the dumps (a file of at most 128 MiB, kMaxPositionsFileBytes).
  const std::vector<ShiftMapRow> map =
      shift_map ? read_shift_map_file(s.shift_map, option_name("shift_map") + " file") : std::vector<ShiftMapRow>{};
  refuse_beside_table(s, request.dumps);
  DumpFiles files = request.dumps;
  if (s.table.given() && files.positions.empty() && files.sequence_starts.empty()) {
    // a table of a row per token [batch, seq, w]: the dump's batch rows along the sequence axis, a row each token
    const std::vector<long> shape = given_table_shape(s.table);
    if (shape.size() == 3) files.token_batch = shape[0], files.token_seq = shape[1];
  }
  LoadedDumps dumps = open_dumps(files);
  run.nope = layers_without_rope(s.source, s.rope);
  std::optional<Message> head_view_note;
  if (request.dumps.head_dim == 0 && s.source.any() && !run.nope && dumps.axes == DumpAxes::SeqD) {
    // A flat [tokens, heads·d] dump (vLLM's and SGLang's rotary inputs and outputs, query.view(num_tokens, -1,
    // head_size)) with a config whose head is a part of it: read by the config's head_dim. A model whose RoPE runs
    // over the whole inner dimension has that as its head_dim, and the dump is read whole: the config decides.
    const ModelRope flat = resolve_for(s, dumps.after.d);
    const int h = flat.spec.head_dim;
    if (h > 1 && h < dumps.after.d && dumps.after.d % h == 0) {
      DumpFiles viewed = request.dumps;
      viewed.head_dim = h;
      dumps = open_dumps(viewed);
      head_view_note =
          msg("the dump's last axis {0} is {1} heads of the config's head_dim {2}: read as [tokens, "
              "heads, {2}], as vLLM and SGLang view a flat rotary input (query.view(num_tokens, -1, "
              "head_size))",
              h * (dumps.after.heads), dumps.after.heads, h);
    } else {
      model = flat;
    }
  }
  if (request.dumps.head_dim == 0 && s.source.any() && !run.nope && dumps.after.heads > 1 &&
      (dumps.axes == DumpAxes::SeqHeadsD || dumps.axes == DumpAxes::BatchSeqHeadsD ||
       dumps.axes == DumpAxes::BatchHeadsSeqD)) {
    // Heads apart, [batch, seq, heads, d], of a model whose one rotation spans every head before the split
    // (LTX-Video: LTXVideoRotaryPosEmbed(dim=inner_dim)): head h holds channels h·d … h·d + d − 1 of the wide table.
    // Read as the one vector [batch, seq, heads·d] the model turns.
    const ModelRope whole = resolve_for(s, dumps.after.d);
    const long heads = dumps.after.heads, d = dumps.after.d;
    const bool wide =
        whole.model.grid && (whole.model.grid->model == GridModel::Ltx || whole.model.grid->model == GridModel::Ltx2);
    if (wide && whole.spec.head_dim == heads * d) {
      const bool heads_first = dumps.axes == DumpAxes::BatchHeadsSeqD;
      DumpFiles viewed = request.dumps;
      (heads_first ? viewed.merge_heads_first : viewed.merge_heads) = true;
      dumps = open_dumps(viewed);
      model = whole;
      if (heads_first) {
        head_view_note =
            msg("the dump's {0} heads of d = {1}, [batch, heads, seq, d], are the one vector of {2} channels that "
                "{3} turns: read whole, each token's heads joined in order as [batch, seq, {2}], head h the "
                "channels h·{1} … h·{1} + {4} of the table",
                heads, d, heads * d, whole.spec.name, d - 1);
      } else {
        head_view_note =
            msg("the dump's {0} heads of d = {1} are the one vector of {2} channels that {3} turns before "
                "splitting it into heads: read as [batch, seq, {2}], head h the channels h·{1} … h·{1} + "
                "{4} of the table",
                heads, d, heads * d, whole.spec.name, d - 1);
      }
    }
  }
  if (s.mode == CheckMode::Shift) {  // (H1): every key at δ, which the report gives as the positions
    std::fill(dumps.positions.begin(), dumps.positions.end(), s.shift);
    dumps.positions_text = format_number(s.shift);
    dumps.positions_assumed = false;
  }
  if (shift_map) {  // (H2): key i at δ_i = new_i − old_i, which the report gives as the positions
    if (static_cast<long>(map.size()) != dumps.after.seq) {
      throw InvalidArgument(error_msg("{0} '{1}' holds {2} rows (old, new) for a dump of {3} keys: a row per key",
                                      option_name("shift_map"), escape_controls(s.shift_map, kQuotedBytes), map.size(),
                                      dumps.after.seq));
    }
    dumps.positions.resize(map.size());
    for (std::size_t i = 0; i < map.size(); ++i) dumps.positions[i] = map[i].new_position - map[i].old_position;
    dumps.positions_text = s.shift_map;
    dumps.positions_assumed = false;
  }
  if (s.dtype) dumps.after.dtype = dumps.before.dtype = *s.dtype;
  if (s.dtype && dumps.stream) dumps.stream->set_dtype(*s.dtype);
  double max_position = 0;
  for (const double p : dumps.positions) max_position = std::max(max_position, p);
  for (const AxisPosition& p : dumps.axis_positions) max_position = std::max(max_position, p.max_abs());
  if (s.mode == CheckMode::Shift) max_position = std::abs(s.shift);
  if (shift_map) {  // the largest turn of a key, either way
    max_position = 0;
    for (const double p : dumps.positions) max_position = std::max(max_position, std::abs(p));
  }
  run.max_position = max_position;
  // A layer without RoPE (a layer type naming NoPE or linear-attention layers): its code leaves q and k as they
  // are, so the dump should be unchanged: every pair turns by 0 (θ_i = 0), attention factor 1.
  const auto& nope = run.nope;
  // The run's one resolution of the model: the expectation and every layer type's (try_layer_types) come from it.
  if (!nope && !model) model = resolve_for(s, dumps.after.d);
  const bool per_axis = !dumps.axis_positions.empty();
  RopeExpectation e =
      nope ? unchanged_expectation(dumps.after.d, s, dumps.axis_positions.empty() ? 1 : dumps.axis_positions[0].count)
           : expectation_of_resolved(*model, s, dumps.after.d, per_axis, max_position, run.where);
  // A positions file's header names its axes: they must be the ones this model's map reads, in its order (a
  // HunyuanVL CSV's p, w, h, t are not llama.cpp's t, h, w, e although both have four).
  if (!dumps.axis_names.empty() && e.rope.axes && dumps.axis_names != e.rope.axes->components()) {
    throw InvalidArgument(error_msg(
        "{0} '{1}' names the axes {2}, but this model reads {3}", option_name("axis_positions"),
        escape_controls(request.dumps.axis_positions, kQuotedBytes), dumps.axis_names, e.rope.axes->components()));
  }
  if (nope && nope->temperature && s.query) {  // Llama 4's NoPE layers: q · t(p) (S20), keys unchanged
    e.query_beta = nope->temperature->attn_scale;
    e.query_original = nope->temperature->floor_scale;
    e.query_shift = 1;
  }
  if (nope) set_mode(e, s.mode, s.shift);  // expectation_from_settings made the mode's
  std::optional<Message> table_note;       // a given cos/sin table: the reference (cos_sin_table.hpp)
  if (s.table.given() && !nope) table_note = use_given_table(s, request.dumps, dumps, e);
  run.angles = e.angles.value_or(default_angle_model(dumps.after.dtype));
  expect_arrangement(e, request.dumps.rope_delta.value_or(0.0), dumps.segments, dumps.segments_are_rows);
  std::optional<Message> cache_note;  // an engine's cache read at other positions (engine_cache_positions)
  const std::vector<AxisPosition> positions =
      s.mode == CheckMode::Shift ? shift_positions(dumps.after.seq, s.shift)
      : shift_map
          ? positions_as_axes(dumps.positions, {})
          : engine_cache_positions(e, s.longrope, positions_as_axes(dumps.positions, dumps.axis_positions), cache_note);
  std::optional<MemorySource> in_memory;
  if (!dumps.stream) in_memory.emplace(dumps.before, dumps.after);
  const DumpSource& source = dumps.stream ? static_cast<const DumpSource&>(*dumps.stream) : *in_memory;
  CheckProgress* progress = request.progress;
  if (progress != nullptr && dumps.stream && progress->start(dumps.stream->data_bytes())) {
    dumps.stream->set_progress([progress](double done) { progress->update(done); });
  }
  if (static_cast<long>(positions.size()) != source.seq()) {
    throw InvalidArgument(
        error_msg("{0} positions for a dump of {1} sequence positions", positions.size(), source.seq()));
  }
  CheckReport report = check_source(source, 0, positions, e);
  if (table_note) report.notes.insert(report.notes.begin(), *table_note);
  if (cache_note) report.notes.push_back(*cache_note);
  if (head_view_note) report.notes.insert(report.notes.begin(), *head_view_note);
  if (model) {  // settings this model's rope_type does not use: said, as rope frequencies says them
    if (const auto unused = longrope_rule_unused(*model, s.longrope)) report.notes.push_back(*unused);
    const RopeConfig& c = model->spec.config;
    if (c.type != ScalingType::Yarn && c.yarn_variant != YarnVariant::Hf) {
      report.notes.push_back(msg("{0} {1} is a variant of YaRN: rope_type {2} ignores it; give it with yarn scaling",
                                 option_name("yarn_variant"), to_string(c.yarn_variant), to_string(c.type)));
    }
  }
  if (!nope) {  // several layer types, none given: the one the dump passes as (try_layer_types)
    LayerTypeTrial trial = s.source.any() ? layer_types_to_try(*model, s.rope.layer_type) : LayerTypeTrial{};
    trial.expectation = [&](const ModelRope& layer, Message& where) {
      return expectation_of_resolved(layer, s, dumps.after.d, per_axis, max_position, where);
    };
    try_layer_types(trial, source, positions, dumps.after.dtype, e, report, run);
  }
  if (nope && nope->temperature) {
    report.notes.insert(
        report.notes.begin(),
        s.query ? msg("Llama 4's NoPE layers scale the query by t(p) = 1 + attn_scale·ln(1 + ⌊(p + 1) / "
                      "floor_scale⌋) (S20) (attn_scale {0}, floor_scale {1}): {2} at the largest position {3}",
                      format_number(e.query_beta), format_number(e.query_original),
                      format_number(e.query_scale(max_position)), format_number(max_position))
                : msg("Llama 4's NoPE layers leave keys unchanged and scale queries by the temperature "
                      "(S20): checked as a key; give {0} for a query dump",
                      option_name("query")));
  }
  if (s.query && !nope) {
    report.notes.insert(
        report.notes.begin(),
        e.query_beta != 0 ? msg("query scaling (S21): the dump is a query, so the expectation is RoPE times s(p) = 1 + "
                                "β·ln(1 + ⌊p / L0⌋) (β = {0}, L0 = {1}): {2} at the largest position {3}",
                                format_number(e.query_beta), format_number(e.query_original),
                                format_number(e.query_scale(max_position)), format_number(max_position))
                          : msg("{0}: this model does not scale its queries: the expectation is the rotation alone",
                                option_name("query")));
  }
  if (nope && !nope->temperature) {
    report.notes.insert(
        report.notes.begin(),
        msg("layers {0} of {1} ({2}) have no RoPE: the model's code uses q and k as projected, so the "
            "dump after must equal the dump before",
            describe_layers(nope->layers), escape_controls(nope->model), escape_controls(nope->layer_type)));
  }
  SegmentChecks segments = dumps.segments.size() > 1
                               ? check_segments(source, positions, e, dumps.segments, report.comparison)
                               : SegmentChecks{};
  if (nope &&
      !report.comparison.passed()) {  // a rotated dump of a layer without RoPE: what rotated it, and each part's
    const std::optional<RopeExpectation> other =
        rope_of_other_layers(s, dumps.after.d, !dumps.axis_positions.empty(), max_position);
    const std::string model = escape_controls(nope->model), type = escape_controls(nope->layer_type);
    const std::string layers = describe_layers(nope->layers);
    diagnose_no_rope(report, source, positions, other, model, type, layers);
    for (SegmentCheck& g : segments.listed) {
      if (!g.diagnosed()) continue;
      const auto from = positions.begin() + g.segment.start;
      diagnose_no_rope(*g.report, source, {from, from + g.segment.length}, other, model, type, layers, g.segment.start);
    }
  } else {
    if (dumps.segments_are_rows) diagnose_rows(report, dumps.segments, segments, positions);
    diagnose_parts(report, segments, dumps.segments, dumps.segments_are_rows, source, positions);
  }
  if (progress != nullptr) progress->finish();
  drop_values(dumps);
  run.dumps = std::move(dumps);
  run.expected = std::move(e);
  run.report = std::move(report);
  run.segments = std::move(segments);
  name_equivalent(run, s.strict_order);
  return run;
}

CheckRun run_one(const CheckRequest& request) {
  std::optional<ModelRope> model;
  CheckRun run = check_files(request, model);
  // 4 axes read as Hugging Face's [batch, heads, seq, d] without --axes, and the dump fails: a verdict is never worse
  // because rope assumed something, so the other reading is tried ([batch, seq, heads, d], what q.view(b, s, h, d)
  // gives before HF's transpose); the run that passes is the report, its axes said assumed (dump_text.hpp).
  if (run.passed() || !run.dumps.axes_assumed || !request.dumps.axes.empty()) return run;
  CheckRequest other = request;
  other.dumps.axes = std::string(to_string(DumpAxes::BatchSeqHeadsD));
  try {
    CheckRun as_other = check_files(other, model);
    if (!as_other.passed()) return run;
    as_other.dumps.axes_assumed = true;
    return as_other;
  } catch (const InvalidArgument&) {  // the other reading does not fit the positions: the first one stands
    return run;
  }
}

/// The dumps of a run read again for the pair's sample, as the run read them (its axes, --dtype).
LoadedDumps reopen(DumpFiles files, const CheckRun& run, const CheckSettings& s) {
  if (run.dumps.axes_assumed && files.axes.empty()) files.axes = std::string(to_string(run.dumps.axes));
  LoadedDumps d = open_dumps(files);
  if (const int h = config_head_view(files, s, d); h > 0) {  // read as its check read it: by the config's head_dim
    files.head_dim = h;
    d = open_dumps(files);
  }
  if (s.dtype) d.after.dtype = d.before.dtype = *s.dtype;
  if (s.dtype && d.stream) d.stream->set_dtype(*s.dtype);
  return d;
}

/// A diagnosis found with q and k together (qk_pair.hpp) in one tensor's report: the row's match and its sentence,
/// over what the tensor alone could say.
void name_paired(CheckRun& run, VariantId kind, std::vector<std::pair<std::string, double>> found,
                 std::vector<ParameterDifference> difference) {
  CheckDiagnosis& dg = run.report.diagnosis;
  dg.matches = kind;
  dg.closest = std::nullopt;
  dg.closest_explained = 0;
  dg.departure = std::nullopt;
  dg.found = std::move(found);
  // The pair's cause in place of what the tensor alone measured (its difference not the cause).
  dg.difference = std::move(difference);
  dg.difference_explained = dg.difference_total = 0;
  const std::vector<AxisPosition> positions = positions_as_axes(run.dumps.positions, run.dumps.axis_positions);
  dg.message = variant_sentence(
      kind, {run.expected, dg, run.report.comparison, positions, run.dumps.after.groups(), run.dumps.after.dtype});
}

/// q and k together: the geometry's rules, each tensor checked by the one engine, then the pair (Q1).
CheckRun run_check_qk(const CheckRequest& request) {
  const CheckSettings& s = request.settings;
  const KeyDumps& keys = *request.keys;
  if (s.mode != CheckMode::Forward) {
    throw InvalidArgument(error_msg("{0} checks q and k of the forward pass: leave out {1}", option_name("k_before"),
                                    option_name(s.mode == CheckMode::Grad ? "grad" : "shift")));
  }
  CheckRequest k_request = request;
  k_request.keys.reset();
  k_request.settings.query = false;  // --query scales q alone
  DumpFiles& kd = k_request.dumps;
  kd.before = keys.before;
  kd.after = keys.after;
  kd.tensor.clear();
  kd.before_tensor = keys.before_tensor;
  kd.after_tensor = keys.after_tensor;
  kd.before_setting = "k_before", kd.after_setting = "k_after";  // k's messages in k's names
  kd.before_directory.reset();
  kd.after_directory.reset();
  CheckRequest q_request = request;
  q_request.keys.reset();
  {  // the rules of the pair, before either is checked; k's geometry alone, its length held to q's in the pair's words
    DumpFiles k_alone = kd;
    k_alone.positions.clear();
    k_alone.sequence_starts.clear();
    k_alone.axis_positions.clear();
    k_alone.rope_delta.reset();
    // Each read as its check reads it: a flat dump by the config's head_dim (config_head_view).
    const auto viewed = [&](DumpFiles f) {
      LoadedDumps d = open_dumps(f);
      if (const int h = config_head_view(f, s, d); h > 0) {
        f.head_dim = h;
        d = open_dumps(f);
      }
      return d.after;
    };
    require_qk_geometry(viewed(q_request.dumps), viewed(k_alone));
  }
  CheckRun q = run_one(q_request);
  CheckRun k = run_one(k_request);
  const LoadedDumps qd = reopen(q_request.dumps, q, s), kdumps = reopen(kd, k, k_request.settings);
  return join_qk(std::move(q), std::move(k), qd, kdumps);
}

}  // namespace

CheckRun run_check(const CheckRequest& request) { return request.keys ? run_check_qk(request) : run_one(request); }

void require_qk_geometry(const DumpVectors& q, const DumpVectors& k) {
  if (k.seq != q.seq) {
    throw InvalidArgument(
        error_msg("k has {0} sequence positions and q {1}: q and k are checked at the same positions", k.seq, q.seq));
  }
  if (k.d != q.d) {
    throw InvalidArgument(
        error_msg("k's vectors have {0} channels and q's {1}: their scores need the same head size", k.d, q.d));
  }
  const long q_rows = q.groups() / std::max<long>(1, q.heads), k_rows = k.groups() / std::max<long>(1, k.heads);
  if (k_rows != q_rows) {
    throw InvalidArgument(
        error_msg("k has {0} batch rows and q {1}: q and k come from the same batch", k_rows, q_rows));
  }
  if (k.heads <= 0 || q.heads % k.heads != 0) {
    throw InvalidArgument(error_msg(
        "k's {0} heads do not divide q's {1}: under GQA each key-value head serves q/k heads of q", k.heads, q.heads));
  }
}

CheckRun join_qk(CheckRun q, CheckRun k, const LoadedDumps& q_values, const LoadedDumps& k_values) {
  const std::vector<AxisPosition> qp = positions_as_axes(q_values.positions, q_values.axis_positions);
  const std::vector<AxisPosition> kp = positions_as_axes(k_values.positions, k_values.axis_positions);
  QkPairCheck pair = measure_qk_pair({q_values, qp, q.expected, q.angles}, {k_values, kp, k.expected, k.angles},
                                     !q.passed() || !k.passed());
  if (pair.matches && pair.names_q) name_paired(q, *pair.matches, pair.found, pair.difference);
  if (pair.matches && pair.names_k) name_paired(k, *pair.matches, pair.found, pair.difference);
  const std::optional<VariantId>& both = q.report.diagnosis.matches;
  if (!pair.matches && !pair.passed() && !q.passed() && !k.passed() && both && both == k.report.diagnosis.matches) {
    pair.matches = both;  // one mistake in both tensors (RoPE applied twice) is the scores' too
  }
  q.k = std::make_shared<const CheckRun>(std::move(k));
  q.pair = std::move(pair);
  return q;
}

namespace {

CheckRun check_pair(DumpPair pair, RopeExpectation expected, const StreamSource* stream, const LayerTypeTrial& trial,
                    bool strict_order) {
  CheckRun run;
  expect_arrangement(expected, pair.rope_delta, pair.segments, pair.segments_are_rows);
  if (expected.mode == CheckMode::Shift) {  // (H1): every key at δ, which the report gives as the positions
    std::fill(pair.positions.begin(), pair.positions.end(), expected.shift);
    pair.positions_assumed = false;
  }
  const std::vector<AxisPosition> positions =
      expected.mode == CheckMode::Shift ? shift_positions(pair.after.seq, expected.shift) : pair.check_positions();
  std::optional<MemorySource> in_memory;
  if (stream == nullptr) in_memory.emplace(pair.before, pair.after);
  const DumpSource& source = stream ? static_cast<const DumpSource&>(*stream) : *in_memory;
  if (static_cast<long>(positions.size()) != source.seq()) {
    throw InvalidArgument(
        error_msg("{0} positions for a dump of {1} sequence positions", positions.size(), source.seq()));
  }
  run.report = check_source(source, 0, positions, expected);
  run.angles = expected.angles.value_or(default_angle_model(pair.after.dtype));
  try_layer_types(trial, source, positions, pair.after.dtype, expected, run.report, run);
  run.segments = pair.segments.size() > 1
                     ? check_segments(source, positions, expected, pair.segments, run.report.comparison)
                     : SegmentChecks{};
  if (pair.segments_are_rows) diagnose_rows(run.report, pair.segments, run.segments, positions);
  diagnose_parts(run.report, run.segments, pair.segments, pair.segments_are_rows, source, positions);
  run.expected = std::move(expected);
  for (const double p : pair.positions) run.max_position = std::max(run.max_position, p);
  for (const AxisPosition& p : pair.axis_positions) run.max_position = std::max(run.max_position, p.max_abs());
  run.dumps = arranged_geometry(std::move(pair));
  name_equivalent(run, strict_order);
  return run;
}

}  // namespace

CheckRun check_arranged(DumpPair pair, const RopeExpectation& expected, const LayerTypeTrial& trial,
                        bool strict_order) {
  return check_pair(std::move(pair), expected, nullptr, trial, strict_order);
}

CheckRun check_arranged(DumpPair pair, const RopeExpectation& expected, const StreamSource& source,
                        const LayerTypeTrial& trial, bool strict_order) {
  return check_pair(std::move(pair), expected, &source, trial, strict_order);
}

}  // namespace rope
