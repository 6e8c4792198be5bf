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
#include "rope/cli/vector_options.hpp"
#include "rope/core/error.hpp"
#include "rope/core/parse.hpp"
#include "rope/report/verify_report.hpp"

namespace rope::cli {

struct VerifyOptions {
  VerifyRequest request;  ///< every setting but the model's: dim, base, layout, trials, dtype, xPos, …
  ScalingOptions scaling;
  std::string csv;
  bool json = false;
  Lang lang = Lang::En;
  bool wide = false;              ///< --wide: the samples and max |Δ| columns too (138 columns)
  std::optional<int> digits;      ///< --digits N: significant digits of the table (digits.hpp); nullopt: the policy
  std::string q, k;               ///< --q, --k: the user's vectors (vector_options.hpp)
  std::string positions;          ///< --positions M,N,C
  CLI::Option* trials = nullptr;  ///< --trials, to tell whether it was given
};

namespace {

/// The user's q and k (d from them), each pair checked at the drawn positions or at --positions; none without --q.
std::shared_ptr<const VerifyVectors> user_vectors(const VerifyOptions& opt) {
  const std::optional<QueryKey> user = query_key(opt.q, opt.k, opt.request.dim, kMaxVerifyDim);
  if (!user) {
    if (!opt.positions.empty()) throw InvalidArgument(error_msg("--positions needs --q and --k: the vectors to check"));
    return nullptr;
  }
  auto v = std::make_shared<VerifyVectors>();
  v->q = user->q.transpose();  // one vector per column
  v->k = user->k.transpose();
  if (!opt.positions.empty()) {
    const std::vector<double> p = parse_real_list(opt.positions, "--positions");
    if (p.size() != 3) {
      throw InvalidArgument(
          error_msg("--positions must be three numbers M,N,C: the query's position m, the key's n "
                    "and the shift c (got {0})",
                    p.size()));
    }
    v->at = std::array<double, 3>{p[0], p[1], p[2]};
  }
  return v;
}

}  // namespace

int run_verify(const VerifyOptions& opt, std::ostream& out) {
  VerifyProgressBar bar{Text(opt.lang)};
  VerifyRequest request = opt.request;
  request.settings.vectors = user_vectors(opt);
  if (request.settings.vectors && opt.trials->count() == 0)
    request.settings.trials = default_vector_trials(request.settings.vectors->pairs());
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
  opt->trials =
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
  add_query_key_options(*sub, opt->q, opt->k,
                        "your query vectors instead of random ones: numbers '1,0.5,-2', vectors separated by ';', or "
                        "@FILE (CSV, .npy, .safetensors, .pt); d is their length",
                        "your key vectors, as many as --q: the i-th q is checked with the i-th k");
  sub->add_option("--positions", opt->positions,
                  "with --q and --k: check each pair once at these positions, the query's m, the key's n and the "
                  "shift c (default: --trials draws, as without --q)")
      ->type_name("M,N,C")
      ->excludes(opt->trials)
      ->excludes(sub->get_option("--max-position"));
  add_lang_option(*sub, opt->lang);
  add_wide_option(*sub, opt->wide);
  add_digits_option(*sub, opt->digits, "3", kDigitsHelp);
  sub->footer(
      "Example:\n  rope verify\n  rope verify --dim 64 --max-position 131072 --trials 200 --seed 7\n"
      "  rope verify --dtype f32\n  rope verify --dtype bf16\n  rope verify --xpos --trials 200\n"
      "  rope verify --q 1,0,2,-1 --k 0.5,1,0,2 --positions 5,12,3");
  add_scaling_options(*sub, opt->scaling);
  return {sub, [opt](std::ostream& out) { return run_verify(*opt, out); }};
}

}  // namespace rope::cli
