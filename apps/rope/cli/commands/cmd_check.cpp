// rope check: is a dumped RoPE right? The dump against the reference of --model/--config/flags, under the
// tolerance model (C1) of rope/analysis/check/check.hpp, with a diagnosis naming the known bug it matches.
#include <CLI/CLI.hpp>

#include <cmath>
#include <memory>
#include <optional>

#include "rope/cli/choice_option.hpp"
#include "rope/cli/commands.hpp"
#include "rope/cli/commands/check_options.hpp"
#include "rope/cli/dump_options.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/progress.hpp"
#include "rope/cli/report_output.hpp"
#include "rope/cli/scaling_options.hpp"
#include "rope/core/error.hpp"
#include "rope/core/message.hpp"
#include "rope/analysis/check/check_ranks.hpp"
#include "rope/core/utf8.hpp"
#include "rope/report/check_layers_report.hpp"
#include "rope/report/check_ranks_report.hpp"
#include "rope/report/check_report.hpp"
#include "rope/report/table_model_report.hpp"

namespace rope::cli {

/// --k-before and --k-after: both or neither; k's dumps for the request (nullopt: q alone).
static std::optional<KeyDumps> key_dumps(const CheckOptions& opt) {
  const KeyDumps& k = opt.keys;
  if (k.before.empty() && k.after.empty()) {
    if (!k.before_tensor.empty() || !k.after_tensor.empty()) {
      throw InvalidArgument(error_msg("{0} names a tensor of {1}: give {2} and {3}",
                                      option_name(k.before_tensor.empty() ? "k_after_tensor" : "k_before_tensor"),
                                      option_name(k.before_tensor.empty() ? "k_after" : "k_before"),
                                      option_name("k_before"), option_name("k_after")));
    }
    return std::nullopt;
  }
  if (k.before.empty() || k.after.empty()) {
    throw InvalidArgument(error_msg("{0} needs {1}: k is checked before and after RoPE, as q is",
                                    option_name(k.before.empty() ? "k_after" : "k_before"),
                                    option_name(k.before.empty() ? "k_before" : "k_after")));
  }
  return k;
}

/// The options of every rank's files checked in one run (--rank-files), and --merge's reports.
struct RankOptions {
  RankFileSettings settings;
  std::vector<std::string> merge;  ///< --merge: the per-rank reports
};

int run_check_ranks(const CheckOptions& opt, const RankOptions& ranks, std::ostream& out) {
  const CheckRequest check{opt.dumps, check_settings(opt), nullptr, key_dumps(opt)};
  const CheckRanksRun run = rope::run_check_ranks(ranks_request(ranks.settings, check));  // its rules: check_ranks.hpp
  emit_report(out, run, {opt.json, opt.lang, opt.digits});
  return run.passed() ? kOk : kVerifyFailed;
}

/// --merge: the per-rank reports of one run, one report (check_ranks_report.hpp merge_rank_reports).
int run_merge_reports(const CheckOptions& opt, const RankOptions& ranks, std::ostream& out) {
  const CheckRanksReport merged = merge_rank_reports(ranks.merge, ranks.settings.rank_of);
  emit_report(out, merged, {opt.json, opt.lang, opt.digits});
  return merged.passed() ? kOk : kVerifyFailed;
}

/// The options --merge reads beside its reports: how the report is printed, and the rank pattern of plain reports'
/// names. Any other given is refused, naming it.
void refuse_beside_merge(const CLI::App& sub) {
  for (const CLI::Option* o : sub.get_options()) {
    const std::string name = o->get_name();
    if (o->count() == 0 || name == "--merge" || name == "--json" || name == "--lang" || name == "--digits" ||
        name == "--rank-of")
      continue;
    throw InvalidArgument(
        error_msg("{0} reads the ranks' reports, which hold the run's settings: leave out {1}", "--merge", name));
  }
}

int run_check(const CheckOptions& opt, std::ostream& out) {
  const Text t(opt.lang);
  CheckProgressBar progress(t);
  if (names_layers(opt.dumps)) {  // a '*' in the tensor names: every layer that matches, with k each layer's k
    const CheckLayersRun layers = run_check_layers({opt.dumps, check_settings(opt), nullptr, key_dumps(opt)});
    emit_report(out, layers, {opt.json, opt.lang, opt.digits});
    return layers.passed() ? kOk : kVerifyFailed;
  }
  const CheckRun run = rope::run_check({opt.dumps, check_settings(opt), &progress, key_dumps(opt)});  // k: qk_pair.hpp
  emit_report(out, run, {opt.json, opt.lang, opt.digits});
  return run.all_passed() ? kOk : kVerifyFailed;  // with k: q's, k's and the pair's verdicts
}

/// Without dumps, the options that read or describe them are refused, naming the first given.
void refuse_dump_options(const CLI::App& sub) {
  for (const char* name : {"--before-tensor",
                           "--after-tensor",
                           "--tensor",
                           "--positions",
                           "--positions-tensor",
                           "--sequence-starts",
                           "--axes",
                           "--axis-positions",
                           "--rope-delta",
                           "--bf16-bits",
                           "--head-dim",
                           "--dtype",
                           "--grad",
                           "--shift",
                           "--shift-map",
                           "--query",
                           "--strict-order",
                           "--coefficients",
                           "--kv-head",
                           "--k-before",
                           "--k-after",
                           "--k-before-tensor",
                           "--k-after-tensor"}) {
    if (sub.count(name) > 0) {
      throw InvalidArgument(
          error_msg("{0} describes dumps: a table alone is checked against the model (give {1} and "
                    "{2} to check a kernel with it)",
                    name, "--before", "--after"));
    }
  }
}

/// A cos/sin table without dumps: the table against the model's RoPE (table_model.hpp).
int run_table_check(const CheckOptions& opt, const CLI::App& sub, std::ostream& out) {
  refuse_dump_options(sub);
  const TableModelRun run = run_table_model(check_settings(opt));
  emit_report(out, run, {opt.json, opt.lang, opt.digits});
  return run.passed() ? kOk : kVerifyFailed;
}

Command add_check_command(CLI::App& app) {
  auto opt = std::make_shared<CheckOptions>();
  auto ranks = std::make_shared<RankOptions>();
  opt->scaling.axis_blocks = true;  // (V6): the expectation's pairs inside each axis's block
  CLI::App* sub =
      app.add_subcommand("check", "YOUR implementation, from dumped tensors: its RoPE compared with the reference");
  add_dump_options(*sub, opt->dumps, true);
  sub->get_option("--before")->required(false);
  sub->get_option("--after")->required(false);
  sub->add_option(
         "--rank-files", ranks->settings.files,
         "every rank's file of a context-parallel run, a glob ('dump/rank*.pt'), each holding both tensors: "
         "one report, a row per rank (with --cp-size, --cp-layout and --sequence-starts, which then is the whole packed "
         "batch's cu_seqlens, not a rank's own starts)")
      ->type_name("GLOB");
  sub->add_option("--rank-files-before", ranks->settings.before,
                  "every rank's file before RoPE, a glob (with --rank-files-after)")
      ->type_name("GLOB");
  sub->add_option("--rank-files-after", ranks->settings.after, "every rank's file after RoPE, a glob, paired by rank")
      ->type_name("GLOB");
  sub->add_option("--rank-of", ranks->settings.rank_of,
                  "a file's rank read by a pattern (--rank-files' dumps, --merge's plain reports): the text around "
                  "its number, {N} where the rank's digits stand ('q{N}.pt'; default: the number after 'rank' in the "
                  "path, else the only number in the file's name)")
      ->type_name("PATTERN");
  add_long_option(*sub, "--cp-size", ranks->settings.cp_size, 0,
                  "the ranks the packed batch is split over (with --rank-files; default: the files the glob matches)")
      ->default_str("");
  add_long_option(*sub, "--cp-rank", ranks->settings.cp_rank, 0,
                  "with --rank-files: check this rank's file alone, one rank's report (--json) for --merge");
  sub->add_option("--merge", ranks->merge,
                  "the ranks' reports of one run (each the --json of --rank-files … --cp-rank R, or each rank's plain "
                  "check --json, its rank in its file's name), files or directories of *.json: one report, as "
                  "--rank-files prints it")
      ->type_name("REPORT")
      ->expected(1, -1);
  sub->add_option("--cp-layout", ranks->settings.cp_layout,
                  "zigzag (the default), round-robin or contiguous (with --rank-files and --sequence-starts)")
      ->type_name("LAYOUT");
  add_base_option(*sub, opt->base);
  add_choice_option(*sub, "--layout", opt->layout, kLayoutWords, parse_layout,
                    "the pair layout the dump should have (default: the model's, else half)", "LAYOUT");
  add_choice_option(*sub, "--dtype", opt->dtype, kDTypeWords, parse_dtype,
                    "the type the dump was computed in, for the tolerance (default: the file's)", "TYPE");
  add_choice_option(
      *sub, "--angles", opt->angles, kAngleModelWords, parse_angle_model,
      "how the dump's angles were computed, for the tolerance: float64, float32 (PyTorch's) or ggml "
      "(llama.cpp's; default: ggml for a GGUF, float32 for a Hugging Face config or preset, else float64 for a float64 "
      "dump and float32 for the others)",
      "MODEL");
  sub->add_flag("--query", opt->query,
                "the dump is a query: also expect the model's query scaling after RoPE, as its attention does "
                "(Ministral 3 and Mistral 4: 1 + β·ln(1 + ⌊p / L0⌋), docs/scaling.md (S21)); keys are not scaled");
  CLI::Option* grad = sub->add_flag(
      "--grad", opt->grad,
      "the dumps are gradients: --before the upstream gradient (of RoPE's output), --after the gradient returned for "
      "its input, expected a·R(m)ᵀ·grad_y (docs/check.md, Modes)");
  CLI::Option* shift =
      add_real_option(*sub, "--shift", opt->shift, 0.0,
                      "the dumps are a K cache before and after a shift in place by DELTA (llama.cpp's context shift; "
                      "--shift=-512 for a negative one): every key turned by R(DELTA), no magnitude factor, no "
                      "positions")
          ->type_name("DELTA")
          ->default_str("")
          ->excludes(grad);
  sub->add_option("--shift-map", opt->shift_map,
                  "the dumps are a K cache before and after each key moved from its old position to its new one (KV "
                  "eviction with compaction): FILE holds a row old,new per key (a CSV, its header old,new, or an .npy "
                  "[n, 2]), each key turned by R(new - old), no magnitude factor, no positions")
      ->type_name("FILE")
      ->excludes(grad)
      ->excludes(shift);
  sub->add_flag("--strict-order", opt->strict_order,
                "fail an output that is right up to a harmless reordering of its channels (DeepSeek-V3 written in "
                "place where HF de-interleaves it), which passes as equivalent by default");
  add_coefficients_option(*sub, *opt);
  sub->add_option("--k-before", opt->keys.before,
                  "q and k together: the key tensor before RoPE (--before is then the query), read as --before is; "
                  "its heads may be fewer (GQA)")
      ->type_name("FILE");
  sub->add_option("--k-after", opt->keys.after,
                  "the key tensor after RoPE: each tensor gets its own verdict, then the pair: ⟨R_m q, R_n k⟩ = qᵀ "
                  "R_(n−m) k measured on a sample of the scores")
      ->type_name("FILE");
  sub->add_option("--k-before-tensor", opt->keys.before_tensor, "the tensor of --k-before's file")->type_name("NAME");
  sub->add_option("--k-after-tensor", opt->keys.after_tensor, "the tensor of --k-after's file")->type_name("NAME");
  add_int_option(*sub, "--head-dim", opt->dumps.head_dim,
                 "read a dump whose last axis is several heads by its head size: [tokens, heads·N] as [tokens, "
                 "heads, N] (vLLM, SGLang), [batch, seq, heads·N] as [batch, seq, heads, N] (ONNX's "
                 "RotaryEmbedding with num_heads) (default: the config's head_dim where a 2-axis dump's last axis is "
                 "several heads of it)")
      ->type_name("N");
  sub->add_option("--cos", opt->table.cos,
                  "the cos table the kernel was handed, the reference instead of θ: [max_pos, w] gathered by "
                  "--positions, or [batch, seq, w] a row per token; w = r/2, or r with repeated halves (interleaved: "
                  "pairs) (with --sin; docs/check.md (T1)); without --before and --after, with --model or --config: "
                  "the table checked against the model's RoPE (docs/check.md (T2))")
      ->type_name("FILE");
  sub->add_option("--sin", opt->table.sin, "the sin table, the shape of --cos (may be --cos's file)")
      ->type_name("FILE");
  sub->add_option(
         "--cos-sin-cache", opt->table.cache,
         "vLLM's cos_sin_cache [max_pos, r], cos then sin, gathered by --positions: the reference instead of θ (alone, "
         "with --model or --config: checked against the model, (T2))")
      ->type_name("FILE");
  sub->add_option("--cos-tensor", opt->table.cos_tensor, "the tensor of --cos's file")->type_name("NAME");
  sub->add_option("--sin-tensor", opt->table.sin_tensor, "the tensor of --sin's file")->type_name("NAME");
  sub->add_option("--cos-sin-cache-tensor", opt->table.cache_tensor, "the tensor of --cos-sin-cache's file")
      ->type_name("NAME");
  sub->add_flag("--json", opt->json, "print the report as JSON");
  add_lang_option(*sub, opt->lang);
  add_digits_option(*sub, opt->digits, "4", kDigitsHelp);
  add_scaling_options(*sub, opt->scaling);
  sub->footer("Example:\n  rope check --before data/dumps/q.npy --after data/dumps/q_rope.npy --positions 0:128");
  return {sub, [opt, ranks, sub](std::ostream& out) {
            if (!ranks->merge.empty()) {
              refuse_beside_merge(*sub);
              return run_merge_reports(*opt, *ranks, out);
            }
            const RankFileSettings& r = ranks->settings;
            if (!r.files.empty() || !r.before.empty() || !r.after.empty()) return run_check_ranks(*opt, *ranks, out);
            for (const char* name :
                 {"--rank-of", "--cp-size", "--cp-layout", "--cp-rank"}) {  // the run's options, not one dump's
              if (sub->count(name) > 0) {
                throw InvalidArgument(error_msg("{0} is read with --rank-files (every rank's files of a run)", name));
              }
            }
            if (opt->dumps.before.empty() && opt->dumps.after.empty() && opt->table.given())
              return run_table_check(*opt, *sub, out);
            if (opt->dumps.before.empty() || opt->dumps.after.empty())
              throw InvalidArgument(error_msg("give --before and --after, or --rank-files"));
            return run_check(*opt, out);
          }};
}

}  // namespace rope::cli
