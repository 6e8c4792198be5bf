// The printers of rope verify's report (verify_report.hpp): the text a person reads, the CSV rows and the value
// JSON writes.
#include "rope/report/verify_report.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "rope/core/constants.hpp"
#include "rope/core/dtype.hpp"
#include "rope/io/csv.hpp"
#include "rope/report/rope_text.hpp"
#include "rope/report/digits.hpp"
#include "rope/report/json.hpp"
#include "rope/report/model_text.hpp"
#include "rope/report/text.hpp"

namespace rope {

namespace {

std::string verdict(const IdentityResult& r, const Text& t, bool wide) {
  // The narrow table prints an expected failure under its heading "contrast, expected to fail".
  if (r.expected_to_fail && !wide && !r.check.passed()) return t.tr("FAIL");
  if (r.expected_to_fail) return r.check.passed() ? t.tr("pass (unexpected)") : t.tr("FAIL (expected)");
  return r.check.passed() ? t.tr("PASS") : t.tr("FAIL");
}

std::string csv_row(const IdentityResult& r) {
  return fmt::format("\"{}\",\"{}\",\"{}\",{},{},{},{},{},{}\n", r.name, r.formula, r.equation, r.samples,
                     format_number(r.max_abs_error), format_number(r.check.relative_error()),
                     format_number(r.check.tolerance), r.check.passed() ? "true" : "false",
                     r.expected_to_fail ? "true" : "false");
}

Value identity_value(const IdentityResult& r) {
  Value v;
  v["name"] = r.name;
  v["formula"] = r.formula;
  v["equation"] = r.equation;
  v["samples"] = r.samples;
  v["max_abs_error"] = r.max_abs_error;
  v["max_rel_error"] = r.check.relative_error();
  v["tolerance"] = r.check.tolerance;
  v["passed"] = r.check.passed();
  v["expected_to_fail"] = r.expected_to_fail;
  return v;
}

/// ", computed in T" after the seed: the strategy too where it changes the numbers (float32's angle-f32 is
/// its cast-inputs).
std::string computed_in(const VerifyRun& run, const VerifySettings& s, const Text& t) {
  if (!run.dtype) return "";
  const Strategy strategy = s.dense ? Strategy::CastInputs : s.strategy;
  const bool shown =
      s.dtype == DType::F16 || s.dtype == DType::BF16 || (s.dtype == DType::F32 && strategy == Strategy::CastResult);
  const std::string how = !shown ? "" : t.tr(" ({0})", to_string(strategy));
  return t.tr(", computed in {0}{1}", to_string(s.dtype), how);
}

/// The tolerance model of the run: (M13) for float64, (P10) for cast-inputs, (P12) otherwise.
void print_tolerance(const VerifyRun& run, const VerifySettings& s, const Text& t, std::ostream& out) {
  const Strategy strategy = s.dense ? Strategy::CastInputs : s.strategy;
  const std::string T(to_string(s.dtype));
  const bool wide = s.dtype == DType::F16 || s.dtype == DType::BF16;
  if (!run.dtype) {
    out << t.tr("tolerance on |Δ|/S = {0:g}·ε·(d + M), M = the sum of |positions| involved (docs/math.md (M13))\n",
                kToleranceSafety);
  } else if (s.dtype == DType::F64 || (s.dtype == DType::F32 && strategy != Strategy::CastResult)) {
    out << t.tr(
        "θ, q, k, positions and every operation in {0}; tolerance on |Δ|/S = {1:g}·ε·(d + M), ε = {2:.3g},\n"
        "M = the sum of |positions| involved, at most 1/√d for scores, 1 otherwise (docs/precision.md (P10), (P11))\n",
        T, kToleranceSafety, epsilon(s.dtype));
  } else if (strategy == Strategy::CastInputs) {
    out << t.tr(
        "θ, q, k, positions and rotations in {0}, sums accumulated in float32 and rounded to {1};\n"
        "tolerance on |Δ|/S = {2:g}·(ε_f32·d + ε·M), ε = {3:.3g}, ε_f32 = {4:.3g}, M = the sum of |positions|\n"
        "involved, at most 1/√d for scores, 1 otherwise (docs/precision.md (P10), (P11))\n",
        T, T, kToleranceSafety, epsilon(s.dtype), epsilon(DType::F32));
  } else {
    const bool f32 = strategy == Strategy::AngleF32;
    const std::string acc = wide ? "float32" : T, eps_acc = wide ? "ε_f32" : "ε", phi = f32 ? "ε_f32" : "ε_f64";
    out << (f32 ? t.tr(
                      "angle-f32, as Hugging Face: θ, positions, angles and cos/sin in float32, cos/sin rounded to {0},\n"
                      "rotations in {0}, sums accumulated in float32 and rounded to {0};\n",
                      T)
                : t.tr("cast-result: angles, cos/sin and rotations in float64, rotated vectors rounded to {0},\n"
                       "sums accumulated in {1} and rounded to {0};\n",
                       T, acc));
    const std::string eps = f32 || wide ? t.tr(", ε_f32 = {0:.3g}", epsilon(DType::F32)) : "";
    const std::string eps64 = f32 ? "" : t.tr(", ε_f64 = {0:.3g}", epsilon(DType::F64));
    out << t.tr(
        "tolerance on |Δ|/S = {0:g}·({1}·d + {2}·M + ε), ε = {3:.3g}{4}{5},\n"
        "M = the sum of |positions| involved, at most 1/√d for scores, 1 otherwise (docs/precision.md (P11), (P12))\n",
        kToleranceSafety, eps_acc, phi, epsilon(s.dtype), eps, eps64);
  }
}

/// ", yarn scaling f = 8 (Llama 3 8B, layer type …)" after the base for a model's RoPE, else "".
std::string model_text(const ModelRope& rr, const Text& t) {
  if (rr.plain) return "";
  return t.tr(", {0} scaling f = {1} ({2}{3})", to_string(rr.spec.config.type), format_number(rr.spec.params.factor),
              model_name(rr.spec, t.lang()), layer_text(rr.spec, t));
}

/// Where q, k and the positions came from: drawn, or the user's vectors at drawn or given positions.
void print_draws(std::ostream& out, const VerifySettings& s, const Text& t) {
  if (!s.vectors) {
    out << t.tr("q, k ~ N(0, I); positions m, n and shift c uniform integers in [0, {0})\n",
                format_number(s.max_position));
    return;
  }
  const long pairs = s.vectors->pairs();
  if (pairs == 1) {
    out << t.tr("q, k: the vectors given\n");
  } else {
    out << t.tr("q, k: the {0} pairs of vectors given, the i-th q with the i-th k (trial t checks pair t mod {0})\n",
                pairs);
  }
  if (const auto& at = s.vectors->at) {
    out << t.tr("positions given: m = {0}, n = {1}, shift c = {2}\n", format_number((*at)[0]), format_number((*at)[1]),
                format_number((*at)[2]));
  } else {
    out << t.tr("positions m, n and shift c uniform integers in [0, {0}), as rope verify draws them with this seed\n",
                format_number(s.max_position));
  }
}

}  // namespace

Value verify_value(const VerifyRun& run) {
  const VerifyReport& report = run.report;
  const VerifySettings& s = report.settings;
  Value j;
  Value& settings = j["settings"];
  settings["dim"] = s.dim;
  settings["base"] = s.base;
  settings["trials"] = s.trials;
  settings["max_position"] = s.max_position;
  settings["seed"] = s.seed;
  settings["layout"] = std::string(to_string(s.layout));
  if (run.dtype) {
    settings["dtype"] = std::string(to_string(s.dtype));
    settings["epsilon"] = epsilon(s.dtype);
    if (s.dtype != DType::F64)
      settings["strategy"] = std::string(to_string(s.dense ? Strategy::CastInputs : s.strategy));
  }
  if (s.dense) settings["dense"] = true;
  if (s.vectors) {
    settings["vector_pairs"] = s.vectors->pairs();
    if (const auto& at = s.vectors->at) {
      Value& positions = settings["positions"] = Value::array();
      for (const double p : *at) positions.push_back(p);
    }
  }
  Value& identities = j["identities"] = Value::array();
  for (const auto& r : report.identities) identities.push_back(identity_value(r));
  j["contrast"] = identity_value(report.contrast);
  if (run.xpos_contrast) j["xpos_contrast"] = identity_value(*run.xpos_contrast);
  if (run.cast_inputs) {
    Value& c = j["cast_inputs_contrast"] = identity_value(run.cast_inputs->row);
    c["fails_from_max_position"] = run.cast_inputs->fails_from;
  }
  if (report.interrupted) j["interrupted_after_trials"] = report.completed;
  j["passed"] = report.all_passed();
  return j;
}

std::string verify_csv(const VerifyRun& run) {
  std::string csv = "identity,formula,equation,samples,max_abs_error,max_rel_error,tolerance,passed,expected_to_fail\n";
  for (const IdentityResult* r : run.rows()) csv += csv_row(*r);
  return csv;
}

void print_verify(std::ostream& out, const VerifyRun& run, const Text& t, const std::optional<int>& digits_asked,
                  bool wide) {
  const VerifyReport& report = run.report;
  const ModelRope& rope = run.rope;
  const VerifySettings& s = report.settings;
  out << (s.trials == 1
              ? t.tr("rope verify: d = {0}, base = {1}{2}, {3}, 1 trial, seed {4}{5}\n", s.dim, format_number(s.base),
                     model_text(rope, t), layout_text(rope, t), s.seed, computed_in(run, s, t))
              : t.tr("rope verify: d = {0}, base = {1}{2}, {3}, {4} trials, seed {5}{6}\n", s.dim,
                     format_number(s.base), model_text(rope, t), layout_text(rope, t), s.trials, s.seed,
                     computed_in(run, s, t)));
  if (rope.spec.attention_factor() != 1.0) {
    out << t.tr(
        "the model's attention factor a = {0} in cos and sin scales both sides of every identity by a or a²;\n"
        "the identities are checked on the rotation itself\n",
        readable(rope.spec.attention_factor()));
  }
  if (report.interrupted) {
    out << t.tr("interrupted (Ctrl-C) after {0} of {1} trials: every row below covers those {2}\n", report.completed,
                s.trials, report.completed);
  }
  print_draws(out, s, t);
  out << t.tr("error |Δ| between the two sides; S = ‖q‖‖k‖ for scores, ‖q‖ for vectors, 1 for matrices;\n");
  print_tolerance(run, s, t, out);
  if (s.dense) {
    const long dense = dense_samples(s.dim, s.trials);
    out << t.tr("dense form: every rotation by apply_rotary and the d×d matrix R_m, one draw after the other\n");
    if (dense < s.trials) {
      out << t.tr("rows 2, 3 and 7 multiply dense d×d matrices: they use the first {0} draws (about 2^33 flops)\n",
                  dense);
    }
  } else {
    out << t.tr("every row on every draw, on the 2×2 blocks of R_m: O(d) per check ({0}: d×d matrices)\n",
                option_name("dense"));
  }
  out << '\n';
  // The default table fits a projector (100 columns): the contrast rows, under their own heading, drop
  // "(contrast)"; --wide adds the samples and the unscaled max |Δ| (138 columns).
  // Each row compares its max |Δ|/S with its tolerance: the table shows the significant digits that tell the
  // two apart in every row (digits.hpp, at least 3, "1.23e-14"), one count for the whole table, or --digits N.
  const std::vector<const IdentityResult*> shown = run.rows();
  std::vector<std::vector<double>> compared;
  for (const IdentityResult* r : shown) compared.push_back({r->check.relative_error(), r->check.tolerance});
  const int digits = digits_for(compared, digits_asked, 3);
  const auto sci = [digits](double x) { return sci_with_digits(x, digits); };
  std::size_t w = 9;  // the width of "max |Δ|/S" and of a number with 3 digits
  for (const IdentityResult* r : shown) {
    for (const double x : {r->max_abs_error, r->check.relative_error(), r->check.tolerance})
      w = std::max(w, sci(x).size());
  }
  const auto row = [&](const std::string& number, const IdentityResult& r) {
    std::string name = (t.lang() == Lang::Zh) ? r.name_text.in(Lang::Zh) : r.name;
    const std::string formula = (t.lang() == Lang::Zh) ? r.formula_text.in(Lang::Zh) : r.formula;
    if (wide) {
      out << fmt::format("{:>2}  {:<21} {:<42} {:<10} {:>8}  {:>{}}  {:>{}}  {:>{}}  {}\n", number, name, formula,
                         r.equation, r.samples, sci(r.max_abs_error), w, sci(r.check.relative_error()), w,
                         sci(r.check.tolerance), w, verdict(r, t, true));
      return;
    }
    const std::string_view suffix = t.tr(" (contrast)");  // the contrast rows' names end with it
    if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      name.resize(name.size() - suffix.size());
    }
    out << fmt::format("{:>2} {:<17} {:<41} {:<10} {:>{}} {:>{}} {}\n", number, name, formula, r.equation,
                       sci(r.check.relative_error()), w, sci(r.check.tolerance), w, verdict(r, t, false));
  };
  if (wide) {
    out << fmt::format("{:>2}  {:<21} {:<42} {:<10} {:>8}  {:>{}}  {:>{}}  {:>{}}  {}\n", "#", t.tr("identity"),
                       t.tr("formula"), t.tr("eq."), t.tr("samples"), "max |Δ|", w, "max |Δ|/S", w, t.tr("tolerance"),
                       w, t.tr("result"));
  } else {
    out << fmt::format("{:>2} {:<17} {:<41} {:<10} {:>{}} {:>{}} {}\n", "#", t.tr("identity"), t.tr("formula"),
                       t.tr("eq."), "max |Δ|/S", w, t.tr("tolerance"), w, t.tr("result"));
  }
  for (std::size_t i = 0; i < report.identities.size(); ++i) row(std::to_string(i + 1), report.identities[i]);
  out << t.tr("\ncontrast, expected to fail: the additive sinusoidal encoding of the original Transformer\n");
  row("-", report.contrast);
  out << t.tr("    shifting both positions changes <q + p_m, k + p_n> by up to {0:.3g}: it leaks absolute position\n",
              report.contrast.max_abs_error);
  if (run.xpos_contrast) {
    out << t.tr("\ncontrast, expected to fail: RoPE's relative identity without xPos's scale (s = {0})\n",
                format_number(run.xpos_scale_base));
    row("-", *run.xpos_contrast);
  }
  if (!wide) {
    // The per-axis rows (A…) and the xPos rows (X…) cite docs/multi-axis.md, the others docs/math.md.
    const bool multi_axis = std::any_of(
        report.identities.begin(), report.identities.end(),
        [](const IdentityResult& r) { return r.equation.rfind("(A", 0) == 0 || r.equation.rfind("(X", 0) == 0; });
    out << (multi_axis ? t.tr("eq.: the equation in docs/math.md, (A…) and (X…) in docs/multi-axis.md;\n"
                              "     {0} adds each row's samples and unscaled max |Δ|\n",
                              option_name("wide"))
                       : t.tr("eq.: the equation in docs/math.md; {0} adds each row's samples and unscaled max |Δ|\n",
                              option_name("wide")));
  }
  if (run.cast_inputs) {
    const IdentityResult& r = run.cast_inputs->row;
    out << t.tr(
        "\ncontrast, expected to fail: row 1 with cast-inputs, position and θ rounded to {0} before the angle (P3)\n",
        to_string(s.dtype));
    row("-", r);
    if (run.cast_inputs->fails_from) {
      out << t.tr(
          "    it fails from max-position {0} on (the smallest found by bisection, {1} draws of the same seed)\n",
          format_number(*run.cast_inputs->fails_from), std::min(s.trials, 256L));
    } else {
      out << t.tr("    it passes at these positions\n");
    }
  }
  const auto passed = std::count_if(report.identities.begin(), report.identities.end(),
                                    [](const IdentityResult& r) { return r.check.passed(); });
  const bool capped =
      std::any_of(report.identities.begin(), report.identities.end(), [](const IdentityResult& r) { return r.capped; });
  if (capped) {
    out << t.tr(
        "\nsome tolerances are capped at the typical size of the quantity, 1/√d = {0:.3g} for scores and 1\n"
        "otherwise (P11): a larger error means {1} keeps no correct digit at positions up to {2}\n",
        score_tolerance_cap(s.dim), to_string(s.dtype), format_number(s.max_position));
  }
  if (run.axes_left_out) {
    out << t.tr("\nthe per-axis rows (A5)-(A7) (axes {0}) are checked in float64 only: leave out {1} for them\n",
                rope.spec.axes->components(), option_name("dtype"));
  }
  out << t.tr("\n{0} of {1} identities passed{2}\n", passed, report.identities.size(),
              !report.all_passed() ? t.tr(" — VERIFICATION FAILED")
              : report.interrupted ? t.tr(" in the trials done (interrupted)")
                                   : "");
  if (run.from_file) {  // the config's mathematics, not the code that runs it
    out << t.tr(
        "this checks the mathematics of the config's RoPE, not an implementation of it: to test your code,\n"
        "dump its tensors and run rope check (docs/check.md)\n");
  }
}

}  // namespace rope
