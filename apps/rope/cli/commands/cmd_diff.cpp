// rope diff: two implementations' outputs for the same input and positions, each checked against the reference
// of rope check (check.hpp) and compared with each other under (D1) of rope/analysis/check/dump_diff.hpp: which one is
// right where, and what separates them, per range of positions.
#include <CLI/CLI.hpp>
#include <memory>

#include "rope/cli/choice_option.hpp"
#include "rope/cli/commands.hpp"
#include "rope/cli/commands/check_options.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/report_output.hpp"
#include "rope/report/diff_report.hpp"

namespace rope::cli {
namespace {

struct DiffOptions {
  CheckOptions check;  ///< check.dumps.after: --after-a
  std::string after_b;
  std::string name_a = "A", name_b = "B";
};

int run_diff(const DiffOptions& opt, std::ostream& out) {
  const DiffRun run = rope::run_diff({opt.check.dumps, opt.after_b, opt.name_a, opt.name_b, check_settings(opt.check)});
  emit_report(out, run, {opt.check.json, opt.check.lang});
  return run.passed() ? kOk : kVerifyFailed;
}

}  // namespace

Command add_diff_command(CLI::App& app) {
  auto opt = std::make_shared<DiffOptions>();
  opt->check.scaling.axis_blocks = true;  // (V6): the expectation's pairs inside each axis's block
  CLI::App* sub =
      app.add_subcommand("diff", "Two implementations' outputs for the same input: which one is right where, and why");
  add_dump_options(*sub, opt->check.dumps, true, false);
  sub->add_option("--after-a", opt->check.dumps.after,
                  "the first implementation's output (after RoPE), same shape as --before")
      ->required()
      ->type_name("FILE");
  sub->add_option("--after-b", opt->after_b, "the second implementation's output, same shape")
      ->required()
      ->type_name("FILE");
  sub->add_option("--name-a", opt->name_a, "a name for the first implementation in the report (default A)")
      ->type_name("NAME");
  sub->add_option("--name-b", opt->name_b, "a name for the second implementation in the report (default B)")
      ->type_name("NAME");
  add_base_option(*sub, opt->check.base);
  add_choice_option(*sub, "--layout", opt->check.layout, kLayoutWords, parse_layout,
                    "the pair layout the outputs should have (default: the model's, else half)", "LAYOUT");
  add_choice_option(*sub, "--dtype", opt->check.dtype, kDTypeWords, parse_dtype,
                    "the type both outputs were computed in, for the tolerance (default: each file's)", "TYPE");
  add_choice_option(*sub, "--angles", opt->check.angles, kAngleModelWords, parse_angle_model,
                    "how the outputs' angles were computed, for the tolerance (as rope check --angles)", "MODEL");
  add_coefficients_option(*sub, opt->check);
  sub->add_flag("--json", opt->check.json, "print the report as JSON");
  add_lang_option(*sub, opt->check.lang);
  add_scaling_options(*sub, opt->check.scaling);
  sub->footer(
      "Example:\n  rope diff --before data/dumps/q.npy --after-a data/dumps/q_rope.npy "
      "--after-b data/dumps/q_rope.npy --name-a trainer --name-b rollout");
  return {sub, [opt](std::ostream& out) { return run_diff(*opt, out); }};
}

}  // namespace rope::cli
