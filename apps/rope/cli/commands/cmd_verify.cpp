// rope verify: the identity suite of rope/analysis/verify/verify_run.hpp as a table, CSV or JSON; exit 1 if one fails.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <memory>

#include "rope/cli/choice_option.hpp"
#include "rope/cli/commands.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/output.hpp"
#include "rope/cli/progress.hpp"
#include "rope/cli/report_output.hpp"
#include "rope/cli/scaling_options.hpp"
#include "rope/report/verify_report.hpp"

namespace rope::cli {

struct VerifyOptions {
  VerifyRequest request;  ///< every setting but the model's: dim, base, layout, trials, dtype, xPos, …
  ScalingOptions scaling;
  std::string csv;
  bool json = false;
  Lang lang = Lang::En;
  bool wide = false;          ///< --wide: the samples and max |Δ| columns too (138 columns)
  std::optional<int> digits;  ///< --digits N: significant digits of the table (digits.hpp); nullopt: the policy
};

int run_verify(const VerifyOptions& opt, std::ostream& out) {
  VerifyProgressBar bar{Text(opt.lang)};
  VerifyRequest request = opt.request;
  request.source = opt.scaling.source;
  request.rope = scaling_overrides(opt.scaling);
  request.longrope = longrope_rule(opt.scaling.engine, opt.scaling.max_model_len, opt.scaling.n_ctx);
  request.watch = &bar;
  const VerifyRun run = rope::run_verify(request);
  // An interrupted run writes no file; --csv - prints the CSV instead of the table.
  emit_report(out, run, {opt.json, opt.lang, opt.digits, opt.csv, opt.wide, !run.interrupted()});
  return run.interrupted() ? kInterrupted : run.passed() ? kOk : kVerifyFailed;
}

Command add_verify_command(CLI::App& app) {
  auto opt = std::make_shared<VerifyOptions>();
  VerifyRequest& q = opt->request;
  VerifySettings& s = q.settings;
  CLI::App* sub = app.add_subcommand(
      "verify", "RoPE's mathematics on random vectors: its identities checked numerically (your code: rope check)");
  add_int_option(*sub, "-d,--dim", q.dim, s.dim, fmt::format("dimension d: even, 2 … {}", kMaxVerifyDim));
  add_base_option(*sub, q.base, s.base);
  add_long_option(*sub, "-n,--trials", s.trials, fmt::format("random draws of q, k, m, n, c (1 … {})", kMaxTrials));
  add_real_option(*sub, "--max-position", s.max_position, "positions are drawn from [0, max-position)");
  add_seed_option(*sub, s.seed, "seed of the random draws (same seed, same output)");
  add_layout_option(*sub, q.layout, s.layout);
  add_choice_option(*sub, "--dtype", q.dtype, kDTypeWords, parse_dtype,
                    "compute the identities in f64 (default), f32, f16 or bf16, with that type's tolerance (P10)",
                    "TYPE");
  add_choice_option(
      *sub, "--strategy", q.strategy, {"cast-inputs", "angle-f32", "cast-result"}, parse_strategy,
      "with --dtype: where the low precision enters, as rope precision (default angle-f32, as Hugging Face)", "NAME");
  sub->add_flag("--dense", s.dense,
                "check with d×d matrices, one draw after the other (the teaching form; slow at large d)");
  sub->add_option("--csv", opt->csv, "write one row per identity to FILE ('-' for stdout)")->type_name("FILE");
  sub->add_flag("--json", opt->json, "print the report as JSON");
  CLI::Option* xpos = sub->add_flag(
      "--xpos", q.xpos, "add the xPos rows: q scaled by zeta^(n/s), k by zeta^(-n/s) (docs/multi-axis.md (X3), (X4))");
  add_real_option(*sub, "--xpos-scale-base", q.xpos_scale_base, "xPos scale base s, > 0 (default 512)")->needs(xpos);
  add_lang_option(*sub, opt->lang);
  add_wide_option(*sub, opt->wide);
  add_digits_option(*sub, opt->digits, "3", kDigitsHelp);
  sub->footer(
      "Example:\n  rope verify\n  rope verify --dim 64 --max-position 131072 --trials 200 --seed 7\n"
      "  rope verify --dtype f32\n  rope verify --dtype bf16\n  rope verify --xpos --trials 200");
  add_scaling_options(*sub, opt->scaling);
  return {sub, [opt](std::ostream& out) { return run_verify(*opt, out); }};
}

}  // namespace rope::cli
