// rope identify: the RoPE that turned one dump into the other, from the numbers alone
// (rope/analysis/identify/identify.hpp): pair layout, rotary dimension, attention factor, per-pair θ_j and the
// scaling family that explains them, with the residual of the fit.
#include <CLI/CLI.hpp>
#include <memory>

#include "rope/cli/choice_option.hpp"
#include "rope/cli/commands.hpp"
#include "rope/cli/dump_options.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/figure_options.hpp"
#include "rope/cli/figures/identify_figure.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/report_output.hpp"
#include "rope/report/identify_report.hpp"

namespace rope::cli {

struct IdentifyOptions {
  DumpOptions dumps;
  bool json = false;
  FigureOptions figure;
  std::optional<int> digits;   ///< --digits N: significant digits of the fits' residuals (digits.hpp); θ keeps 6
  std::optional<DType> dtype;  ///< --dtype: the type the dump was computed in, for the rounding identify allows
};

int run_identify(const IdentifyOptions& opt, std::ostream& out) {
  check_figure_options(opt.figure);
  const IdentifyRun run = rope::run_identify({opt.dumps, opt.dtype});
  emit_report(out, run, {opt.json, opt.figure.lang, opt.digits}, [&] {
    // θ_j measured, to draw against the family (none for FoPE, whose pairs turn by no one angle)
    if (opt.figure.wanted() && run.id.theta.size() > 0) draw(identify_figure(opt.figure, run.id), opt.figure);
  });
  // The dump's positions are not the ones given, or its rotation is reversed: exit 1, as a failed check.
  return run.failed() ? kVerifyFailed : kOk;
}

Command add_identify_command(CLI::App& app) {
  auto opt = std::make_shared<IdentifyOptions>();
  CLI::App* sub = app.add_subcommand(
      "identify", "Which RoPE produced these tensors: layout, rotary dim, frequencies and scaling from two dumps");
  add_dump_options(*sub, opt->dumps, true);
  add_choice_option(
      *sub, "--dtype", opt->dtype, kDTypeWords, parse_dtype,
      "the type the dump was computed in, for the rounding identify allows (default: the file's, or bf16 when "
      "every value of a float32 dump is a bf16 number)",
      "TYPE");
  sub->add_flag("--json", opt->json, "print the identification as JSON");
  add_figure_options(*sub, opt->figure);
  add_digits_option(*sub, opt->digits, "4", kDigitsHelp);
  sub->footer("Example:\n  rope identify --before data/dumps/q.npy --after data/dumps/q_rope.npy --positions 0:128");
  return {sub, [opt](std::ostream& out) { return run_identify(*opt, out); }};
}

}  // namespace rope::cli
