// rope inspect: a report of a model's RoPE from its config.json or a preset (docs/scaling.md).
#include <CLI/CLI.hpp>
#include <memory>

#include "rope/cli/commands.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/scaling_options.hpp"
#include "rope/cli/report_output.hpp"
#include "rope/core/error.hpp"
#include "rope/report/inspect_report.hpp"
#include "rope/report/lint_report.hpp"
#include "rope/report/tensor_list_report.hpp"

namespace rope::cli {

struct InspectOptions {
  std::string file;     ///< positional config.json
  std::string tensors;  ///< --tensors FILE: a dump's tensors
  bool list = false;
  bool lint = false;
  bool json = false;
  std::optional<int> digits;  ///< significant digits of the computed numbers (digits.hpp); 0: full precision
  Lang lang = Lang::En;
  ScalingOptions scaling;
};

/// The request of the options: FILE, --config or --model, with the scaling options on top.
ModelRope inspect_request(const InspectOptions& opt) {
  ScalingOptions s = opt.scaling;
  if (!opt.file.empty()) {
    if (s.source.any()) throw InvalidArgument("give one of FILE, --config FILE or --model NAME");
    s.source.file = opt.file;
  }
  if (!s.source.any()) {
    throw InvalidArgument(error_msg("rope inspect needs a config.json FILE, --model NAME, or --list"));
  }
  return resolve(s, DimBase{});
}

/// --lint: the config's keys against 4.x-style readers (models/engine_lint.hpp), of FILE, --config FILE or --model.
EngineLint lint_request(const InspectOptions& opt) {
  const std::string& file = !opt.file.empty() ? opt.file : opt.scaling.source.file;
  if (file.empty() && opt.scaling.source.preset.empty()) {
    throw InvalidArgument(error_msg("rope inspect --lint needs a config.json FILE or --model NAME"));
  }
  return file.empty() ? engine_lint_preset(opt.scaling.source.preset) : engine_lint_file(file);
}

int run_inspect(const InspectOptions& opt, std::ostream& out) {
  const ReportFlags how{opt.json, opt.lang, opt.digits};
  if (!opt.tensors.empty()) {  // a dump's tensors (io/tensor_list.hpp)
    emit_report(out, list_tensors(opt.tensors), how);
  } else if (opt.list) {
    emit_report(out, list_presets(), how);
  } else if (opt.lint) {
    emit_report(out, lint_request(opt), how);
  } else {  // the report of the library (report/inspect_report.hpp), as Spec.describe() returns it
    emit_report(out, inspect_model(inspect_request(opt)), how);
  }
  return kOk;
}

Command add_inspect_command(CLI::App& app) {
  auto opt = std::make_shared<InspectOptions>();
  CLI::App* sub = app.add_subcommand(
      "inspect", "A model's RoPE, from its config.json, a GGUF file or a preset: frequencies, scaling, layers");
  sub->add_option("file", opt->file, "a Hugging Face config.json, a model folder holding one, or a GGUF file")
      ->type_name("FILE");
  sub->add_flag("--list", opt->list, "list the model presets");
  sub->add_option(
         "--tensors", opt->tensors,
         "list the tensors of a dump (name, dtype, shape, strides): torch.save .pt, .npy, safetensors (a file, or a "
         "checkpoint's directory or model.safetensors.index.json with its shards) or GGUF")
      ->type_name("FILE")
      ->excludes("--list")
      ->excludes("file");
  sub->add_flag("--lint", opt->lint,
                "say where engines that take a truthy rope_scaling as scaled, or read only rope_scaling and the "
                "top-level keys, compute another RoPE than transformers 5")
      ->excludes("--list");
  sub->add_flag("--json", opt->json, "print the report as JSON");
  add_digits_option(*sub, opt->digits, std::to_string(kInspectDigits),
                    "significant digits of the computed numbers (0: every digit; JSON always has every digit)");
  add_lang_option(*sub, opt->lang);
  add_scaling_options(*sub, opt->scaling);
  opt->scaling.axis_blocks = true;          // (V6): the report names the layout inside each axis's block
  opt->scaling.rope.fope = FopeUse::Theta;  // FoPE: the kept θ and the padded pairs (docs/multi-axis.md §7)
  // inspect reports a model's RoPE: a vision tower is --model/--config with --tower vision; --vision KIND
  // builds a tower from --dim and --base, which inspect does not take.
  sub->remove_option(sub->get_option("--vision"));
  sub->footer(
      "Example:\n  rope inspect --list\n  rope inspect --model llama-3.1-8b\n  rope inspect data/models/qwen2.5-7b.json --json\n  rope inspect data/gguf/llama-3.1-8b.gguf\n  rope inspect --tensors data/dumps/torch/qkv_bf16.pt");
  return {sub, [opt](std::ostream& out) { return run_inspect(*opt, out); }};
}

}  // namespace rope::cli
