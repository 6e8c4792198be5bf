/// @file
/// The library, as the live lesson page (docs/live/lesson.html) calls it from JavaScript: embind functions
/// that take the page's settings (d, base, positions m and n, layout, scaling method and factor, context,
/// tokens, shift) and return plain objects of numbers. Every number is computed by the library functions
/// the command line calls for the same inputs (models/resolve.hpp, analysis/teaching/model_apply.hpp, decay.hpp,
/// attention.hpp, explain.hpp, layouts.hpp, core/rotation.hpp), so the page shows what `rope frequencies`, `explain`,
/// `matrix`, `decay`, `wavelengths`, `attention` and `layouts --cache` print and draw; the page names each command
/// beside its panel and tests/browser/check_live.py runs it and compares what it prints.
///
/// Built only by the WebAssembly target (web/CMakeLists.txt, `make web`) with Debian's emscripten; the
/// native build never sees this file. An error of the library crosses into JavaScript as an object
/// {error: English, error_zh: Chinese} (the catalog's translation, installed by set_catalog), never as
/// an exception.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <fmt/format.h>

#include <cmath>
#include <exception>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

#include "rope/analysis/teaching/attention.hpp"
#include "rope/analysis/teaching/attention_run.hpp"
#include "rope/analysis/calculators/decay.hpp"
#include "rope/analysis/teaching/decay_run.hpp"
#include "rope/analysis/teaching/explain.hpp"
#include "rope/analysis/teaching/frequency_table.hpp"
#include "rope/analysis/teaching/layouts.hpp"
#include "rope/analysis/teaching/matrix_run.hpp"
#include "rope/analysis/teaching/model_apply.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/core/message.hpp"
#include "rope/core/random.hpp"
#include "rope/core/rotation.hpp"
#include "rope/models/resolve.hpp"
#include "rope/models/rope_spec.hpp"
#include "rope/report/printing.hpp"

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

/// The shortest decimal that reads back as the same double, as the command line prints full precision.
std::string exact(double x) { return fmt::format("{}", x); }

val numbers(const Eigen::VectorXd& v) {
  val a = val::array();
  for (Eigen::Index i = 0; i < v.size(); ++i) a.call<void>("push", v[i]);
  return a;
}

val texts(const Eigen::VectorXd& v) {
  val a = val::array();
  for (Eigen::Index i = 0; i < v.size(); ++i) a.call<void>("push", exact(v[i]));
  return a;
}

val messages(const std::vector<rope::Message>& list) {
  val a = val::array();
  for (const rope::Message& m : list) {
    val o = val::object();
    o.set("en", m.in(Lang::En));
    o.set("zh", m.in(Lang::Zh));
    a.call<void>("push", o);
  }
  return a;
}

double number(const val& p, const char* key) { return p[key].as<double>(); }
int integer(const val& p, const char* key) { return p[key].as<int>(); }

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
  try {
    return f();
  } catch (const rope::Error& e) {
    val o = val::object();
    o.set("error", std::string(e.what()));
    o.set("error_zh", e.message() ? e.message()->in(Lang::Zh) : std::string(e.what()));
    return o;
  } catch (const std::exception& e) {
    val o = val::object();
    o.set("error", std::string(e.what()));
    o.set("error_zh", std::string(e.what()));
    return o;
  }
}

/// `rope frequencies` and `rope wavelengths --context L`: θ_i scaled and original, λ_i, the bands, the
/// attention factor, the warnings, and the first pair of each set that never turns within the context.
val frequencies(val p) {
  return guarded([&] {
    // The table `rope frequencies` prints (analysis/teaching/frequency_table.hpp): θ_i and λ_i, scaled and original.
    const rope::FrequencyTable table = rope::frequency_table({resolve(p), std::nullopt, false});
    const rope::ModelRope& r = table.rope;
    const rope::RopeSpec& s = table.spec;
    const Eigen::VectorXd& lambda = table.wavelength;
    const Eigen::VectorXd& lambda0 = table.original_wavelength;
    const double context = number(p, "context");
    val o = val::object();
    o.set("d", s.rotary_dim);
    o.set("layout", std::string(rope::to_string(s.layout)));
    o.set("theta", numbers(table.theta));
    o.set("theta_text", texts(table.theta));
    o.set("theta0", numbers(table.original));
    o.set("theta0_text", texts(table.original));
    o.set("lambda", numbers(lambda));
    o.set("lambda_text", texts(lambda));
    o.set("lambda0", numbers(lambda0));
    o.set("lambda0_text", texts(lambda0));
    val bands = val::array();
    for (rope::Band b : s.params.bands) bands.call<void>("push", std::string(rope::to_string(b)));
    o.set("bands", bands);
    o.set("attention_factor", s.params.attention_factor);
    o.set("attention_factor_text", exact(s.params.attention_factor));
    o.set("factor", s.params.factor);
    o.set("scaled", !r.plain && s.config.type != rope::ScalingType::Default);
    o.set("first_beyond", static_cast<int>(rope::first_pair_beyond(lambda, context)));
    o.set("first_beyond0", static_cast<int>(rope::first_pair_beyond(lambda0, context)));
    o.set("warnings", messages(s.params.warnings));
    return o;
  });
}

/// `rope explain --position m --position n --theta θ_i --step 5 --quiet`: the drawn pair, q = (1, 0.5) at m
/// and k = (0.8, −0.3) at n turned by θ_i of pair i (the table's θ_i, scaled with a method), computed by the
/// walkthrough the command prints (analysis/teaching/explain.hpp): the rotated pair, each angle, the score
/// ⟨R(mθ_i)q, R(nθ_i)k⟩ and its relative form qᵀR((n−m)θ_i)k. The texts are the command's (fx, 6 decimals),
/// so the page shows the very digits `rope explain` prints. The score is the pair's, never a d-channel sum.
val pair(val p) {
  return guarded([&] {
    const rope::FrequencyTable table = rope::frequency_table({resolve(p), std::nullopt, false});
    const int i = integer(p, "pair");
    if (i < 0 || i >= table.theta.size())
      throw std::out_of_range("pair i outside 0 … d/2 − 1");  // the page keeps it in
    rope::explain::Setup s;
    s.m = number(p, "m");
    s.n = number(p, "n");
    s.theta = table.theta[i];
    const rope::explain::Walkthrough w = rope::explain::explain(s);
    const rope::explain::Step5& five = w.step5;
    val o = val::object();
    o.set("theta", s.theta);
    o.set("theta_text", exact(s.theta));
    o.set("q", numbers(s.q));
    o.set("k", numbers(s.k));
    o.set("rq", numbers(five.q_rotated));
    o.set("rk", numbers(five.k_rotated));
    o.set("angle_q", w.step2.query.angle);
    o.set("angle_k", w.step2.key.angle);
    o.set("score", five.score);
    o.set("score_text", rope::fx(five.score));
    o.set("relative_text", rope::fx(five.relative_form));
    o.set("angle_between_text", rope::fx(five.angle_between));
    // The sign slip of step 5: both rotations reversed, R(mθ)ᵀq and R(nθ)ᵀk, whose dot product is
    // qᵀR((m−n)θ)k, not the score (step 4's R(−mθ) = R(mθ)ᵀ, and R(nθ)ᵀ).
    o.set("rq_reversed", numbers(w.step4.minus_m * s.q));
    o.set("rk_reversed", numbers(w.step4.n.transpose() * s.k));
    o.set("wrong_sign_text", rope::fx(five.wrong_sign));
    return o;
  });
}

/// `rope matrix --dim d --position m --layout L`: R_m (a·R_m on a scaled spec), row by row, as the command
/// computes it (analysis/teaching/matrix_run.hpp).
val matrix(val p) {
  return guarded([&] {
    rope::MatrixRequest request;
    request.rope = resolve(p);
    request.position = rope::AxisPosition::single(number(p, "m"));
    const rope::MatrixRun run = rope::run_matrix(request);
    val o = val::object();
    o.set("d", run.dim);
    const Eigen::MatrixXd rows = run.matrix.transpose();  // Eigen stores columns; the page reads rows
    o.set("entries", numbers(Eigen::Map<const Eigen::VectorXd>(rows.data(), rows.size())));
    return o;
  });
}

/// `rope decay --dim d --base b --max-distance D`: RoFormer's bound (M11) at every integer distance 0 … D,
/// for the original frequencies and, with a method, the scaled ones times a² (S15): the command's own call
/// (analysis/teaching/decay_run.hpp run_decay), its curves on the full grid.
val decay(val p) {
  return guarded([&] {
    const rope::ModelRope r = resolve(p);
    rope::DecayRequest request;
    request.max_distance = number(p, "max_distance");
    const bool scaled = !r.plain && r.spec.config.type != rope::ScalingType::Default;
    if (scaled) {
      request.model = r;
    } else {
      request.bases = {r.spec.config.base};
      request.dim = r.spec.rotary_dim;
    }
    const rope::DecayRun run = rope::run_decay(request);
    val o = val::object();
    o.set("original", numbers(run.curves.value[0]));
    o.set("original_text", texts(run.curves.value[0]));
    if (scaled) {
      o.set("scaled", numbers(run.curves.value[1]));
      o.set("scaled_text", texts(run.curves.value[1]));
    }
    return o;
  });
}

/// `rope layouts --dim d --base b --cache`: the cos/sin cache as it sits in memory, the three tables of
/// layout_cache (half, interleaved, gpt-oss's half-width) for positions 0 … 15, each {kind, width, cos, sin,
/// angle (row by row), partner_a, partner_b}: the same function draws the command's figure.
val cache(val p) {
  return guarded([&] {
    const rope::ModelRope r = resolve(p, false);
    const rope::LayoutCache c = rope::layout_cache(r.spec.params.inv_freq);
    val o = val::object();
    o.set("d", c.dim);
    o.set("positions", c.positions);
    val tables = val::array();
    const char* kinds[] = {"half", "interleaved", "half-width"};
    for (const rope::LayoutCacheTable& t : c.tables) {
      val one = val::object();
      one.set("kind", std::string(kinds[static_cast<int>(t.kind)]));
      one.set("width", static_cast<int>(t.cos.cols()));
      for (const auto& [name, m] : {std::pair{"cos", &t.cos}, std::pair{"sin", &t.sin}, std::pair{"angle", &t.angle}}) {
        const Eigen::MatrixXd rows = m->transpose();  // Eigen stores columns; the page reads rows
        one.set(name, numbers(Eigen::Map<const Eigen::VectorXd>(rows.data(), rows.size())));
      }
      one.set("partner_a", t.partner_a);
      one.set("partner_b", t.partner_b);
      tables.call<void>("push", one);
    }
    o.set("tables", tables);
    return o;
  });
}

val shift_object(const rope::ShiftReport& s) {
  val o = val::object();
  o.set("max_abs", s.max_abs_change);
  o.set("max_rel", s.check.relative_error());
  o.set("tolerance", s.check.tolerance);
  o.set("max_weight", s.max_weight_change);
  o.set("passed", s.check.passed());
  return o;
}

/// `rope attention --tokens N --dim d --base b --shift C [--causal]` with --encoding rope and sinusoidal:
/// the command's own call (analysis/teaching/attention_run.hpp run_attention): the same random q_i, k_j (seed 2104),
/// both attention matrices row by row, and both shift tests.
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
    val o = val::object();
    for (std::size_t e = 0; e < run.results.size(); ++e) {
      const rope::AttentionResult& r = run.results[e];
      const Eigen::MatrixXd rows = r.a.transpose();
      const std::string name(rope::to_string(r.encoding));
      o.set(name, numbers(Eigen::Map<const Eigen::VectorXd>(rows.data(), rows.size())));
      o.set(name + "_text", texts(Eigen::Map<const Eigen::VectorXd>(rows.data(), rows.size())));
      o.set(name + "_shift", shift_object(run.shifts[e].report));
    }
    return o;
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(rope_web) {
  emscripten::function("set_catalog", &set_catalog);
  emscripten::function("frequencies", &frequencies);
  emscripten::function("pair", &pair);
  emscripten::function("matrix", &matrix);
  emscripten::function("decay", &decay);
  emscripten::function("attention", &attention);
  emscripten::function("cache", &cache);
}
