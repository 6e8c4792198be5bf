// rope check: is a dumped RoPE right? The dump against the reference of --model/--config/flags, under the
// tolerance model (C1) of rope/analysis/check/check.hpp, with a diagnosis naming the known bug it matches.
#include <CLI/CLI.hpp>
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
#include "rope/report/check_layers_report.hpp"
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
  if (names_layers(opt.dumps)) {
    throw InvalidArgument(error_msg("{0} checks one q and one k: a '*' in the tensor names is not taken with it",
                                    option_name("k_before")));
  }
  return k;
}

int run_check(const CheckOptions& opt, std::ostream& out) {
  const Text t(opt.lang);
  CheckProgressBar progress(t);
  if (names_layers(opt.dumps)) {  // a '*' in the tensor names: every layer that matches (key_dumps refuses k with it)
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
  opt->scaling.axis_blocks = true;  // (V6): the expectation's pairs inside each axis's block
  CLI::App* sub =
      app.add_subcommand("check", "YOUR implementation, from dumped tensors: its RoPE compared with the reference");
  add_dump_options(*sub, opt->dumps, true);
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
  sub->add_flag("--json", opt->json, "print the report as JSON");
  add_lang_option(*sub, opt->lang);
  add_digits_option(*sub, opt->digits, "4", kDigitsHelp);
  add_scaling_options(*sub, opt->scaling);
  sub->footer("Example:\n  rope check --before data/dumps/q.npy --after data/dumps/q_rope.npy --positions 0:128");
  return {sub, [opt](std::ostream& out) { return run_check(*opt, out); }};
}

}  // namespace rope::cli
