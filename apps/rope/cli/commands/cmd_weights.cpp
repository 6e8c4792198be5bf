// rope weights: which q/k row permutation separates two checkpoints of a model, and whether it is the one the
// candidate's engine expects (rope/analysis/weights/weights_run.hpp does the work, report/weights_report.hpp prints
// it).
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <memory>
#include <string>

#include "rope/analysis/weights/weights_run.hpp"
#include "rope/cli/commands.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/figure_options.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/report_output.hpp"
#include "rope/core/utf8.hpp"
#include "rope/report/weights_report.hpp"
#include "rope/core/error.hpp"

namespace rope::cli {

struct WeightsOptions {
  WeightsRequest request;
  std::optional<long> head;  ///< --head N
  std::string tensor = "q";  ///< --tensor q|k: the heat map's
  bool json = false;
  bool wide = false;  ///< --wide: every tensor's name in full
  FigureOptions figure;
  std::optional<int> digits;
};

int run_weights(const WeightsOptions& opt, std::ostream& out) {
  check_figure_options(opt.figure);
  WeightsRequest request = opt.request;
  if (opt.figure.wanted() && !request.heatmap_layer) request.heatmap_layer = 0;
  if (!opt.figure.wanted()) request.heatmap_layer.reset();
  request.heatmap_head = opt.head.value_or(0);
  request.heatmap_key = opt.tensor == "k";
  const WeightsRun run = rope::run_weights(request);
  emit_report(out, run, {opt.json, opt.figure.lang, opt.digits, "", opt.wide}, [&] {
    if (opt.figure.wanted()) draw(weights_figure(run, opt.figure.tr()), opt.figure);
  });
  return run.passed() ? kOk : kVerifyFailed;
}

Command add_weights_command(CLI::App& app) {
  auto opt = std::make_shared<WeightsOptions>();
  CLI::App* sub = app.add_subcommand(
      "weights", "Which q/k row permutation separates two checkpoints, and is it the one the engine expects");
  sub->add_option("reference", opt->request.reference,
                  "the reference checkpoint: a Hugging Face directory, a .safetensors file or a GGUF file")
      ->required()
      ->type_name("PATH");
  sub->add_option("candidate", opt->request.candidate, "the candidate checkpoint, in any of the same forms")
      ->required()
      ->type_name("PATH");
  sub->add_option(
         "--config", opt->request.config,
         "a config.json, model folder or GGUF that says the model (heads, pairing) of a side with none beside it")
      ->type_name("FILE");
  add_long_option(*sub, "--layer", opt->request.heatmap_layer, 0, "with --png: the layer of the heat map (default 0)");
  add_long_option(*sub, "--head", opt->head, 0, "with --png: the head block of the heat map (default 0)");
  sub->add_option("--tensor", opt->tensor, "with --png: the heat map's tensor, q or k (default q)")
      ->check(CLI::Validator(
          [](std::string& value) {
            if (value != "q" && value != "k")
              throw InvalidArgument(
                  error_msg("--tensor must be q or k (got '{0}')", escape_controls(value, kQuotedBytes)));
            return std::string();
          },
          ""))
      ->type_name("KIND");
  sub->add_flag("--json", opt->json, "print the report as JSON");
  add_wide_option(*sub, opt->wide);
  add_figure_options(*sub, opt->figure);
  add_digits_option(*sub, opt->digits, "2", kDigitsHelp);
  sub->footer(
      "Example:\n  rope weights data/weights/llama-hf data/weights/llama-q4_k_m.gguf\n"
      "  rope weights data/weights/llama-f16.gguf data/weights/llama-q4_k_m.gguf --json\n"
      "  rope weights data/weights/llama-hf data/weights/llama-f16.gguf --png heat.png --layer 0 --head 3");
  return {sub, [opt](std::ostream& out) { return run_weights(*opt, out); }};
}

}  // namespace rope::cli
