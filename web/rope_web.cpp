/// @file
/// The library, as the live lesson page (docs/live/lesson.html) calls it from JavaScript: embind functions
/// that take the page's settings (d, base, positions m and n, layout, scaling method and factor, context,
/// tokens, shift) and return plain objects of numbers. Every number is computed by the library functions
/// the command line calls for the same inputs (models/resolve.hpp, analysis/model_apply.hpp, decay.hpp,
/// attention.hpp, core/rotation.hpp), so the page shows what `rope frequencies`, `apply`, `matrix`,
/// `decay`, `wavelengths` and `attention` print (tests/browser/check_live.py compares them).
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
#include <string>

#include "rope/analysis/attention.hpp"
#include "rope/analysis/decay.hpp"
#include "rope/analysis/frequency_table.hpp"
#include "rope/analysis/model_apply.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/core/message.hpp"
#include "rope/core/random.hpp"
#include "rope/core/rotation.hpp"
#include "rope/models/resolve.hpp"
#include "rope/models/rope_spec.hpp"

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
/// other than none, --scaling, --factor, --original-max-position and llama3's band factors (1 and 4, Llama
/// 3.1's). `layout` false: the command's default layout (interleaved), as `rope attention`, which has none.
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
    // The table `rope frequencies` prints (analysis/frequency_table.hpp): θ_i and λ_i, scaled and original.
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

/// `rope apply --position m --vector q` and the same for k at n: the model's rotation (S19) of q and k
/// (element-wise form (M9)), each pair's angle, and the score ⟨R_m q, R_n k⟩ with its relative form
/// qᵀ R_{n−m} k.
val rotate(val p) {
  return guarded([&] {
    const rope::ModelRope r = resolve(p);
    const int d = r.spec.rotary_dim;
    const double m = number(p, "m");
    const double n = number(p, "n");
    rope::check_position_resolvable(m, d, "position m");
    rope::check_position_resolvable(n, d, "position n");
    Eigen::VectorXd q(d), k(d);
    // Every pair of q is (qa, qb) and every pair of k is (ka, kb), placed on the channels of the layout.
    for (int i = 0; i < d / 2; ++i) {
      const rope::PairChannels c = rope::pair_channels(d, i, r.spec.layout);
      q[c.first] = number(p, "qa");
      q[c.second] = number(p, "qb");
      k[c.first] = number(p, "ka");
      k[c.second] = number(p, "kb");
    }
    const rope::ModelApply rq = rope::model_apply(r.spec, q, rope::AxisPosition::single(m));
    const rope::ModelApply rk = rope::model_apply(r.spec, k, rope::AxisPosition::single(n));
    const rope::ModelApply rel = rope::model_apply(r.spec, k, rope::AxisPosition::single(n - m));
    val o = val::object();
    o.set("q", numbers(q));
    o.set("k", numbers(k));
    o.set("rq", numbers(rq.by_elementwise));
    o.set("rq_text", texts(rq.by_elementwise));
    o.set("rk", numbers(rk.by_elementwise));
    o.set("rk_text", texts(rk.by_elementwise));
    o.set("angle_q", numbers(rq.angle));
    o.set("angle_k", numbers(rk.angle));
    const double score = rq.by_elementwise.dot(rk.by_elementwise);
    // a scales both rotations: qᵀ·(a R_{n−m}) k carries one a, the score a².
    const double a = r.spec.attention_factor();
    const double relative = a * q.dot(rel.by_elementwise);
    o.set("score", score);
    o.set("score_text", exact(score));
    o.set("relative", relative);
    o.set("relative_text", exact(relative));
    o.set("norm_q", q.norm());
    o.set("norm_k", k.norm());
    return o;
  });
}

/// `rope matrix --dim d --position m --layout L`: R_m (a·R_m on a scaled spec), row by row.
val matrix(val p) {
  return guarded([&] {
    const rope::ModelRope r = resolve(p);
    const double m = number(p, "m");
    const int d = r.spec.rotary_dim;
    rope::check_position_resolvable(m, d, "--position");
    const Eigen::MatrixXd R =
        r.plain ? rope::rotation_matrix<double>(r.spec.params.inv_freq, m, r.spec.layout)
                : rope::spec_matrix(rope::spec_at_position(r.spec, m), rope::AxisPosition::single(m), d);
    val o = val::object();
    o.set("d", d);
    const Eigen::MatrixXd rows = R.transpose();  // Eigen stores columns; the page reads rows
    o.set("entries", numbers(Eigen::Map<const Eigen::VectorXd>(rows.data(), rows.size())));
    return o;
  });
}

/// `rope decay --dim d --base b --max-distance D`: RoFormer's bound (M11) at every integer distance 0 … D,
/// for the original frequencies and, with a method, the scaled ones times a² (S15), as the command computes
/// them (decay_bound_linspace).
val decay(val p) {
  return guarded([&] {
    const rope::ModelRope r = resolve(p);
    const double stop = number(p, "max_distance");
    const long points = static_cast<long>(stop) + 1;
    const Eigen::VectorXd original = rope::decay_bound_linspace(r.spec.original, stop, points);
    val o = val::object();
    o.set("original", numbers(original));
    o.set("original_text", texts(original));
    if (!r.plain && r.spec.config.type != rope::ScalingType::Default) {
      const double a = r.spec.attention_factor();
      const Eigen::VectorXd scaled = a * a * rope::decay_bound_linspace(r.spec.params.inv_freq, stop, points);
      o.set("scaled", numbers(scaled));
      o.set("scaled_text", texts(scaled));
    }
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
/// the same random q_i, k_j (seed 2104), both attention matrices row by row, and both shift tests.
val attention(val p) {
  return guarded([&] {
    const int tokens = integer(p, "tokens");
    const bool causal = p["causal"].as<bool>();
    const double shift = number(p, "shift");
    const bool scaled = p["scaling"].as<std::string>() != "none";
    std::optional<rope::ModelRope> model;
    if (scaled) model = resolve(p, false);
    const int d = model ? model->spec.head_dim : integer(p, "d");
    rope::check_dimension(d, rope::kMaxAttentionDim, "dimension d");
    const rope::QueriesKeys qk = rope::random_queries_keys(tokens, d, rope::kDefaultSeed);
    const Eigen::VectorXd positions = rope::token_positions(tokens);
    val o = val::object();
    for (rope::Encoding e : {rope::Encoding::Rope, rope::Encoding::Sinusoidal}) {
      rope::AttentionSettings s;
      if (e == rope::Encoding::Rope && model) s.spec = model->spec;
      s.encoding = e;
      s.base = number(p, "base");
      s.causal = causal;
      const Eigen::MatrixXd a = rope::attention_weights(qk.q, qk.k, positions, s);
      const Eigen::MatrixXd rows = a.transpose();
      const std::string name(rope::to_string(e));
      o.set(name, numbers(Eigen::Map<const Eigen::VectorXd>(rows.data(), rows.size())));
      o.set(name + "_text", texts(Eigen::Map<const Eigen::VectorXd>(rows.data(), rows.size())));
      o.set(name + "_shift", shift_object(rope::shift_test(qk.q, qk.k, positions, shift, s)));
    }
    return o;
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(rope_web) {
  emscripten::function("set_catalog", &set_catalog);
  emscripten::function("frequencies", &frequencies);
  emscripten::function("rotate", &rotate);
  emscripten::function("matrix", &matrix);
  emscripten::function("decay", &decay);
  emscripten::function("attention", &attention);
}
