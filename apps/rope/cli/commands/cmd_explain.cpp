// rope explain: RoPE step by step for a classroom, in English or Chinese, docs/math.md (M1), (M3)–(M9),
// (M13). The numbers come from rope/analysis/teaching/explain_run.hpp, the text from rope/report/explain_report.hpp;
// the 2-D picture is figures/explain_figure.hpp.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "rope/analysis/teaching/explain_run.hpp"
#include "rope/cli/commands.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/figure_options.hpp"
#include "rope/cli/figures/explain_figure.hpp"
#include "rope/cli/figures/motion_figures.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/report_output.hpp"
#include "rope/core/error.hpp"
#include "rope/core/parse.hpp"
#include "rope/report/explain_report.hpp"

namespace rope::cli {

/// Default figure size of rope explain: square, so that with equal x and y ranges a right angle
/// looks like one.
inline constexpr int kExplainFigureSize = 900;

struct ExplainOptions {
  std::vector<double> positions{2.0, 5.0};  ///< M, N
  std::string q = "1,0.5";
  std::string k = "0.8,-0.3";
  std::optional<double> theta;  ///< --theta; nullopt: θ_0 = 1 (or θ of --pair)
  std::optional<int> pair;      ///< --pair: θ of that pair of (--dim, --base)
  double shift = 100.0;
  int dim = 8;
  double base = kDefaultBase;
  std::optional<int> step;  ///< --step; nullopt: every step
  bool quiet = false;       ///< --quiet: without the header (q, k, θ and the meaning of a check)
  bool json = false;        ///< --json: the walkthrough's numbers (report/explain_report.hpp explain_value)
  FigureOptions figure;
};

/// The options of the quantities explain::explain checks.
const OptionNames kExplainOptions{{"query q", "--q"}, {"key k", "--k"}, {"shift c", "--shift"}, {"θ", "--theta"}};

/// The request of the options: --q and --k parsed (two numbers each).
ExplainRequest explain_request(const ExplainOptions& opt) {
  check_figure_options(opt.figure);
  ExplainRequest r;
  for (const auto& [text, what, target] : {std::tuple{&opt.q, "--q", &r.q}, std::tuple{&opt.k, "--k", &r.k}}) {
    const std::vector<double> values = parse_real_list(*text, what);
    if (values.size() != 2) {
      throw InvalidArgument(
          error_msg("{0} must be exactly 2 numbers a,b: one 2-D pair (got {1})", what, values.size()));
    }
    *target = Eigen::Vector2d(values[0], values[1]);
  }
  r.positions = opt.positions;
  r.theta = opt.theta, r.pair = opt.pair;
  r.shift = opt.shift, r.dim = opt.dim, r.base = opt.base;
  r.step = opt.step, r.quiet = opt.quiet;
  return r;
}

int run_explain(const ExplainOptions& opt, std::ostream& out) {
  const ExplainRun run = [&] {
    try {
      return rope::run_explain(explain_request(opt));
    } catch (const InvalidQuantity& e) {
      rethrow_naming_option(e, kExplainOptions);
    }
  }();
  const FigureOptions& f = opt.figure;
  if (f.wanted()) draw(figure_of(run.walkthrough, f), f);
  if (f.animated()) draw_animation(explain_frames(run.walkthrough.setup, f), f);
  emit_report(out, run, {opt.json, f.tr().lang()});
  return run.passed() ? kOk : kVerifyFailed;
}

Command add_explain_command(CLI::App& app) {
  auto opt = std::make_shared<ExplainOptions>();
  CLI::App* sub = app.add_subcommand("explain", "RoPE step by step, with numbers, for a lecture (English or 中文)");
  add_reals_option(*sub, "-m,--position", opt->positions, "positions M of q and N of k: --position M --position N");
  sub->add_option("--q", opt->q, "the query q: two numbers a,b")->type_name("a,b")->capture_default_str();
  sub->add_option("--k", opt->k, "the key k: two numbers a,b")->type_name("a,b")->capture_default_str();
  CLI::Option* theta =
      add_real_option(*sub, "--theta", opt->theta, 1.0, "θ of steps 1–6, rad per position: 0 < θ <= 2π");
  CLI::Option* pair = add_int_option(*sub, "--pair", opt->pair, 0, "take θ = θ_i of pair i of (--dim, --base) instead")
                          ->default_str("");  // optional: θ = --theta without it
  theta->excludes(pair);
  add_real_option(*sub, "-c,--shift", opt->shift, "shift c of both positions in step 6");
  add_int_option(*sub, "-d,--dim", opt->dim,
                 fmt::format("dimension d of steps 7 and 8: even, 2 … {}", explain::kMaxDim));
  add_base_option(*sub, opt->base);
  add_int_option(*sub, "--step", opt->step, 0, "show only step K (1 … 8), to pace a lecture")->default_str("all");
  sub->add_flag("--quiet", opt->quiet, "leave out the header (q, k, θ and what a check means): for the second step on");
  sub->add_flag("--json", opt->json,
                "print JSON: q, k, m, n, θ, the scores of step 5 and each check of the steps shown");
  add_figure_options(*sub, opt->figure);
  add_animation_options(*sub, opt->figure,
                        "animate to a GIF: positions + 1 per frame; q, k and each pair turn at their speed");
  sub->get_option("--lang")->description("language of the text and the figure: en or zh (中文)");
  CLI::Option* width = sub->get_option("--width")->default_str(std::to_string(kExplainFigureSize));
  CLI::Option* height = sub->get_option("--height")->default_str(std::to_string(kExplainFigureSize));
  sub->footer(
      "Steps: 1 the vector as a complex number, 2 Euler's formula, 3 rotation = complex product = 2×2 matrix,\n"
      "4 R(−Mθ)R(Nθ) = R((N−M)θ), 5 the score depends on N − M only, 6 shifting both positions changes\n"
      "nothing, 7 from 2 to d dimensions, 8 several axes (a patch's frame, row and column).\n"
      "Example:\n  rope explain\n  rope explain --lang zh --step 5\n"
      "  rope explain --step 8\n  rope explain --position 3 --position 7 --q 1,2 --k -1,0.5 --png explain.png");
  return {sub, [opt, width, height](std::ostream& out) {
            const bool any = opt->figure.wanted() || opt->figure.animated();
            if (any && width->count() == 0) opt->figure.width = kExplainFigureSize;
            if (any && height->count() == 0) opt->figure.height = kExplainFigureSize;
            return run_explain(*opt, out);
          }};
}

}  // namespace rope::cli
