// The printers of rope check's report (check_report.hpp): the text a person reads and the value JSON and Python
// share.
#include "rope/report/check_report.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "rope/analysis/check/angle_error.hpp"
#include "rope/analysis/check/check_table.hpp"
#include "rope/analysis/check/cos_sin_table.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/tolerance.hpp"
#include "rope/io/csv.hpp"
#include "rope/io/tensor_file.hpp"
#include "rope/core/utf8.hpp"
#include "rope/models/layout_term.hpp"
#include "rope/models/layer_types.hpp"
#include "rope/report/rope_text.hpp"
#include "rope/report/axes_value.hpp"
#include "rope/report/digits.hpp"
#include "rope/report/dump_text.hpp"
#include "rope/report/json.hpp"
#include "rope/report/printing.hpp"
#include "rope/report/text.hpp"

namespace rope {

std::string scaling_text(const RopeExpectation& e, bool no_rope, const Text& t) {
  if (no_rope) return t.tr("no RoPE on this layer");
  if (e.scaling.empty() || e.scaling == "default") return t.tr("none (default RoPE)");
  return e.scaling;
}

namespace {

/// The "expected" row with the attention factor as `factor` shows it; the layout's origin in parentheses where the
/// front end names one (a Python check names none: rope.check's Spec holds the layout it gives).
std::string expected_line(const RopeExpectation& e, const Message& where, const Text& t, const std::string& factor) {
  const std::string layout = layout_term(e.rope.layout).in(t.lang());
  const std::string base = format_number(e.base());
  if (e.table) {  // a given cos/sin table (cos_sin_table.hpp): no base, its values carry any magnitude
    return where.empty() ? t.tr("{0} layout, rotary dim {1} of {2}, cos and sin from the table given", layout,
                                e.rotary_dim(), e.rope.head_dim)
                         : t.tr("{0} layout ({1}), rotary dim {2} of {3}, cos and sin from the table given", layout,
                                where.in(t.lang()), e.rotary_dim(), e.rope.head_dim);
  }
  if (where.empty()) {
    return e.rope.axis_blocks
               ? t.tr(
                     "{0} layout inside each axis's block of d/2 channels, rotary dim {1} of {2}, base {3}, attention "
                     "factor {4}",
                     layout, e.rotary_dim(), e.rope.head_dim, base, factor)
               : t.tr("{0} layout, rotary dim {1} of {2}, base {3}, attention factor {4}", layout, e.rotary_dim(),
                      e.rope.head_dim, base, factor);
  }
  // Gemma 4's vision tower (V6): the layout inside each axis's block.
  return e.rope.axis_blocks
             ? t.tr(
                   "{0} layout inside each axis's block of d/2 channels ({1}), rotary dim {2} of {3}, base {4}, attention "
                   "factor {5}",
                   layout, where.in(t.lang()), e.rotary_dim(), e.rope.head_dim, base, factor)
             : t.tr("{0} layout ({1}), rotary dim {2} of {3}, base {4}, attention factor {5}", layout,
                    where.in(t.lang()), e.rotary_dim(), e.rope.head_dim, base, factor);
}

}  // namespace

std::string expected_text(const RopeExpectation& e, const Message& where, const Text& t) {
  return expected_line(e, where, t, format_number(e.attention_factor()));
}

/// rope check's row "expected": expected_text with the attention factor at the report's digits (`--digits`, default
/// 4; 0: every digit), an integer as it is (never "an attention factor of 1.138629436111989").
static std::string check_expected_text(const RopeExpectation& e, const Message& where, const Text& t,
                                       const std::optional<int>& digits) {
  const double a = e.attention_factor();
  return expected_line(e, where, t, a == std::floor(a) ? format_number(a) : with_digits(a, digits.value_or(4)));
}

namespace {

/// "3 of 64 (first: position 5): 5–6, 9"-style summary of the indices whose ratio exceeds 1: the count, the
/// first by `name`, and up to four runs of consecutive indices by `value` (a run also ends where `follows(last, i)`
/// is false: positions that do not step by one).
template <class Name, class ValueText, class Follows>
std::string failing_summary(const Eigen::VectorXd& ratio, const Text& t, Name name, ValueText value, Follows follows) {
  long count = 0, first = -1;
  std::vector<std::pair<long, long>> runs;
  for (Eigen::Index i = 0; i < ratio.size(); ++i) {
    if (ratio[i] <= 1.0) continue;
    ++count;
    if (first < 0) first = i;
    if (!runs.empty() && runs.back().second == i - 1 && follows(runs.back().second, static_cast<long>(i)))
      runs.back().second = i;
    else
      runs.emplace_back(i, i);
  }
  if (count == 0) return t.tr("0 of {0}", ratio.size());
  std::string list;
  for (std::size_t k = 0; k < runs.size() && k < 4; ++k) {
    list +=
        (k ? ", " : "") + value(runs[k].first) + (runs[k].second > runs[k].first ? "–" + value(runs[k].second) : "");
  }
  if (runs.size() > 4) list += ", …";
  return t.tr("{0} of {1} (first: {2}): {3}", count, ratio.size(), name(first), list);
}

}  // namespace

std::string more_segments_text(long more, long failing, const Text& t) {
  if (more <= 0) return "";
  if (failing <= 0) return t.tr("  … and {0} more that pass\n", more);
  if (failing >= more) return t.tr("  … and {0} more that fail\n", more);
  return t.tr("  … and {0} more: {1} pass, {2} fail\n", more, more - failing, failing);
}

namespace {

/// max |Δ|/tolerance, compared with 1: the digits that tell it from 1 (digits.hpp: 1.00004 is not "1").
std::string ratio_text(double ratio, const std::optional<int>& digits) { return compared({ratio, 1.0}, digits, 4)[0]; }

/// Largest number of segments the text report lists (the failing ones first).
constexpr std::size_t kSegmentLines = 16;

/// One line per batch row or packed sequence, at most kSegmentLines: its positions, verdict and, diagnosed, its
/// own diagnosis; the diagnosed ones first, then the other failing ones, then those that pass, in index order.
void print_segments(std::ostream& out, const LoadedDumps& dumps, const SegmentChecks& segments, const Text& t,
                    const std::optional<int>& digits) {
  std::vector<std::size_t> order;
  const std::vector<SegmentCheck>& listed = segments.listed;
  for (const int pass : {0, 1, 2}) {
    for (std::size_t k = 0; k < listed.size(); ++k) {
      const SegmentCheck& c = listed[k];
      if ((pass == 0 && c.diagnosed()) || (pass == 1 && !c.passed() && !c.diagnosed()) || (pass == 2 && c.passed()))
        order.push_back(k);
    }
  }
  const std::size_t shown = std::min(order.size(), kSegmentLines);
  std::sort(order.begin(), order.begin() + static_cast<long>(shown));
  for (std::size_t n = 0; n < shown; ++n) {
    const SegmentCheck& c = listed[order[n]];
    const std::string label = dumps.segments_are_rows ? t.tr("batch row {0}", c.index) : t.tr("sequence {0}", c.index);
    std::string line =
        dumps.segments_are_rows
            ? t.tr("positions {0}", position_span(dumps, c.segment.start, c.segment.length))
            : t.tr("indices {0}–{1}, positions {2}", c.segment.start, c.segment.start + c.segment.length - 1,
                   position_span(dumps, c.segment.start, c.segment.length));
    line = t.tr("{0}: {1} (max |Δ|/tolerance {2})", line, c.passed() ? t.tr("PASS") : t.trc("check verdict", "FAIL"),
                ratio_text(c.max_ratio, digits));
    if (c.diagnosed() && !c.report->diagnosis.message.en.empty()) {
      line = t.tr("{0}: {1}", line, c.report->diagnosis.message.in(t.lang()));
    }
    out << fmt::format("  {:<20}{}\n", label, line);
  }
  long shown_failing = 0;
  for (std::size_t n = 0; n < shown; ++n) shown_failing += listed[order[n]].passed() ? 0 : 1;
  out << more_segments_text(segments.count - static_cast<long>(shown), segments.failing - shown_failing, t);
  const long diagnosed = segments.diagnosed();
  if (diagnosed < segments.failing) {
    out << t.tr("  diagnosed: {0} of the {1} failing (the first {2} and the {3} worst)\n", diagnosed, segments.failing,
                kDiagnosedSegments / 2, kDiagnosedSegments / 2);
  }
}

/// A position as the dump gave it: one number, or (t, h, w) as a list.
Value position_value(const LoadedDumps& dumps, long s) {
  const auto at = static_cast<std::size_t>(s);
  if (dumps.axis_positions.empty()) return dumps.positions[at];
  Value p = Value::array();
  for (int k = 0; k < dumps.axis_positions[at].count; ++k)
    p.push_back(dumps.axis_positions[at].value[static_cast<std::size_t>(k)]);
  return p;
}

Value kind_value(const std::optional<VariantId>& k) { return k ? Value(to_string(*k)) : Value(); }

Value diagnosis_value(const CheckDiagnosis& d) {
  Value v;
  v["matches"] = kind_value(d.matches);
  v["message"] = d.message.en;
  v["swapped_groups"] = d.swapped_groups;
  v["restarts"] = d.restarts;
  v["closest"] = kind_value(d.closest);
  v["closest_explained"] = d.closest ? Value(d.closest_explained) : Value();
  v["correct_until"] = d.correct_until;
  // The parameter of the variant matched: {"length": 8192}, {"base": 500000}, …; {} when none.
  Value found = Value::object();
  for (const auto& [name, value] : d.found) found[name] = value;
  v["found"] = found;
  if (d.departure) {
    Value& w = v["departure"];
    w["index"] = d.departure->index;
    w["group"] = d.departure->group;
    w["channel"] = d.departure->channel;
    w["pair"] = d.departure->pair >= 0 ? Value(d.departure->pair) : Value();
    w["turned"] = d.departure->turned;
    w["expected_angle"] = d.departure->expected;
    w["norm"] = d.departure->norm;
  } else {
    v["departure"] = Value();
  }
  // The dump's RoPE as measured on a failing dump no listed variant matched (measured_rope.hpp), null otherwise; each
  // parameter that differs from the expected RoPE with its expected and found value, and the share of the dump's
  // elements that difference explains (null: not confirmed).
  if (d.measured) {
    const CheckDiagnosis::Measured& m = *d.measured;
    Value& w = v["measured"];
    w["layout"] = m.layout;
    w["rotary_dim"] = m.rotary_dim;
    w["rotary_offset"] = m.rotary_offset;
    w["family"] = m.family;
    w["base"] = m.base;
    w["factor"] = m.factor;
    w["attention_factor"] = m.attention_factor;
    w["position_offset"] = m.position_offset;
    w["restarts"] = m.restarts;
    w["reversed"] = m.reversed;
    w["theta"] = std::vector<double>(m.theta.data(), m.theta.data() + m.theta.size());
    w["indices"] = m.indices;
    w["groups"] = m.groups;
  } else {
    v["measured"] = Value();
  }
  Value& diff = v["difference"] = Value::array();
  for (const CheckDiagnosis::Difference& c : d.difference) {
    Value one;
    one["parameter"] = c.parameter;
    one["expected"] = c.expected;
    one["found"] = c.found;
    diff.push_back(one);
  }
  v["difference_explained"] = d.difference_total > 0 ? Value(d.difference_explained) : Value();
  v["difference_total"] = d.difference_total > 0 ? Value(d.difference_total) : Value();
  if (d.sample) {  // a large dump diagnosed on a sample (analysis/check/fast/check_sample.hpp); the key only then
    Value& w = v["sample"];
    w["indices"] = d.sample->indices;
    w["elements"] = d.sample->elements;
    w["explained_whole"] = d.sample->total > 0 ? Value(d.sample->explained) : Value();
    w["total_whole"] = d.sample->total > 0 ? Value(d.sample->total) : Value();
  }
  return v;
}

/// Per pair: the larger ratio of its two channels, the channels the pair is written to (de-interleaved output: not
/// those it is read from).
Eigen::VectorXd pair_ratios(const RopeExpectation& e, const DumpComparison& c) {
  const int r = e.rotary_dim();
  Eigen::VectorXd pair_ratio(r / 2);
  for (int i = 0; i < r / 2; ++i) {
    const auto [a, b] = pair_channels(e, i, true);
    pair_ratio[i] = std::max(c.channel_ratio[a], c.channel_ratio[b]);
  }
  return pair_ratio;
}

}  // namespace

void fope_value(Value& expected, const RopeExpectation& e) {
  if (!e.fope) return;  // FoPE (models/fope.hpp): its kept pairs and where its coefficients were read
  Value& f = expected["fope"];
  f["kept"] = e.fope->kept;
  f["padded"] = e.rotary_dim() / 2 - e.fope->kept;
  f["matrices"] = e.fope->heads;
  f["pad_sin"] = e.fope_pad_sin;
  f["coefficients"] = e.fope->file;
  f["cos_coef"] = e.fope->cos_name;
  f["sin_coef"] = e.fope->sin_name;
  // --kv-head: the matrix every vector of the dump takes (null: each head its group's)
  f["matrix"] = e.fope_matrix >= 0 ? Value(e.fope_matrix) : Value();
}

std::string fope_text(const RopeExpectation& e, const Text& t) {
  if (!e.fope) return "";
  if (e.fope_matrix >= 0) {  // --kv-head: one key-value head's heads alone
    return t.tr(
        "{0} kept pairs, {1} padded (cos 1, sin {2}); every vector on matrix {3} of the coefficients {4} and {5} of "
        "{6} ({7} matrices), the dump holding one key-value head's heads ({8}): each pair a scaled rotation "
        "(docs/multi-axis.md (F1)–(F4))",
        e.fope->kept, e.rotary_dim() / 2 - e.fope->kept, format_number(e.fope_pad_sin), e.fope_matrix, e.fope->cos_name,
        e.fope->sin_name, e.fope->file, e.fope->heads, option_name("kv_head"));
  }
  return t.tr(
      "{0} kept pairs, {1} padded (cos 1, sin {2}); per key-value head the coefficients {3} and {4} "
      "of {5} ({6} matrices): each pair a scaled rotation (docs/multi-axis.md (F1)–(F4))",
      e.fope->kept, e.rotary_dim() / 2 - e.fope->kept, format_number(e.fope_pad_sin), e.fope->cos_name,
      e.fope->sin_name, e.fope->file, e.fope->heads);
}

Message qk_pair_diagnosis(const QkPairCheck& p, const RopeExpectation& expected) {
  if (!p.measured || p.passed()) return {};
  return p.matches ? msg("the scores depart from the relative-position identity: {0}", describe(*p.matches, expected))
                   : msg("the scores of the rotated q and k are not those of q and k turned by n − m: RoPE's "
                         "relative-position property does not hold on these dumps");
}

/// The pair of q and k (qk_pair.hpp): the identity (Q1) under (Q2), where it is worst, the mistake found and its
/// sentence (English, as the JSON's).
static Value qk_pair_value(const QkPairCheck& p, const RopeExpectation& expected) {
  Value v;
  v["passed"] = p.passed();
  v["measured"] = p.measured;
  if (!p.measured) {
    v["not_measured"] = p.not_measured.en;
    return v;
  }
  v["max_score_error"] = p.max_score_error;  // |Δs|/S at the worst score
  v["tolerance"] = p.tolerance;              // (Q2)'s bound/S there
  v["max_ratio"] = p.max_ratio;              // the largest |Δs|/bound
  v["pairs_sampled"] = p.pairs_sampled;
  v["indices"] = p.indices;
  v["scores"] = p.scores;
  v["q_heads"] = p.q_heads;
  v["k_heads"] = p.k_heads;
  Value& w = v["worst"];
  w["m"] = p.m;
  w["n"] = p.n;
  w["q_group"] = p.q_group;
  w["k_group"] = p.k_group;
  w["score"] = p.got;
  w["expected"] = p.expected;
  v["matches"] = kind_value(p.matches);
  v["diagnosis"] = qk_pair_diagnosis(p, expected).en;
  return v;
}

Value check_value(const CheckRun& run) {
  const RopeExpectation& e = run.expected;
  const DumpComparison& c = run.report.comparison;
  const LoadedDumps& dumps = run.dumps;
  const bool passed = c.passed();
  Value j;
  j["passed"] = run.passed();  // a harmless reordering of the output passes (CheckRun::equivalent)
  if (run.equivalent) j["equivalent"] = std::string(equivalent_reordering(*run.equivalent));
  j["max_ratio"] = c.max_ratio;
  j["element_ratio"] = run.report.element_ratio;                                    // (C1)
  if (run.report.norm_ratio) j["norm_ratio"] = *run.report.norm_ratio;              // (N1), where it fails
  if (run.report.comparison_is_norms) j["comparison"] = std::string("pair-norms");  // max_ratio, failing: (N1)'s
  j["failing"] = c.failing;
  j["total"] = c.total;
  if (e.mode != CheckMode::Forward) j["mode"] = std::string(to_string(e.mode));  // forward, the default: not named
  if (e.mode == CheckMode::Shift) {
    j["shift"] = e.shift;
    j["shift_magnitude"] = e.shift_magnitude;
  }
  if (e.mode == CheckMode::ShiftMap) j["shift_magnitude"] = e.shift_magnitude;  // the δs are the positions
  Value& x = j["expected"];
  x["layout"] = std::string(to_string(e.rope.layout));
  if (e.rope.axis_blocks) x["axis_blocks"] = true;  // (V6): the layout inside each axis's block of d/2 channels
  x["rotary_dim"] = run.nope ? 0 : e.rotary_dim();
  x["rotary_offset"] = e.rope.rotary_offset;
  x["head_dim"] = e.rope.head_dim;
  x["base"] = e.base();
  x["attention_factor"] = e.attention_factor();
  x["scaling"] = e.scaling;
  x["error_model"] = e.error_model.en;
  if (e.table) {  // the cos/sin table given (cos_sin_table.hpp): the reference instead of θ
    Value& tb = x["table"];
    tb["name"] = e.table->name;
    tb["shape"] = Value::array();
    for (const long n : e.table->shape) tb["shape"].push_back(n);
    tb["form"] = std::string(to_string(e.table->form));
    tb["rows"] = e.table->rows;
    tb["pairs"] = e.table->half;
    tb["per_token"] = e.table->per_token;
    tb["cos_sin_cache"] = e.table->cache;
    tb["type"] = std::string(to_string(e.table->type));
  }
  if (e.query_beta != 0) {
    Value& q = x["query_scaling"];
    q["beta"] = e.query_beta;
    q["original_max_position_embeddings"] = e.query_original;
    q["shift"] = e.query_shift;
  }
  if (run.nope) {
    x["no_rope"]["layer_type"] = run.nope->layer_type;
    x["no_rope"]["layers"] = run.nope->layers;
  }
  if (e.rope.axes) axes_value(x, *e.rope.axes);
  fope_value(x, e);
  j["dtype"] = std::string(to_string(dumps.after.dtype));
  axes_assumed_value(j, dumps);
  j["angles"] = std::string(to_string(run.angles));
  j["only_position_zero"] = run.report.only_position_zero;
  j["notes"] = english(run.report.notes);
  // Several layer types checked without --layer-type: those tried and the one the dump passes as (null: none).
  if (!run.layer_types.empty()) {
    j["layer_types"] = run.layer_types;
    j["layer_type"] = run.layer_type.empty() ? Value() : Value(run.layer_type);
    // The types whose RoPE was not tried: beyond kMaxLayerTypeTries distinct ones (check_run.hpp).
    j["layer_types_not_tried"] = run.layer_types_not_tried;
  }
  // The batch rows or packed sequences: the first kListedSegments in order, counted; the diagnosed ones (at most
  // kDiagnosedSegments, check.hpp) with their diagnoses and a count per diagnosis.
  const auto segment_value = [&](const SegmentCheck& g) {
    Value seg;
    seg["kind"] = dumps.segments_are_rows ? "batch_row" : "sequence";
    seg["index"] = g.index;
    seg["start"] = g.segment.start;
    seg["length"] = g.segment.length;
    seg["passed"] = g.passed();
    seg["max_ratio"] = g.max_ratio;
    seg["failing_positions"] = g.failing_positions;
    if (!g.passed()) seg["diagnosis"] = g.diagnosed() ? diagnosis_value(g.report->diagnosis) : Value();
    return seg;
  };
  Value& segments = j["segments"] = Value::array();
  Value& diagnosed = j["diagnosed_segments"] = Value::array();
  Value& diagnoses = j["segment_diagnoses"] = Value::object();
  for (const SegmentCheck& g : run.segments.listed) {
    if (static_cast<std::size_t>(g.index) < kListedSegments) segments.push_back(segment_value(g));
    if (!g.diagnosed()) continue;
    diagnosed.push_back(segment_value(g));
    const std::optional<VariantId>& k = g.report->diagnosis.matches;
    Value& n = diagnoses[k ? to_string(*k) : "none"];
    n = Value(n.integer() + 1);
  }
  j["segment_count"] = run.segments.count;
  j["failing_segment_count"] = run.segments.failing;
  // The sequence indices (with their positions) and the pairs (with their channels) where some element fails.
  Value& failing_positions = j["failing_positions"] = Value::array();
  std::size_t failing_position_count = 0;
  for (Eigen::Index s = 0; s < c.position_ratio.size(); ++s) {
    if (!(c.position_ratio[s] > 1.0)) continue;
    if (failing_position_count++ < kListedFailingPositions) {
      Value item = Value::array();
      item.push_back(static_cast<long>(s));
      item.push_back(position_value(dumps, s));
      failing_positions.push_back(std::move(item));
    }
  }
  j["failing_position_count"] = failing_position_count;
  Value& failing_pairs = j["failing_pairs"] = Value::array();
  const Eigen::VectorXd pair_ratio = pair_ratios(e, c);
  for (int i = 0; i < pair_ratio.size(); ++i) {
    if (!(pair_ratio[i] > 1.0)) continue;
    const auto [a, b] = pair_channels(e, i, true);
    failing_pairs.push_back(std::vector<int>{i, a, b});
  }
  if (!passed) {
    Value& f = j["first_failure"];
    f["position"] = position_value(dumps, c.first_seq);
    f["index"] = c.first_seq;
    f["group"] = c.first_group;
    f["channel"] = c.first_channel;
    f["expected"] = c.first_expected;
    f["got"] = c.first_got;
    f["tolerance"] = c.first_tolerance;
    const CheckDiagnosis& dg = run.report.diagnosis;
    Value& d = j["diagnosis"] = diagnosis_value(dg);
    if (dg.no_rope) {  // a layer without RoPE, rotated: the model's RoPE as it is ("expected"), a variant of it, or
                       // null
      d["no_rope_rotated"]["rope_matches"] = kind_value(dg.no_rope->rope_matches);
      d["no_rope_rotated"]["changed"] = dg.no_rope->changed;
    }
    Value& v = j["variants_failing"] = Value::object();
    for (const auto& [kind, comparison] : run.report.variants) v[to_string(kind)] = comparison.failing;
  } else {
    j["diagnosis"] = Value();
  }
  if (run.k) j["k"] = check_value(*run.k);  // q and k together: k's report, the same keys
  if (run.pair) j["pair"] = qk_pair_value(*run.pair, run.expected);
  return j;
}

/// The pair's lines (qk_pair.hpp): the identity, its sample, the worst score against (Q2), the verdict.
static void print_qk_pair(std::ostream& out, const QkPairCheck& p, const CheckRun& q, const Text& t,
                          const std::optional<int>& digits) {
  const auto row = [&](const std::string& label, const std::string& value) {
    out << fmt::format("  {:<20}{}\n", label, value);
  };
  out << '\n' << t.tr("rope check: q and k together, ⟨R_m q, R_n k⟩ = qᵀ R_(n−m) k\n");
  if (!p.measured) {
    row(t.tr("verdict"), t.tr("not measured: {0}", p.not_measured.in(t.lang())));
    return;
  }
  const long share = p.k_heads > 0 ? p.q_heads / p.k_heads : 1;
  row(t.tr("sample"), t.tr("{0} sequence indices, {1} (m, n) pairs, {2} scores; q head h reads k head h/{3} ({4} q "
                           "heads, {5} k heads)",
                           p.indices, p.pairs_sampled, p.scores, share, p.q_heads, p.k_heads));
  row(t.tr("tolerance (Q2)"), t.tr("each score within the bound (C1) of q and of k allows (docs/check.md)"));
  row(t.tr("max |Δs|/bound"), t.tr("{0}  (<= 1 passes)", ratio_text(p.max_ratio, digits)));
  const LoadedDumps& d = q.dumps;
  const auto position = [&](long s) {
    return d.axis_positions.empty() ? format_number(d.positions[static_cast<std::size_t>(s)])
                                    : d.axis_positions[static_cast<std::size_t>(s)].text();
  };
  const std::vector<std::string> shown = compared({p.expected, p.got}, digits, 4);
  row(t.tr("largest"), t.tr("q at position {0} ({1}), k at position {2}: score {3}, expected {4}; |Δs| {5} of S, "
                            "bound {6} of S",
                            position(p.m), vector_name(d, p.m, p.q_group, t), position(p.n), shown[1], shown[0],
                            g4(p.max_score_error), g4(p.tolerance)));
  row(t.tr("verdict"), p.passed() ? t.tr("PASS") : t.trc("check verdict", "FAIL"));
  if (!p.passed()) row(t.tr("diagnosis"), qk_pair_diagnosis(p, q.expected).in(t.lang()));
}

namespace {

/// Whether two sequence indices of a dump of positions per axis share a position (every component equal: a joint
/// sequence's text tokens at (0, 0, 0)); one-number positions that repeat (packed sequences) are listed as ranges.
bool positions_repeat(const LoadedDumps& dumps) {
  std::vector<std::vector<double>> seen;
  for (const AxisPosition& p : dumps.axis_positions) {
    seen.emplace_back();
    for (int a = 0; a < p.count; ++a) seen.back().push_back(p[a]);
  }
  std::sort(seen.begin(), seen.end());
  return std::adjacent_find(seen.begin(), seen.end()) != seen.end();
}

}  // namespace

void print_check(std::ostream& out, const CheckRun& run, const Text& t, const std::optional<int>& digits) {
  const LoadedDumps& dumps = run.dumps;
  const RopeExpectation& e = run.expected;
  const auto& nope = run.nope;
  const CheckReport& report = run.report;
  // A position as the dump gave it: one number, or (t, h, w).
  const auto position = [&](long s) {
    return dumps.axis_positions.empty() ? format_number(dumps.positions[static_cast<std::size_t>(s)])
                                        : dumps.axis_positions[static_cast<std::size_t>(s)].text();
  };
  const DumpComparison& c = report.comparison;
  const int r = e.rotary_dim();
  const Eigen::VectorXd pair_ratio = pair_ratios(e, c);
  const bool passed = c.passed();
  const auto row = [&](const std::string& label, const std::string& value) {
    out << fmt::format("  {:<20}{}\n", label, value);
  };
  out << t.tr("rope check: {0} against RoPE({1})\n", escape_controls(run.after_file), escape_controls(run.before_file));
  row(t.tr("dump"),
      t.tr("[{0}] = {1}, {2} ({3}), positions {4}", std::string(to_string(dumps.axes)), shape_string(dumps.shape),
           std::string(to_string(dumps.after.dtype)), dumps.stored, positions_text(dumps, t)));
  if (dumps.axes_assumed) row(t.tr("axes"), axes_assumed_text(dumps, t));
  if (e.mode != CheckMode::Forward) row(t.tr("mode"), check_mode(e.mode).title(e).in(t.lang()));
  if (nope && e.query_beta != 0) {
    row(t.tr("expected"),
        t.tr("the query times t(p) (S20): layers {0} ({1}) of {2} have no RoPE", describe_layers(nope->layers),
             escape_controls(nope->layer_type), escape_controls(nope->model)));
  } else if (nope) {
    row(t.tr("expected"), t.tr("unchanged: layers {0} ({1}) of {2} have no RoPE", describe_layers(nope->layers),
                               escape_controls(nope->layer_type), escape_controls(nope->model)));
  } else {
    row(t.tr("expected"), check_expected_text(e, run.where, t, digits));
  }
  // The order the spec writes its pairs in, where a dump may hold the other one (docs/check.md: not a bug).
  const std::optional<VariantId>& named = report.diagnosis.matches;
  if (e.rope.layout == Layout::Interleaved &&
      (e.rope.deinterleaved_output || (named && equivalent_reordering(*named) != nullptr))) {
    row(t.tr("output order"),
        e.rope.deinterleaved_output
            ? t.tr("de-interleaved: pair i written at (i, i + {0}), as HF's DeepSeek-V3 returns it", r / 2)
            : t.tr("in place: pair i written back at (2i, 2i + 1), as llama.cpp writes it"));
  }
  if (e.rope.axes && e.rope.axes->vision()) {
    row(t.tr("2-D vision RoPE"),
        t.tr("{0} ({1}): pair i turns by θ_i·(p_a(i){2}), p the patch's row h or column w", e.rope.axes->vision_kind,
             e.rope.axes->vision_equation,
             e.rope.axes->position_offset != 0 ? " + " + format_number(e.rope.axes->position_offset) : ""));
  } else if (e.rope.axes && e.rope.axes->xdrope()) {
    // HunyuanVL's XD-RoPE (A11): each channel at the position of its stream; HF's map is no rotation per pair.
    row("XD-RoPE",
        e.rope.axes->split()
            ? t.tr("xdrope_section [{0}], {1} (docs/multi-axis.md (A11)): channel j turns by θ_j·p_a(j), "
                   "channel j + d/2 by θ_j·p_b(j), a and b two streams of p, w, h, t",
                   fmt::join(e.rope.axes->source.sections, ", "), order_name(e.rope.axes->source.order, t.lang()))
            : t.tr("xdrope_section [{0}], {1} (docs/multi-axis.md (A11)): pair j turns by θ_j·p_a(j), a "
                   "one of the streams p, w, h, t",
                   fmt::join(e.rope.axes->source.sections, ", "), order_name(e.rope.axes->source.order, t.lang())));
  } else if (e.rope.axes && e.rope.axes->grid()) {
    // A diffusion transformer's latent grid (models/grid_rope.hpp): its axes' widths, not M-RoPE's sections.
    const AxisMap& g = *e.rope.axes;
    std::vector<std::string> widths;
    for (std::size_t a = 0; a < g.names.size(); ++a) {
      widths.push_back(fmt::format("{} {}", g.names[a], 2 * g.pairs_of(static_cast<int>(a))));
    }
    row(t.tr("latent grid"),
        t.tr("channels per axis {0}{1} (docs/multi-axis.md (G1)): pair i turns by θ_i·p_a(i)", fmt::join(widths, ", "),
             g.per_frequency ? t.tr(", the axes in turn per frequency") : t.tr(", one block per axis")));
  } else if (e.rope.axes) {
    // The axis of every pair: rope frequencies --model NAME prints them.
    row("M-RoPE", t.tr("mrope_section [{0}], {1} (docs/multi-axis.md {2}): pair i turns by θ_i·p_a(i)",
                       fmt::join(e.rope.axes->source.sections, ", "), order_name(e.rope.axes->source.order, t.lang()),
                       axis_rule(e.rope.axes->source.order)));
  }
  if (e.fope) row("FoPE", fope_text(e, t));
  row(t.tr("scaling"), scaling_text(e, nope.has_value(), t));
  row(t.tr("error model"), e.error_model.in(t.lang()));
  if (e.table) {  // (T1): the table's values, no angle
    row(t.tr("tolerance (T1)"),
        fmt::format("κ·|c_i + i·s_i|·‖x‖·(2·ε_T + 2·ε_U), ε_T = {} ({}), ε_U = {} ({}), κ = {}",
                    g4(epsilon(dumps.after.dtype)), to_string(dumps.after.dtype), g4(epsilon(e.table->type)),
                    to_string(e.table->type), format_number(kToleranceSafety)));
  } else {
    row(t.tr("tolerance (C1)"), fmt::format("κ·a·‖x‖·(2·ε_T + ε_A·(1 + c_i·{}·θ_i)), ε_T = {} ({}), ε_A = {}, κ = {}",
                                            !e.rope.axes ? std::string("|m|")
                                            : e.rope.axes->position_offset != 0
                                                ? "|p_a(i) + " + format_number(e.rope.axes->position_offset) + "|"
                                                : std::string("|p_a(i)|"),
                                            g4(epsilon(dumps.after.dtype)), to_string(dumps.after.dtype),
                                            g4(angle_epsilon(run.angles)), format_number(kToleranceSafety)));
    row(t.tr("angles (C2)"),
        t.tr("{0}: c_i = {1}", std::string(to_string(run.angles)), angle_error_formula(run.angles, e.base(), r)));
  }
  out << '\n';
  row(t.tr("max |Δ|/tolerance"), t.tr("{0}  (<= 1 passes)", ratio_text(c.max_ratio, digits)));
  // Each test's own ratio: bf16's element tolerance lets a norm 12 % off through, so the two differ.
  const CheckReport& rp = run.report;
  if (!e.fope && e.table) {  // a given table: the elements under (T1)
    row(t.tr("ratio per test"),
        rp.norm_ratio ? t.tr("elements (T1) {0}, pair norms (N1) {1}", ratio_text(rp.element_ratio, digits),
                             ratio_text(*rp.norm_ratio, digits))
                      : t.tr("elements (T1) {0}, pair norms (N1) <= 1", ratio_text(rp.element_ratio, digits)));
  } else if (!e.fope) {
    row(t.tr("ratio per test"),
        rp.norm_ratio ? t.tr("elements (C1) {0}, pair norms (N1) {1}", ratio_text(rp.element_ratio, digits),
                             ratio_text(*rp.norm_ratio, digits))
                      : t.tr("elements (C1) {0}, pair norms (N1) <= 1", ratio_text(rp.element_ratio, digits)));
  }
  row(t.tr("elements failing"), t.tr("{0} of {1}", c.failing, c.total));
  // A K cache shifted (--shift, --shift-map): each index is a key, turned by its δ (the dump's "positions").
  const bool keys = e.mode == CheckMode::Shift || e.mode == CheckMode::ShiftMap;
  if (keys) {
    row(t.tr("keys failing"), failing_summary(
                                  c.position_ratio, t, [&](long s) { return t.tr("key {0}, δ = {1}", s, position(s)); },
                                  [](long s) { return std::to_string(s); }, [](long, long) { return true; }));
  } else if (positions_repeat(dumps)) {
    // Tokens that share a position (a joint sequence's text tokens at (0, 0, 0)): each named by its index.
    row(t.tr("indices failing"),
        failing_summary(
            c.position_ratio, t, [&](long s) { return t.tr("index {0}, position {1}", s, position(s)); },
            [](long s) { return std::to_string(s); }, [](long, long) { return true; }));
  } else {
    row(t.tr("positions failing"),
        failing_summary(
            c.position_ratio, t, [&](long s) { return t.tr("position {0}", position(s)); }, position,
            [&](long last, long next) { return position_follows(dumps, last, next); }));
  }
  row(t.tr("pairs failing"), failing_summary(
                                 pair_ratio, t,
                                 [&](long i) {
                                   const auto [a, b] = pair_channels(e, static_cast<int>(i), true);
                                   return t.tr("pair {0}, channels ({1}, {2})", i, a, b);
                                 },
                                 [](long i) { return std::to_string(i); }, [](long, long) { return true; }));
  if (r < e.rope.head_dim) {
    // The channels outside [offset, offset + r): after the rotated ones, or before them (DeepSeek's offset).
    const int first = e.rope.rotary_offset > 0 ? 0 : r;
    const Eigen::VectorXd others = e.rope.rotary_offset > 0
                                       ? Eigen::VectorXd(c.channel_ratio.head(e.rope.rotary_offset))
                                       : Eigen::VectorXd(c.channel_ratio.tail(e.rope.head_dim - r));
    row(t.tr("unrotated failing"),
        failing_summary(
            others, t, [&](long i) { return t.tr("channel {0}", first + i); },
            [&](long i) { return std::to_string(first + i); }, [](long, long) { return true; }));
  }
  if (!passed) {
    const std::vector<std::string> shown =
        compared({c.first_expected, c.first_got}, digits, 4);  // digits.hpp: they differ
    const std::string tolerance = digits ? with_digits(c.first_tolerance, *digits) : g4(c.first_tolerance);
    row(t.tr("first failure"),
        keys ? t.tr("key {0} (δ = {1}), {2}, channel {3}: expected {4}, got {5} (tolerance {6})", c.first_seq,
                    position(c.first_seq), vector_name(dumps, c.first_seq, c.first_group, t), c.first_channel, shown[0],
                    shown[1], tolerance)
             : t.tr("position {0}, {1}, channel {2}: expected {3}, got {4} (tolerance {5})", position(c.first_seq),
                    vector_name(dumps, c.first_seq, c.first_group, t), c.first_channel, shown[0], shown[1], tolerance));
    if (run.report.comparison_is_norms)  // the numbers above are a pair's norm and (N1)'s bound, not (C1)'s
      row("", t.tr("(the pair norms' test (N1): expected a·‖x‖, got the pair's norm ‖y‖, the tolerance its bound)"));
  }
  if (!run.segments.empty()) print_segments(out, dumps, run.segments, t, digits);
  // The verdict in the context "check verdict": rope verify, layouts and permute translate "FAIL" differently
  // (docs/classroom.zh.md), and docs/cli.md quotes this verdict as it is.
  row(t.tr("verdict"), passed           ? t.tr("PASS")
                       : run.equivalent ? t.tr("PASS, equivalent: {0}", describe(*run.equivalent, e).in(t.lang()))
                                        : t.trc("check verdict", "FAIL"));
  if (!passed && !report.diagnosis.message.en.empty()) row(t.tr("diagnosis"), report.diagnosis.message.in(t.lang()));
  for (const Message& note : report.notes) out << t.tr("note: ") << note.in(t.lang()) << '\n';
  if (run.equivalent) {
    out << t.tr("note: ")
        << t.tr("a harmless reordering of the output, not a bug; {0} makes it a FAIL", option_name("strict_order"))
        << '\n';
  }
  if (!passed && e.rope.axes && !e.rope.axes->vision() && dumps.axis_positions.empty()) {
    out << t.tr(
        "note: with M-RoPE one position p is (p, p, p), a text token's; image and video tokens need their\n"
        "  t,h,w: give {0} FILE ({1} writes one)\n",
        option_name("axis_positions"), option_name("positions_csv"));
  }
  if (report.only_position_zero) {
    out << t.tr("warning: every position is 0, where every layout and base agree: dump positions > 0 too\n");
  }
  if (run.k) {  // q and k together: k's own report, then the pair
    out << '\n';
    print_check(out, *run.k, t, digits);
  }
  if (run.pair) print_qk_pair(out, *run.pair, run, t, digits);
}

}  // namespace rope
