/// @file
/// The library, as the live lesson page (docs/live/lesson.html) calls it from JavaScript: embind functions
/// that take the page's settings (d, base, positions m and n, layout, scaling method and factor, context,
/// tokens, shift, the page's language) and return the report values of the commands the page names beside its
/// panels, converted by to_val (the twin of apps/python's to_python): `rope frequencies`, `wavelengths`,
/// `explain`, `matrix`, `decay`, `attention`, `layouts --cache` and `sections` (panel 8). Each answer is a
/// report::Value tree: `value`, the command's report value (what its --json prints); where the command's value does not
/// hold what the panel draws (the full decay grid: its CSV; the rotated pair, the attention weights, the cos/sin cache:
/// its figure's data), those numbers beside it; and the library's sentences in the page's language.
/// The page formats no number: each answer comes with every number in the library's spellings, `exact`
/// (format_number: every digit, as the CSV and JSON print it) and `shown` (the panel's report's own:
/// readable's 6 significant digits of the tables, fx's 6 decimals of `rope explain`, the 3 digits of the
/// shift table), tests/browser/check_live.py runs each command and compares.
///
/// Built only by the WebAssembly target (web/CMakeLists.txt, `make web`) with Debian's emscripten; the
/// native build never sees this file. An error of the library crosses into JavaScript as an object
/// {error: English, error_zh: Chinese} (the catalog's translation, installed by set_catalog), never as
/// an exception.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <algorithm>
#include <exception>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

#include "rope/analysis/calculators/decay.hpp"
#include "rope/analysis/teaching/attention.hpp"
#include "rope/analysis/teaching/attention_run.hpp"
#include "rope/analysis/teaching/axes_grid.hpp"
#include "rope/analysis/teaching/decay_run.hpp"
#include "rope/analysis/teaching/explain_run.hpp"
#include "rope/analysis/teaching/frequency_table.hpp"
#include "rope/analysis/teaching/layouts.hpp"
#include "rope/analysis/teaching/matrix_run.hpp"
#include "rope/analysis/teaching/wavelengths_run.hpp"
#include "rope/core/error.hpp"
#include "rope/core/message.hpp"
#include "rope/io/csv.hpp"
#include "rope/models/resolve.hpp"
#include "rope/models/rope_spec.hpp"
#include "rope/plot/ticks.hpp"
#include "rope/report/attention_report.hpp"
#include "rope/report/axes_grid_report.hpp"
#include "rope/report/decay_report.hpp"
#include "rope/report/digits.hpp"
#include "rope/report/explain_report.hpp"
#include "rope/report/frequencies_report.hpp"
#include "rope/report/matrix_report.hpp"
#include "rope/report/printing.hpp"
#include "rope/report/text.hpp"
#include "rope/report/value.hpp"
#include "rope/report/wavelengths_report.hpp"

using emscripten::val;
using rope::Lang;

namespace {

/// The page's Chinese: the catalog's entries the page needs, keyed by context + '\x04' + id (gettext's
/// own separator), given once by set_catalog.
std::map<std::string, std::string>& catalog() {
  static std::map<std::string, std::string> entries;
  return entries;
}

const std::string* translate(std::string_view id, std::string_view context) {
  std::string key(context);
  key += '\x04';
  key += id;
  const auto it = catalog().find(key);
  return it == catalog().end() ? nullptr : &it->second;
}

void set_catalog(val entries) {
  const val keys = val::global("Object").call<val>("keys", entries);
  const int n = keys["length"].as<int>();
  for (int i = 0; i < n; ++i) {
    const std::string key = keys[i].as<std::string>();
    catalog()[key] = entries[key].as<std::string>();
  }
  rope::Message::set_translator(&translate);
}

/// How to_val writes a report value's numbers (Value::Kind::Double; integers stay numbers): as JavaScript numbers
/// (what the page draws with), or as texts spelled by the library, never by the page.
enum class Spelling {
  Number,    ///< a JavaScript number
  Exact,     ///< format_number: every digit, the shortest that reads back (the CSV's and the JSON's)
  Readable,  ///< readable: 6 significant digits, integers as integers (the tables of `rope frequencies`, `matrix`)
  Fixed,     ///< fx: 6 decimals (the walkthrough of `rope explain`)
  Compared,  ///< 3 significant digits in scientific form (the shift table of `rope attention`)
};

std::string spelled(double x, Spelling how) {
  switch (how) {
    case Spelling::Exact:
      return rope::format_number(x);
    case Spelling::Fixed:
      return rope::fx(x);
    case Spelling::Compared:
      return x == 0.0 ? std::string("0") : rope::sci_with_digits(x, 3);
    default:
      return rope::readable(x);
  }
}

/// A list of numbers (a row of a matrix, a curve) in one crossing into JavaScript rather than one per number (a
/// matrix of d = 256 is 65 536 of them): as numbers, copied out of the module's memory into an Array; spelled, one
/// text of the spellings split at its newlines.
val numbers(const std::vector<rope::Value>& items, Spelling how) {
  if (how == Spelling::Number) {
    std::vector<double> x;
    x.reserve(items.size());
    for (const rope::Value& item : items) x.push_back(item.number());
    return val::global("Array").call<val>("from", val(emscripten::typed_memory_view(x.size(), x.data())));
  }
  std::string text;
  for (const rope::Value& item : items) (text += spelled(item.number(), how)) += '\n';
  text.pop_back();
  return val(text).call<val>("split", std::string("\n"));
}

/// A report value as JavaScript values: null, booleans, numbers, texts, arrays and objects, field by field (the
/// twin of apps/python's to_python). The page's one object of its own is made here.
val to_val(const rope::Value& v, Spelling how = Spelling::Number) {
  switch (v.kind()) {
    case rope::Value::Kind::Null:
      return val::null();
    case rope::Value::Kind::Bool:
      return val(v.boolean());
    case rope::Value::Kind::Int:
      return val(static_cast<double>(v.integer()));
    case rope::Value::Kind::UInt:
      return val(static_cast<double>(v.uinteger()));
    case rope::Value::Kind::Double:
      return how == Spelling::Number ? val(v.number()) : val(spelled(v.number(), how));
    case rope::Value::Kind::String:
      return val(v.text());
    case rope::Value::Kind::Array: {
      const std::vector<rope::Value>& items = v.items();
      const auto is_number = [](const rope::Value& x) { return x.kind() == rope::Value::Kind::Double; };
      if (!items.empty() && std::all_of(items.begin(), items.end(), is_number)) return numbers(items, how);
      val a = val::array();
      int k = 0;
      for (const rope::Value& x : items) a.set(k++, to_val(x, how));
      return a;
    }
    case rope::Value::Kind::Object: {
      val o = val::object();
      for (const auto& [key, x] : v.fields()) o.set(key, to_val(x, how));
      return o;
    }
  }
  return val::null();
}

/// An answer for the page: the tree with its numbers as numbers, and beside it the same tree (or `part`, the part
/// of it the page shows as text) with every number spelled by the library: `exact` every digit, `shown` with
/// readable's 6 significant digits, and where the panel's report prints its numbers otherwise, `fixed` (fx) or
/// `compared` (the shift table's).
val answer(const rope::Value& v, Spelling also = Spelling::Number, const rope::Value* part = nullptr) {
  const rope::Value& texts = part ? *part : v;
  val o = to_val(v);
  o.set("exact", to_val(texts, Spelling::Exact));
  o.set("shown", to_val(texts, Spelling::Readable));
  if (also == Spelling::Fixed) o.set("fixed", to_val(texts, Spelling::Fixed));
  if (also == Spelling::Compared) o.set("compared", to_val(texts, Spelling::Compared));
  return o;
}

rope::Value as_list(const Eigen::VectorXd& v) { return std::vector<double>(v.data(), v.data() + v.size()); }

/// A matrix as a list of its rows.
rope::Value as_rows(const Eigen::MatrixXd& m) {
  rope::Value rows = rope::Value::array();
  for (Eigen::Index i = 0; i < m.rows(); ++i) rows.push_back(as_list(m.row(i).transpose()));
  return rows;
}

/// A report's CSV table (report/emit.hpp's csv face) as {header, columns}.
rope::Value table_value(const rope::Table& table) {
  rope::Value v = rope::Value::object();
  v["header"] = table.header;
  rope::Value columns = rope::Value::array();
  for (const Eigen::VectorXd* c : table.all_columns()) columns.push_back(as_list(*c));  // its own, then its views
  v["columns"] = std::move(columns);
  return v;
}

double number(const val& p, const char* key) { return p[key].as<double>(); }
int integer(const val& p, const char* key) { return p[key].as<int>(); }
Lang language(const val& p) { return p["lang"].as<std::string>() == "zh" ? Lang::Zh : Lang::En; }

/// The library's messages (a scaling method's warnings) in the page's language.
rope::Value sentences(const std::vector<rope::Message>& list, Lang lang) {
  rope::Value v = rope::Value::array();
  for (const rope::Message& m : list) v.push_back(m.in(lang));
  return v;
}

/// The page's settings as the command line's flags give them: --dim, --base, --layout, and with a method
/// other than none, --scaling, --factor, --original-max-position, yarn's --yarn-variant and llama3's band
/// factors (1 and 4, Llama 3.1's). `layout` false: the command's default layout (interleaved), as `rope attention`,
/// which has none.
rope::ModelRope resolve(const val& p, bool layout = true) {
  rope::RopeOverrides o;
  o.head_dim = integer(p, "d");
  o.base = number(p, "base");
  if (layout) o.layout = rope::parse_layout(p["layout"].as<std::string>());
  const std::string method = p["scaling"].as<std::string>();
  if (method != "none") {
    o.scaling = method;
    if (method != "default") o.factor = number(p, "factor");
    if (method == "yarn" || method == "llama3") o.original_max_position_embeddings = static_cast<long>(number(p, "L0"));
    if (method == "yarn") o.yarn_variant = p["yarn_variant"].as<std::string>();
    if (method == "llama3") {
      o.low_freq_factor = 1.0;
      o.high_freq_factor = 4.0;
    }
  }
  return rope::resolve_model_rope({}, o);
}

/// Runs `f`, turning a library error into {error, error_zh} and anything else into {error: what()}.
template <class F>
val guarded(F&& f) {
  rope::Value failed = rope::Value::object();
  try {
    return f();
  } catch (const rope::Error& e) {
    failed["error"] = std::string(e.what());
    failed["error_zh"] = e.message() ? e.message()->in(Lang::Zh) : std::string(e.what());
  } catch (const std::exception& e) {
    failed["error"] = std::string(e.what());
    failed["error_zh"] = std::string(e.what());
  }
  return to_val(failed);
}

/// `rope frequencies` (the panel's table): its report value (inv_freq, original_inv_freq with a method,
/// attention_factor, band, …), and its warnings in the page's language.
val frequencies(val p) {
  return guarded([&] {
    const rope::FrequencyTable table = rope::frequency_table({resolve(p), std::nullopt, false});
    rope::Value o = rope::Value::object();
    o["value"] = rope::frequencies_value(table);
    o["warnings"] = sentences(table.spec.params.warnings, language(p));
    return answer(o);
  });
}

/// `rope wavelengths --dim d --base b --context L [scaling]`: its report value (the curves' λ_i, original then
/// scaled, and per context the first pair that never turns within it and the critical dimension), and per curve
/// its paragraph on the context as the command prints it, in the page's language (`sentences`).
val wavelengths(val p) {
  return guarded([&] {
    rope::WavelengthsRequest request;
    request.dim = integer(p, "d");
    request.bases = {number(p, "base")};
    request.contexts = {number(p, "context")};
    if (p["scaling"].as<std::string>() != "none") request.rope = resolve(p);
    const rope::WavelengthsRun run = rope::run_wavelengths(request);
    const rope::Text t(language(p));
    rope::Value sentences = rope::Value::array();
    for (std::size_t c = 0; c < run.curves.size(); ++c)
      sentences.push_back(rope::wavelengths_context_text(run, 0, c, t));
    rope::Value o = rope::Value::object();
    o["value"] = rope::wavelengths_value(run);
    o["sentences"] = std::move(sentences);
    return answer(o);
  });
}

/// `rope explain --position m --position n --theta θ_i --step 5 --quiet`: the drawn pair, q = (1, 0.5) at m
/// and k = (0.8, −0.3) at n turned by θ_i of pair i (the table's θ_i, scaled with a method): the command's report
/// value (score, relative_score, …) and what the panel draws (`drawn`: the rotated pair, each angle, the angle
/// between them, the sign slip qᵀR((m−n)θ_i)k and its reversed vectors), shown as the walkthrough prints them
/// (fx, 6 decimals). The score is the pair's, never a d-channel sum.
val pair(val p) {
  return guarded([&] {
    const rope::FrequencyTable table = rope::frequency_table({resolve(p), std::nullopt, false});
    const int i = integer(p, "pair");
    if (i < 0 || i >= table.theta.size())
      throw std::out_of_range("pair i outside 0 … d/2 − 1");  // the page keeps it in
    rope::ExplainRequest request;
    request.positions = {number(p, "m"), number(p, "n")};
    request.theta = table.theta[i];
    request.step = 5;
    request.quiet = true;
    const rope::ExplainRun run = rope::run_explain(request);
    const rope::explain::Walkthrough& w = run.walkthrough;
    const rope::explain::Step5& five = w.step5;
    rope::Value drawn = rope::Value::object();
    drawn["rq"] = as_list(five.q_rotated);
    drawn["rk"] = as_list(five.k_rotated);
    drawn["angle_q"] = w.step2.query.angle;
    drawn["angle_k"] = w.step2.key.angle;
    drawn["angle_between"] = five.angle_between;
    // The sign slip of step 5: both rotations reversed, R(mθ)ᵀq and R(nθ)ᵀk, whose dot product is
    // qᵀR((m−n)θ)k, not the score.
    drawn["rq_reversed"] = as_list(five.q_reversed);
    drawn["rk_reversed"] = as_list(five.k_reversed);
    drawn["wrong_sign"] = five.wrong_sign;
    rope::Value o = rope::Value::object();
    o["value"] = rope::explain_value(run);
    o["drawn"] = std::move(drawn);
    return answer(o, Spelling::Fixed);
  });
}

/// `rope matrix --dim d --position m --layout L`: its report value, R_m (a·R_m on a scaled spec) row by row, the
/// first row also spelled.
val matrix(val p) {
  return guarded([&] {
    rope::MatrixRequest request;
    request.rope = resolve(p);
    request.position = rope::AxisPosition::single(number(p, "m"));
    rope::Value o = rope::Value::object();
    o["value"] = rope::matrix_value(rope::run_matrix(request));
    // The page shows two entries of the first row as text (R_00 and its partner): only that row is spelled, not
    // the d² entries (65 536 at d = 256).
    rope::Value first_row = rope::Value::object();
    first_row["value"]["matrix"].push_back(o["value"]["matrix"].items().front());
    return answer(o, Spelling::Number, &first_row);
  });
}

/// `rope decay --dim d --base b --max-distance D`: RoFormer's bound (M11) at every integer distance 0 … D,
/// for the original frequencies and, with a method, the scaled ones times a² (S15): the command's own call
/// (analysis/teaching/decay_run.hpp run_decay), its report value and its full grid, the CSV's table (`table`:
/// the columns distance, then one per curve).
val decay(val p) {
  return guarded([&] {
    const rope::ModelRope r = resolve(p);
    rope::DecayRequest request;
    request.max_distance = number(p, "max_distance");
    if (!r.plain && r.spec.config.type != rope::ScalingType::Default) {
      request.model = r;
    } else {
      request.bases = {r.spec.config.base};
      request.dim = r.spec.rotary_dim;
    }
    const rope::DecayRun run = rope::run_decay(request);
    rope::Value o = rope::Value::object();
    o["value"] = rope::decay_value(run);
    o["table"] = table_value(rope::decay_table(run));
    return answer(o);
  });
}

/// `rope layouts --dim d --base b --cache`: the cos/sin cache as it sits in memory, the three tables of
/// layout_cache (half, interleaved, gpt-oss's half-width) for positions 0 … 15, each {kind, width, cos, sin,
/// angle (row by row), partner_a, partner_b}: the same function draws the command's figure.
val cache(val p) {
  return guarded([&] {
    const rope::ModelRope r = resolve(p, false);
    const rope::LayoutCache c = rope::layout_cache(r.spec.params.inv_freq);
    rope::Value o = rope::Value::object();
    o["d"] = c.dim;
    o["positions"] = c.positions;
    rope::Value tables = rope::Value::array();
    const char* kinds[] = {"half", "interleaved", "half-width"};
    for (const rope::LayoutCacheTable& t : c.tables) {
      rope::Value one = rope::Value::object();
      one["kind"] = kinds[static_cast<int>(t.kind)];
      one["width"] = static_cast<int>(t.cos.cols());
      one["cos"] = as_rows(t.cos);
      one["sin"] = as_rows(t.sin);
      one["angle"] = as_rows(t.angle);
      one["partner_a"] = t.partner_a;
      one["partner_b"] = t.partner_b;
      tables.push_back(std::move(one));
    }
    o["tables"] = std::move(tables);
    return to_val(o);
  });
}

/// `rope attention --tokens N --dim d --base b --shift C [--causal]` with --encoding rope and sinusoidal:
/// the command's own call (analysis/teaching/attention_run.hpp run_attention): the same random q_i, k_j (seed
/// 2104), its report value (A_00, the shift test's rows and their verdicts, English), the verdicts in the page's
/// language, and the attention weights drawn (`drawn`, row by row: the value holds them up to 16 tokens), shown
/// as the shift table prints its numbers (3 significant digits).
val attention(val p) {
  return guarded([&] {
    rope::AttentionRequest request;
    request.tokens = integer(p, "tokens");
    request.causal = p["causal"].as<bool>();
    request.shift = static_cast<long>(number(p, "shift"));
    if (p["scaling"].as<std::string>() != "none") request.model = resolve(p, false);
    request.dim = request.model ? request.model->spec.head_dim : integer(p, "d");
    rope::check_dimension(request.dim, rope::kMaxAttentionDim, "dimension d");
    request.base = number(p, "base");
    request.encodings = {rope::Encoding::Rope, rope::Encoding::Sinusoidal};
    const rope::AttentionRun run = rope::run_attention(request);
    rope::Value drawn = rope::Value::object();
    for (const rope::AttentionResult& r : run.results) drawn[rope::to_string(r.encoding)] = as_rows(r.a);
    rope::Value verdicts = rope::Value::object();
    for (const rope::ShiftRow& row : run.shifts) verdicts[rope::to_string(row.encoding)] = row.verdict.in(language(p));
    rope::Value o = rope::Value::object();
    o["value"] = rope::attention_value(run);
    o["drawn"] = std::move(drawn);
    o["verdicts"] = std::move(verdicts);
    return answer(o, Spelling::Compared);
  });
}

/// Part 9's latent grid (analysis/teaching/axes_grid.hpp): the preset `grid_model`'s axis map (resolved as
/// `rope sections --model` resolves it), a grid of grid_frames × grid_rows × grid_columns patches and the patch
/// (grid_frame, grid_row, grid_column) with its neighbours: the value (every pair's axis, both patches' angles, the
/// pairs that differ from each neighbour) and the part's sentences in the page's language.
val axes_grid(val p) {
  return guarded([&] {
    rope::AxesGridRequest request;
    request.rope = rope::resolve_model_rope({p["grid_model"].as<std::string>(), ""}, {});
    request.frames = integer(p, "grid_frames");
    request.rows = integer(p, "grid_rows");
    request.columns = integer(p, "grid_columns");
    request.patch = {integer(p, "grid_frame"), integer(p, "grid_row"), integer(p, "grid_column")};
    const rope::AxesGridRun run = rope::run_axes_grid(request);
    rope::Value o = rope::Value::object();
    o["value"] = rope::axes_grid_value(run);
    o["sentence"] = rope::axes_grid_sentence(run).in(language(p));
    // The next row's and frame's patch, where the grid has them, as `rope sections --grid --patch` says them (the
    // next column's is the sentence above).
    rope::Value neighbours = rope::Value::array();
    for (const rope::AxesGridNeighbour& n : run.neighbours)
      if (n.axis != 2) neighbours.push_back(rope::axes_grid_neighbour_sentence(run, n).in(language(p)));
    o["neighbour_sentences"] = std::move(neighbours);
    return to_val(o);
  });
}

/// A figure's tick label as rope's figures write it (plot/ticks.hpp): "5", "0.25", "10⁵".
std::string tick_label(double x) { return rope::plot::tick_label(x); }

}  // namespace

EMSCRIPTEN_BINDINGS(rope_web) {
  emscripten::function("set_catalog", &set_catalog);
  emscripten::function("frequencies", &frequencies);
  emscripten::function("wavelengths", &wavelengths);
  emscripten::function("pair", &pair);
  emscripten::function("matrix", &matrix);
  emscripten::function("decay", &decay);
  emscripten::function("attention", &attention);
  emscripten::function("cache", &cache);
  emscripten::function("axes_grid", &axes_grid);
  emscripten::function("tick_label", &tick_label);
}
