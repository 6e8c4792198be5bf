// rope matrix: the dense block-diagonal R^d_{Θ,m}, docs/math.md (M5), (M6), and R_mᵀR_n = R_{n−m} (M7). The
// computation is rope/analysis/teaching/matrix_run.hpp; its report (text, JSON, CSV, figure)
// rope/report/matrix_report.hpp.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <memory>
#include <optional>

#include "rope/analysis/check/fope_coefficients.hpp"
#include "rope/analysis/teaching/matrix_run.hpp"
#include "rope/cli/commands.hpp"
#include "rope/cli/commands/check_options.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/figure_options.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/output.hpp"
#include "rope/cli/scaling_options.hpp"
#include "rope/cli/report_output.hpp"
#include "rope/core/constants.hpp"
#include "rope/report/matrix_report.hpp"

namespace rope::cli {

/// --dim when not typed.
inline constexpr int kDefaultMatrixDim = 8;

struct MatrixOptions {
  std::optional<int> dim;
  std::optional<double> base;
  std::optional<AxisPosition> position;  ///< m, or t,h,w for a model with multimodal sections (A1)
  std::vector<AxisPosition> relative;    ///< {M, N} with --relative (each m, or t,h,w … as --position)
  std::optional<Layout> layout;          ///< --layout; nullopt: the model's, or interleaved
  int digits = 6;
  std::string csv;
  bool json = false;  ///< --json: the matrix (or the two of --relative) as JSON
  FigureOptions figure;
  ScalingOptions scaling;
  std::string coefficients;     ///< --coefficients FILE: FoPE's checkpoint (analysis/teaching/fope_apply.hpp)
  std::optional<long> kv_head;  ///< --kv-head H: FoPE's key-value head
};

/// The request of the options. With --scaling, --config or --model the frequencies (and d, base) are the
/// model's scaled ones; with a model, its spec (rope/models/rope_spec.hpp): layout, attention factor, rotating
/// channels.
MatrixRequest matrix_request(const MatrixOptions& opt) {
  MatrixRequest request;
  request.rope = resolve(opt.scaling, {opt.dim, kDefaultMatrixDim, opt.base, kDefaultBase, opt.layout,
                                       Layout::Interleaved, kMaxMatrixDim});
  check_figure_options(opt.figure);
  request.position = opt.position;
  request.relative = opt.relative;
  request.digits = opt.digits;
  request.float32 = opt.scaling.rope.float32;
  request.figure = opt.figure.wanted();
  request.coefficients = fope_checkpoint(opt.coefficients);
  request.kv_head = opt.kv_head;
  return request;
}

int run_matrix(const MatrixOptions& opt, std::ostream& out) {
  const MatrixRun run = rope::run_matrix(matrix_request(opt));
  emit_report(out, run, {opt.json, opt.figure.tr().lang(), std::nullopt, opt.csv}, [&] {
    if (opt.figure.wanted()) draw(matrix_figure(run, opt.figure.tr()), opt.figure);
  });
  return run.passed() ? kOk : kVerifyFailed;
}

Command add_matrix_command(CLI::App& app) {
  auto opt = std::make_shared<MatrixOptions>();
  CLI::App* sub = app.add_subcommand("matrix", "The d×d block-diagonal rotation matrix R^d_(Θ,m)");
  add_int_option(*sub, "-d,--dim", opt->dim, kDefaultMatrixDim,
                 fmt::format("dimension d: even, 2 … {}", kMaxMatrixDim));
  add_base_option(*sub, opt->base);
  CLI::Option* position =
      add_position_option(*sub, "-m,--position", opt->position,
                          "position m (may be negative or fractional), or t,h,w for a model with multimodal sections");
  CLI::Option* relative =
      sub->add_option_function<std::vector<std::string>>(
             "--relative",
             [opt](const std::vector<std::string>& texts) {
               opt->relative.clear();
               for (const std::string& text : texts) opt->relative.push_back(parse_axis_position(text, "--relative"));
             },
             "print R_Mᵀ R_N beside R_(N−M) and their difference; M and N as --position (t,h,w … per axis)")
          ->expected(2)
          ->type_name("M N");
  add_layout_option(*sub, opt->layout, Layout::Interleaved);
  opt->scaling.axis_blocks = true;  // (V6): spec_matrix places the pairs inside each axis's block; --relative refuses
  add_int_option(*sub, "--digits", opt->digits, "decimals printed per entry (0 … 17)");
  sub->add_option("--csv", opt->csv,
                  "write the header col_0,…,col_(d−1) and the d rows of d numbers to FILE ('-' for stdout)")
      ->type_name("FILE")
      ->excludes(relative);
  sub->add_flag("--json", opt->json,
                "print JSON: dim, head_dim, base, layout, and the matrix as rows (with --relative: product, rotation, "
                "difference, tolerance, equal)");
  position->excludes(relative);
  add_figure_options(*sub, opt->figure);
  add_scaling_options(*sub, opt->scaling);
  add_float32_options(*sub, opt->scaling);
  add_fope_options(*sub, opt->coefficients, opt->kv_head, opt->scaling);
  sub->footer(
      "Example:\n  rope matrix --dim 4 --position 1\n  rope matrix --dim 4 --relative 2 5\n  rope matrix --dim 64 --position 3 --png matrix.png\n  rope matrix --model qwen3-vl-8b --position 7,2,3 --digits 1");
  return {sub, [opt](std::ostream& out) { return run_matrix(*opt, out); }};
}

}  // namespace rope::cli
