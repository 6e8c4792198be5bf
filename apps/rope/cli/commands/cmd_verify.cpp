// rope verify: the identity suite of rope/analysis/verify.hpp as a table, CSV or JSON; exit 1 if one fails.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <unistd.h>
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <memory>
#include <nlohmann/json.hpp>

#include "rope/cli/choice_option.hpp"
#include "rope/cli/commands.hpp"
#include "rope/report/digits.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/output.hpp"
#include "rope/io/csv.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/dtype.hpp"
#include "rope/core/error.hpp"
#include "rope/core/invalid_quantity.hpp"
#include "rope/analysis/axis_identities.hpp"
#include "rope/analysis/verify.hpp"
#include "rope/analysis/xpos.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/io/interrupt.hpp"
#include "rope/cli/scaling_options.hpp"

namespace rope::cli {

struct VerifyOptions {
  VerifySettings settings;
  std::string csv;
  bool json = false;
  ScalingOptions scaling;
  std::optional<int> dim;      ///< --dim; nullopt: settings.dim
  std::optional<double> base;  ///< --base; nullopt: settings.base
  std::optional<Layout> layout;  ///< --layout; nullopt: the model's, or settings.layout
  Lang lang = Lang::En;
  std::optional<DType> dtype;  ///< --dtype; nullopt: float64, and the output of before --dtype existed
  std::optional<Strategy> strategy;  ///< --strategy; nullopt: angle-f32, the pipeline of Hugging Face
  bool wide = false;  ///< --wide: the samples and max |Δ| columns too (138 columns)
  std::optional<int> digits;  ///< --digits N: significant digits of the table (digits.hpp); nullopt: the policy
  bool xpos = false;                 ///< --xpos: the xPos rows (X3), (X4) and their contrast
  double xpos_scale_base = kDefaultXposScaleBase;  ///< --xpos-scale-base s
};

namespace {

std::string verdict(const IdentityResult& r, const Text& t, bool wide) {
  // The narrow table prints an expected failure under its heading "contrast, expected to fail".
  if (r.expected_to_fail && !wide && !r.check.passed()) return t.tr("FAIL");
  if (r.expected_to_fail) return r.check.passed() ? t.tr("pass (unexpected)") : t.tr("FAIL (expected)");
  return r.check.passed() ? t.tr("PASS") : t.tr("FAIL");
}

std::string csv_row(const IdentityResult& r) {
  return fmt::format("\"{}\",\"{}\",\"{}\",{},{},{},{},{},{}\n", r.name, r.formula, r.equation, r.samples,
                     format_number(r.max_abs_error), format_number(r.check.relative_error()), format_number(r.check.tolerance),
                     r.check.passed() ? "true" : "false", r.expected_to_fail ? "true" : "false");
}

nlohmann::json to_json(const IdentityResult& r) {
  return {{"name", r.name},
          {"formula", r.formula},
          {"equation", r.equation},
          {"samples", r.samples},
          {"max_abs_error", r.max_abs_error},
          {"max_rel_error", r.check.relative_error()},
          {"tolerance", r.check.tolerance},
          {"passed", r.check.passed()},
          {"expected_to_fail", r.expected_to_fail}};
}

/// ", computed in T" after the seed: the strategy too where it changes the numbers (float32's angle-f32 is
/// its cast-inputs).
std::string computed_in(const VerifyOptions& opt, const VerifySettings& s, const Text& t) {
  if (!opt.dtype) return "";
  const Strategy strategy = s.dense ? Strategy::CastInputs : s.strategy;
  const bool shown = s.dtype == DType::F16 || s.dtype == DType::BF16 || (s.dtype == DType::F32 && strategy == Strategy::CastResult);
  const std::string how = !shown ? "" : t.tr(" ({0})", to_string(strategy));
  return t.tr(", computed in {0}{1}", to_string(s.dtype), how);
}

/// The tolerance model of the run: (M13) for float64, (P10) for cast-inputs, (P12) otherwise.
void print_tolerance(const VerifyOptions& opt, const VerifySettings& s, const Text& t, std::ostream& out) {
  const Strategy strategy = s.dense ? Strategy::CastInputs : s.strategy;
  const std::string T(to_string(s.dtype));
  const bool wide = s.dtype == DType::F16 || s.dtype == DType::BF16;
  if (!opt.dtype) {
    out << t.tr("tolerance on |Δ|/S = {0:g}·ε·(d + M), M = the sum of |positions| involved (docs/math.md (M13))\n",
                kToleranceSafety);
  } else if (s.dtype == DType::F64 || (s.dtype == DType::F32 && strategy != Strategy::CastResult)) {
    out << t.tr("θ, q, k, positions and every operation in {0}; tolerance on |Δ|/S = {1:g}·ε·(d + M), ε = {2:.3g},\n"
                "M = the sum of |positions| involved, at most 1/√d for scores, 1 otherwise (docs/precision.md (P10), (P11))\n",
                T, kToleranceSafety, epsilon(s.dtype));
  } else if (strategy == Strategy::CastInputs) {
    out << t.tr("θ, q, k, positions and rotations in {0}, sums accumulated in float32 and rounded to {1};\n"
                "tolerance on |Δ|/S = {2:g}·(ε_f32·d + ε·M), ε = {3:.3g}, ε_f32 = {4:.3g}, M = the sum of |positions|\n"
                "involved, at most 1/√d for scores, 1 otherwise (docs/precision.md (P10), (P11))\n",
                T, T, kToleranceSafety, epsilon(s.dtype), epsilon(DType::F32));
  } else {
    const bool f32 = strategy == Strategy::AngleF32;
    const std::string acc = wide ? "float32" : T, eps_acc = wide ? "ε_f32" : "ε", phi = f32 ? "ε_f32" : "ε_f64";
    out << (f32 ? t.tr("angle-f32, as Hugging Face: θ, positions, angles and cos/sin in float32, cos/sin rounded to {0},\n"
                       "rotations in {0}, sums accumulated in float32 and rounded to {0};\n", T)
                : t.tr("cast-result: angles, cos/sin and rotations in float64, rotated vectors rounded to {0},\n"
                       "sums accumulated in {1} and rounded to {0};\n", T, acc));
    const std::string eps = f32 || wide ? t.tr(", ε_f32 = {0:.3g}", epsilon(DType::F32)) : "";
    const std::string eps64 = f32 ? "" : t.tr(", ε_f64 = {0:.3g}", epsilon(DType::F64));
    out << t.tr("tolerance on |Δ|/S = {0:g}·({1}·d + {2}·M + ε), ε = {3:.3g}{4}{5},\n"
                "M = the sum of |positions| involved, at most 1/√d for scores, 1 otherwise (docs/precision.md (P11), (P12))\n",
                kToleranceSafety, eps_acc, phi, epsilon(s.dtype), eps, eps64);
  }
}

}  // namespace

int run_verify(const VerifyOptions& opt, std::ostream& out) {
  const Text t(opt.lang);
  if (!(opt.xpos_scale_base > 0) || !std::isfinite(opt.xpos_scale_base)) {
    throw InvalidArgument(error_msg("--xpos-scale-base must be a finite number > 0 (got {0})", format_number(opt.xpos_scale_base)));
  }
  // xPos as apply and decay take it: plain RoPE's frequencies, float64; refused before any trial runs.
  if (opt.xpos && opt.scaling.any()) {
    throw InvalidArgument(error_msg("--xpos applies to plain RoPE: leave out --model, --config and --scaling"));
  }
  if (opt.xpos && opt.dtype && *opt.dtype != DType::F64) throw InvalidArgument(error_msg("--xpos is checked in float64: leave out --dtype"));
  VerifySettings settings = opt.settings;
  if (opt.dtype) settings.dtype = *opt.dtype;
  // With --scaling, --config or --model, a model's scaled frequencies: the identities hold for any
  // frequencies, so they must pass too.
  // The model's own layout (rope/models/rope_spec.hpp) unless --layout is given.
  const ModelRope rope =
      resolve(opt.scaling, {opt.dim, settings.dim, opt.base, settings.base, opt.layout, settings.layout, kMaxVerifyDim});
  settings.dim = rope.spec.rotary_dim;
  settings.base = rope.spec.config.base;
  settings.layout = rope.spec.layout;
  std::string model;
  if (!rope.plain) {
    const ModelRope& rr = rope;
    settings.inv_freq = rr.spec.params.inv_freq;
    model = t.tr(", {0} scaling f = {1} ({2}{3})", to_string(rr.spec.config.type),
                 format_number(rr.spec.params.factor), model_name(rr.spec, t), layer_text(rr.spec, t));
  }
  if (opt.strategy) {
    if (!opt.dtype || *opt.dtype == DType::F64) {
      throw InvalidArgument("--strategy needs --dtype f32, f16 or bf16: float64 has one way to compute the angles");
    }
    settings.strategy = *opt.strategy;
  }
  // A bar on stderr while the trials run, only on a terminal; Ctrl-C stops the run and prints what it has.
  const bool bar = ::isatty(STDERR_FILENO) == 1;
  bool drawn = false;
  const std::string trials_word = t.tr("trials");
  const VerifyProgress progress = [&](long done, long total) {
    if (bar && (drawn || done < total)) {
      const int width = 30, filled = static_cast<int>(static_cast<double>(width) * done / total);
      std::fprintf(stderr, "\r[%s%s] %3d%%  %ld / %ld %s", std::string(filled, '#').c_str(),
                   std::string(width - filled, ' ').c_str(), static_cast<int>(100.0 * done / total), done, total,
                   trials_word.c_str());
      std::fflush(stderr);
      drawn = true;
    }
    return !interrupt_requested();
  };
  set_interrupt_deferred(!settings.dense);
  VerifyReport report;
  try {
    report = verify(settings, progress);
  } catch (const InvalidQuantity& e) {
    set_interrupt_deferred(false);
    rethrow_naming_option(e, {{"trials", "--trials"}, {"max-position", "--max-position"}});
  } catch (...) {
    set_interrupt_deferred(false);
    throw;
  }
  set_interrupt_deferred(false);
  if (drawn) std::fputs("\r\033[K", stderr), std::fflush(stderr);
  // docs/multi-axis.md: with multimodal sections, the identities per axis (A5)-(A7), in float64.
  // Under --dtype f32/f16/bf16 they are left out, and the table says so (axes_left_out).
  const bool axes_left_out = !rope.plain && rope.spec.axes && opt.dtype && *opt.dtype != DType::F64;
  if (!rope.plain && rope.spec.axes && !report.interrupted && !axes_left_out) {
    for (IdentityResult& r : verify_axes(rope.spec, settings.trials, settings.max_position, settings.seed)) {
      report.identities.push_back(std::move(r));
    }
  }
  // docs/multi-axis.md §5: with --xpos, the identities of xPos (X3), (X4) in float64, and RoPE's plain
  // relative identity (M8) as the contrast that must fail once the scale is there.
  std::optional<IdentityResult> xpos_contrast;
  if (opt.xpos && !report.interrupted) {
    const Eigen::VectorXd theta = settings.inv_freq ? *settings.inv_freq : frequencies(settings.dim, settings.base);
    XposIdentities x = verify_xpos(theta, settings.layout, opt.xpos_scale_base, settings.trials, settings.max_position, settings.seed);
    for (IdentityResult& r : x.rows) report.identities.push_back(std::move(r));
    xpos_contrast = std::move(x.contrast);
  }
  const VerifySettings& s = report.settings;
  const bool low = !s.dense && (s.dtype == DType::F16 || s.dtype == DType::BF16) && s.strategy != Strategy::CastInputs;
  std::optional<StrategyContrast> cast_inputs;
  if (low && !report.interrupted) {
    cast_inputs = cast_inputs_contrast(s);
    cast_inputs->row.name = fmt::format("all-{} (contrast)", to_string(s.dtype));
    cast_inputs->row.name_text = msg("all-{0} (contrast)", to_string(s.dtype));
    cast_inputs->row.expected_to_fail = true;
  }
  const int exit_code = report.interrupted ? kInterrupted : report.all_passed() ? kOk : kVerifyFailed;

  if (!opt.csv.empty() && (!report.interrupted || opt.csv == "-")) {  // an interrupted run writes no file
    std::string csv = "identity,formula,equation,samples,max_abs_error,max_rel_error,tolerance,passed,expected_to_fail\n";
    for (const auto& r : report.identities) csv += csv_row(r);
    csv += csv_row(report.contrast);
    if (xpos_contrast) csv += csv_row(*xpos_contrast);
    if (cast_inputs) csv += csv_row(cast_inputs->row);
    write_output(opt.csv, csv, out);
  }
  if (opt.json) {
    nlohmann::json j;
    j["settings"] = {{"dim", s.dim},       {"base", s.base},
                     {"trials", s.trials}, {"max_position", s.max_position},
                     {"seed", s.seed},     {"layout", std::string(to_string(s.layout))}};
    if (opt.dtype) {
      j["settings"]["dtype"] = std::string(to_string(s.dtype));
      j["settings"]["epsilon"] = epsilon(s.dtype);
      if (s.dtype != DType::F64) j["settings"]["strategy"] = std::string(to_string(s.dense ? Strategy::CastInputs : s.strategy));
    }
    if (s.dense) j["settings"]["dense"] = true;
    j["identities"] = nlohmann::json::array();
    for (const auto& r : report.identities) j["identities"].push_back(to_json(r));
    j["contrast"] = to_json(report.contrast);
    if (xpos_contrast) j["xpos_contrast"] = to_json(*xpos_contrast);
    if (cast_inputs) {
      j["cast_inputs_contrast"] = to_json(cast_inputs->row);
      j["cast_inputs_contrast"]["fails_from_max_position"] =
          cast_inputs->fails_from ? nlohmann::json(*cast_inputs->fails_from) : nlohmann::json(nullptr);
    }
    if (report.interrupted) j["interrupted_after_trials"] = report.completed;
    j["passed"] = report.all_passed();
    out << json_text(j) << '\n';
  }
  if (opt.json || opt.csv == "-") return exit_code;

  out << t.tr("rope verify: d = {0}, base = {1}{2}, {3}, {4} trials, seed {5}{6}\n",
              s.dim, format_number(s.base), model,
              layout_text(rope, t), s.trials, s.seed, computed_in(opt, s, t));
  if (rope.spec.attention_factor() != 1.0) {
    out << t.tr("the model's attention factor a = {0} in cos and sin scales both sides of every identity by a or a²;\n"
                "the identities are checked on the rotation itself\n",
                format_number(rope.spec.attention_factor()));
  }
  if (report.interrupted) {
    out << t.tr("interrupted (Ctrl-C) after {0} of {1} trials: every row below covers those {2}\n",
                report.completed, s.trials, report.completed);
  }
  out << t.tr("q, k ~ N(0, I); positions m, n and shift c uniform integers in [0, {0})\n",
              format_number(s.max_position));
  out << t.tr("error |Δ| between the two sides; S = ‖q‖‖k‖ for scores, ‖q‖ for vectors, 1 for matrices;\n");
  print_tolerance(opt, s, t, out);
  if (s.dense) {
    const long dense = dense_samples(s.dim, s.trials);
    out << t.tr("dense form: every rotation by apply_rotary and the d×d matrix R_m, one draw after the other\n");
    if (dense < s.trials) {
      out << t.tr("rows 2, 3 and 7 multiply dense d×d matrices: they use the first {0} draws (about 2^33 flops)\n",
                  dense);
    }
  } else {
    out << t.tr("every row on every draw, on the 2×2 blocks of R_m: O(d) per check (--dense: d×d matrices)\n");
  }
  out << '\n';
  // The default table fits a projector (100 columns): the contrast rows, under their own heading, drop
  // "(contrast)"; --wide adds the samples and the unscaled max |Δ| (138 columns).
  // Each row compares its max |Δ|/S with its tolerance: the table shows the significant digits that tell the
  // two apart in every row (digits.hpp, at least 3, "1.23e-14"), one count for the whole table, or --digits N.
  std::vector<const IdentityResult*> shown;
  for (const IdentityResult& r : report.identities) shown.push_back(&r);
  shown.push_back(&report.contrast);
  if (xpos_contrast) shown.push_back(&*xpos_contrast);
  if (cast_inputs) shown.push_back(&cast_inputs->row);
  std::vector<std::vector<double>> compared;
  for (const IdentityResult* r : shown) compared.push_back({r->check.relative_error(), r->check.tolerance});
  const int digits = digits_for(compared, opt.digits, 3);
  const auto sci = [digits](double x) { return sci_with_digits(x, digits); };
  std::size_t w = 9;  // the width of "max |Δ|/S" and of a number with 3 digits
  for (const IdentityResult* r : shown) {
    for (const double x : {r->max_abs_error, r->check.relative_error(), r->check.tolerance}) w = std::max(w, sci(x).size());
  }
  const auto row = [&](const std::string& number, const IdentityResult& r) {
    std::string name = t.zh() ? r.name_text.in(Lang::Zh) : r.name;
    const std::string formula = t.zh() ? r.formula_text.in(Lang::Zh) : r.formula;
    if (opt.wide) {
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
  if (opt.wide) {
    out << fmt::format("{:>2}  {:<21} {:<42} {:<10} {:>8}  {:>{}}  {:>{}}  {:>{}}  {}\n", "#", t.tr("identity"),
                       t.tr("formula"), t.tr("eq."), t.tr("samples"), "max |Δ|", w, "max |Δ|/S", w,
                       t.tr("tolerance"), w, t.tr("result"));
  } else {
    out << fmt::format("{:>2} {:<17} {:<41} {:<10} {:>{}} {:>{}} {}\n", "#", t.tr("identity"), t.tr("formula"),
                       t.tr("eq."), "max |Δ|/S", w, t.tr("tolerance"), w, t.tr("result"));
  }
  for (std::size_t i = 0; i < report.identities.size(); ++i) row(std::to_string(i + 1), report.identities[i]);
  out << t.tr("\ncontrast, expected to fail: the additive sinusoidal encoding of the original Transformer\n");
  row("-", report.contrast);
  out << t.tr("    shifting both positions changes <q + p_m, k + p_n> by up to {0:.3g}: it leaks absolute position\n",
              report.contrast.max_abs_error);
  if (xpos_contrast) {
    out << t.tr("\ncontrast, expected to fail: RoPE's relative identity without xPos's scale (s = {0})\n",
                format_number(opt.xpos_scale_base));
    row("-", *xpos_contrast);
  }
  if (!opt.wide) {
    // The per-axis rows (A…) and the xPos rows (X…) cite docs/multi-axis.md, the others docs/math.md.
    const bool multi_axis = std::any_of(report.identities.begin(), report.identities.end(), [](const IdentityResult& r) {
      return r.equation.rfind("(A", 0) == 0 || r.equation.rfind("(X", 0) == 0;
    });
    out << (multi_axis ? t.tr("eq.: the equation in docs/math.md, (A…) and (X…) in docs/multi-axis.md;\n"
                              "     --wide adds each row's samples and unscaled max |Δ|\n")
                       : t.tr("eq.: the equation in docs/math.md; --wide adds each row's samples and unscaled max |Δ|\n"));
  }
  if (cast_inputs) {
    const IdentityResult& r = cast_inputs->row;
    out << t.tr("\ncontrast, expected to fail: row 1 with cast-inputs, position and θ rounded to {0} before the angle (P3)\n",
                to_string(s.dtype));
    row("-", r);
    if (cast_inputs->fails_from) {
      out << t.tr("    it fails from max-position {0} on (the smallest found by bisection, {1} draws of the same seed)\n",
                  format_number(*cast_inputs->fails_from), std::min(s.trials, 256L));
    } else {
      out << t.tr("    it passes at these positions\n");
    }
  }
  const auto passed = std::count_if(report.identities.begin(), report.identities.end(),
                                    [](const IdentityResult& r) { return r.check.passed(); });
  const bool capped = std::any_of(report.identities.begin(), report.identities.end(),
                                  [](const IdentityResult& r) { return r.capped; });
  if (capped) {
    out << t.tr("\nsome tolerances are capped at the typical size of the quantity, 1/√d = {0:.3g} for scores and 1\n"
                "otherwise (P11): a larger error means {1} keeps no correct digit at positions up to {2}\n",
                score_tolerance_cap(s.dim), to_string(s.dtype), format_number(s.max_position));
  }
  if (axes_left_out) {
    out << t.tr("\nthe per-axis rows (A5)-(A7) (axes {0}) are checked in float64 only: leave out --dtype for them\n",
                rope.spec.axes->components());
  }
  out << t.tr("\n{0} of {1} identities passed{2}\n", passed, report.identities.size(),
              !report.all_passed() ? t.tr(" — VERIFICATION FAILED")
              : report.interrupted ? t.tr(" in the trials done (interrupted)")
                                       : "");
  if (!opt.scaling.source.file.empty()) {  // the config's mathematics, not the code that runs it
    out << t.tr("this checks the mathematics of the config's RoPE, not an implementation of it: to test your code,\n"
                "dump its tensors and run rope check (docs/check.md)\n");
  }
  return exit_code;
}

Command add_verify_command(CLI::App& app) {
  auto opt = std::make_shared<VerifyOptions>();
  VerifySettings& s = opt->settings;
  CLI::App* sub = app.add_subcommand("verify", "RoPE's mathematics on random vectors: its identities checked numerically (your code: rope check)");
  add_int_option(*sub, "-d,--dim", opt->dim, s.dim, fmt::format("dimension d: even, 2 … {}", kMaxVerifyDim));
  add_base_option(*sub, opt->base, s.base);
  add_long_option(*sub, "-n,--trials", s.trials, fmt::format("random draws of q, k, m, n, c (1 … {})", kMaxTrials));
  add_real_option(*sub, "--max-position", s.max_position, "positions are drawn from [0, max-position)");
  add_seed_option(*sub, s.seed, "seed of the random draws (same seed, same output)");
  add_layout_option(*sub, opt->layout, s.layout);
  add_choice_option(*sub, "--dtype", opt->dtype, kDTypeWords, parse_dtype,
                    "compute the identities in f64 (default), f32, f16 or bf16, with that type's tolerance (P10)", "TYPE");
  add_choice_option(*sub, "--strategy", opt->strategy, {"cast-inputs", "angle-f32", "cast-result"}, parse_strategy,
                    "with --dtype: where the low precision enters, as rope precision (default angle-f32, as Hugging Face)",
                    "NAME");
  sub->add_flag("--dense", s.dense, "check with d×d matrices, one draw after the other (the teaching form; slow at large d)");
  sub->add_option("--csv", opt->csv, "write one row per identity to FILE ('-' for stdout)")->type_name("FILE");
  sub->add_flag("--json", opt->json, "print the report as JSON");
  CLI::Option* xpos = sub->add_flag("--xpos", opt->xpos, "add the xPos rows: q scaled by zeta^(n/s), k by zeta^(-n/s) (docs/multi-axis.md (X3), (X4))");
  add_real_option(*sub, "--xpos-scale-base", opt->xpos_scale_base, "xPos scale base s, > 0 (default 512)")->needs(xpos);
  add_lang_option(*sub, opt->lang);
  add_wide_option(*sub, opt->wide);
  add_digits_option(*sub, opt->digits, "3", kDigitsHelp);
  sub->footer("Example:\n  rope verify\n  rope verify --dim 64 --max-position 131072 --trials 200 --seed 7\n"
              "  rope verify --dtype f32\n  rope verify --dtype bf16\n  rope verify --xpos --trials 200");
  add_scaling_options(*sub, opt->scaling);
  return {sub, [opt](std::ostream& out) { return run_verify(*opt, out); }};
}

}  // namespace rope::cli
