// rope check: is a dumped RoPE right? The dump against the reference of --model/--config/flags, under the
// tolerance model (C1) of rope/analysis/check/check.hpp, with a diagnosis naming the known bug it matches.
#include <CLI/CLI.hpp>
#include <memory>

#include "rope/cli/choice_option.hpp"
#include "rope/cli/commands.hpp"
#include "rope/cli/commands/check_options.hpp"
#include "rope/cli/dump_options.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/progress.hpp"
#include "rope/cli/report_output.hpp"
#include "rope/cli/scaling_options.hpp"
#include "rope/report/check_layers_report.hpp"
#include "rope/report/check_report.hpp"

namespace rope::cli {

int run_check(const CheckOptions& opt, std::ostream& out) {
  const Text t(opt.lang);
  CheckProgressBar progress(t);
  if (names_layers(opt.dumps)) {  // a '*' in the tensor names: every layer that matches, in one run
    const CheckLayersRun layers = run_check_layers({opt.dumps, check_settings(opt), nullptr});
    emit_report(out, layers, {opt.json, opt.lang, opt.digits});
    return layers.passed() ? kOk : kVerifyFailed;
  }
  const CheckRun run = rope::run_check({opt.dumps, check_settings(opt), &progress});
  emit_report(out, run, {opt.json, opt.lang, opt.digits});
  return run.passed() ? kOk : kVerifyFailed;
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
  add_real_option(*sub, "--shift", opt->shift, 0.0,
                  "the dumps are a K cache before and after a shift in place by DELTA (llama.cpp's context shift; "
                  "--shift=-512 for a negative one): every key turned by R(DELTA), no magnitude factor, no positions")
      ->type_name("DELTA")
      ->default_str("")
      ->excludes(grad);
  sub->add_flag("--strict-order", opt->strict_order,
                "fail an output that is right up to a harmless reordering of its channels (DeepSeek-V3 written in "
                "place where HF de-interleaves it), which passes as equivalent by default");
  add_coefficients_option(*sub, *opt);
  add_int_option(*sub, "--head-dim", opt->dumps.head_dim,
                 "read a flat [tokens, heads·N] dump as [tokens, heads, N], as vLLM and SGLang view their rotary "
                 "inputs (default: the config's head_dim where the dump's last axis is several heads of it)")
      ->type_name("N");
  sub->add_flag("--json", opt->json, "print the report as JSON");
  add_lang_option(*sub, opt->lang);
  add_digits_option(*sub, opt->digits, "4", kDigitsHelp);
  add_scaling_options(*sub, opt->scaling);
  sub->footer("Example:\n  rope check --before data/dumps/q.npy --after data/dumps/q_rope.npy --positions 0:128");
  return {sub, [opt](std::ostream& out) { return run_check(*opt, out); }};
}

}  // namespace rope::cli
