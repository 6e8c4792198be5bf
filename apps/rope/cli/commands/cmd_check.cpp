// rope check: is a dumped RoPE right? The dump against the reference of --model/--config/flags, under the
// tolerance model (C1) of rope/analysis/check/check.hpp, with a diagnosis naming the known bug it matches.
#include <CLI/CLI.hpp>
#include <glob.h>

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
#include "rope/io/utf8.hpp"
#include "rope/report/check_layers_report.hpp"
#include "rope/report/check_ranks_report.hpp"
#include "rope/report/check_report.hpp"

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

/// The options of every rank's files checked in one run (--rank-files).
struct RankOptions {
  std::string files, before, after, rank_of, cp_layout = "zigzag";
  long cp_size = 0;
  std::optional<long> cp_rank;     ///< one rank's report (for --merge)
  std::vector<std::string> merge;  ///< --merge: the per-rank reports
};

/// The paths a glob names, sorted; none when it matches nothing.
std::vector<std::string> glob_paths(const std::string& pattern) {
  std::vector<std::string> out;
  glob_t g{};
  if (glob(pattern.c_str(), 0, nullptr, &g) == 0) {
    for (std::size_t i = 0; i < g.gl_pathc; ++i) out.emplace_back(g.gl_pathv[i]);
  }
  globfree(&g);
  return out;
}

int run_check_ranks(const CheckOptions& opt, const RankOptions& ranks, std::ostream& out) {
  if (!opt.dumps.before.empty() || !opt.dumps.after.empty()) {
    throw InvalidArgument(error_msg("--rank-files names each rank's files: leave out --before and --after"));
  }
  if (!opt.keys.before.empty() || !opt.keys.after.empty() || opt.shift_map) {
    throw InvalidArgument(error_msg("--rank-files checks one tensor per rank: leave out {0}",
                                    opt.shift_map ? "--shift-map" : "--k-before and --k-after"));
  }
  if (ranks.cp_size < 1 || ranks.cp_size > kMaxCpSize) {
    throw InvalidArgument(error_msg("--rank-files needs --cp-size, 1 … {0}", kMaxCpSize));
  }
  CheckRanksRequest r;
  r.check = {opt.dumps, check_settings(opt), nullptr};
  r.check.dumps.sequence_starts.clear();
  const auto layout = parse_cp_layout(ranks.cp_layout);
  if (!layout) {
    throw InvalidArgument(error_msg("--cp-layout must be zigzag, round-robin or contiguous (got '{0}')",
                                    escape_controls(ranks.cp_layout, kQuotedBytes)));
  }
  r.batch.layout = *layout;
  r.batch.cp_size = ranks.cp_size;
  if (opt.dumps.sequence_starts.empty() && opt.dumps.positions_tensor.empty()) {
    throw InvalidArgument(error_msg("--rank-files needs the packed batch's --sequence-starts (or --positions-tensor)"));
  }
  for (const double v : parse_list_argument(opt.dumps.sequence_starts, "--sequence-starts")) {
    if (!(v >= 0 && v <= static_cast<double>(kMaxCpTokens) && v == std::floor(v))) {
      throw InvalidArgument(error_msg("--sequence-starts: {0} is not a token index in [0, {1}]", v, kMaxCpTokens));
    }
    r.batch.sequence_starts.push_back(static_cast<long>(v));
  }
  const auto files = [&](const std::string& glob, const char* setting) {
    return ranks.cp_rank ? file_of_rank(glob_paths(glob), *ranks.cp_rank, ranks.cp_size, ranks.rank_of, setting)
                         : files_by_rank(glob_paths(glob), ranks.cp_size, ranks.rank_of, setting);
  };
  if (!ranks.files.empty()) {
    r.files = files(ranks.files, "rank_files");
  } else {
    r.files = files(ranks.before, "rank_files_before");
    r.after_files = files(ranks.after, "rank_files_after");
  }
  const CheckRanksRun run = rope::run_check_ranks(r);
  emit_report(out, run, {opt.json, opt.lang, opt.digits});
  return run.passed() ? kOk : kVerifyFailed;
}

/// --merge: the per-rank reports of one run, one report (check_ranks_report.hpp merge_rank_reports).
int run_merge_reports(const CheckOptions& opt, const RankOptions& ranks, std::ostream& out) {
  if (!opt.dumps.before.empty() || !opt.dumps.after.empty() || !ranks.files.empty() || !ranks.before.empty() ||
      !ranks.after.empty()) {
    throw InvalidArgument(
        error_msg("--merge reads the ranks' reports: leave out the dumps (--before, --after, "
                  "--rank-files)"));
  }
  const CheckRanksReport merged = merge_rank_reports(ranks.merge);
  emit_report(out, merged, {opt.json, opt.lang, opt.digits});
  return merged.passed() ? kOk : kVerifyFailed;
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
         "--rank-files", ranks->files,
         "every rank's file of a context-parallel run, a glob ('dump/rank*.pt'), each holding both tensors: "
         "one report, a row per rank (with --cp-size, --cp-layout and --sequence-starts, which then is the whole packed "
         "batch's cu_seqlens, not a rank's own starts)")
      ->type_name("GLOB");
  sub->add_option("--rank-files-before", ranks->before,
                  "every rank's file before RoPE, a glob (with --rank-files-after)")
      ->type_name("GLOB");
  sub->add_option("--rank-files-after", ranks->after, "every rank's file after RoPE, a glob, paired by rank")
      ->type_name("GLOB");
  sub->add_option("--rank-of", ranks->rank_of,
                  "a regular expression whose one group is a file's rank (default: the number after 'rank' in the "
                  "path, else the only number in the file's name)")
      ->type_name("REGEX");
  add_long_option(*sub, "--cp-size", ranks->cp_size, "the ranks the packed batch is split over (with --rank-files)");
  add_long_option(*sub, "--cp-rank", ranks->cp_rank, 0,
                  "with --rank-files: check this rank's file alone, one rank's report (--json) for --merge");
  sub->add_option("--merge", ranks->merge,
                  "the ranks' reports of one run (each the --json of --rank-files … --cp-rank R), files or directories "
                  "of *.json: one report, as --rank-files prints it")
      ->type_name("REPORT")
      ->expected(1, -1);
  sub->add_option("--cp-layout", ranks->cp_layout, "zigzag, round-robin or contiguous (with --rank-files)")
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
  sub->add_flag("--json", opt->json, "print the report as JSON");
  add_lang_option(*sub, opt->lang);
  add_digits_option(*sub, opt->digits, "4", kDigitsHelp);
  add_scaling_options(*sub, opt->scaling);
  sub->footer("Example:\n  rope check --before data/dumps/q.npy --after data/dumps/q_rope.npy --positions 0:128");
  return {sub, [opt, ranks, sub](std::ostream& out) {
            if (!ranks->merge.empty()) return run_merge_reports(*opt, *ranks, out);
            if (!ranks->files.empty() || !ranks->before.empty() || !ranks->after.empty())
              return run_check_ranks(*opt, *ranks, out);
            for (const char* name :
                 {"--rank-of", "--cp-size", "--cp-layout", "--cp-rank"}) {  // the run's options, not one dump's
              if (sub->count(name) > 0) {
                throw InvalidArgument(error_msg("{0} is read with --rank-files (every rank's files of a run)", name));
              }
            }
            if (opt->dumps.before.empty() || opt->dumps.after.empty())
              throw InvalidArgument(error_msg("give --before and --after, or --rank-files"));
            return run_check(*opt, out);
          }};
}

}  // namespace rope::cli
