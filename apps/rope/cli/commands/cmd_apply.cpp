// rope apply: R_m x three ways (matrix, element-wise, complex), docs/math.md (M5), (M9), (M10). The
// computation is rope/analysis/teaching/apply_run.hpp; its report (text, JSON, CSV) rope/report/apply_report.hpp.
#include <CLI/CLI.hpp>
#include <memory>

#include "rope/analysis/check/fope_coefficients.hpp"
#include "rope/analysis/teaching/apply_run.hpp"
#include "rope/cli/choice_option.hpp"
#include "rope/cli/commands.hpp"
#include "rope/cli/commands/check_options.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/output.hpp"
#include "rope/cli/scaling_options.hpp"
#include "rope/cli/report_output.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/core/rotation.hpp"
#include "rope/io/text_file.hpp"
#include "rope/report/apply_report.hpp"

namespace rope::cli {

struct ApplyOptions {
  std::optional<AxisPosition> position;  ///< m, or t,h,w for a model with multimodal sections (A1)
  std::string vector;
  std::optional<double> base;
  std::optional<Layout> layout;  ///< --layout; nullopt: the model's, or interleaved
  std::string csv;
  Lang lang = Lang::En;
  ScalingOptions scaling;
  bool xpos = false;                               ///< --xpos: xPos's scale on top (docs/multi-axis.md (X2))
  XposRole role = XposRole::Query;                 ///< --role q|k
  double xpos_scale_base = kDefaultXposScaleBase;  ///< --xpos-scale-base s
  bool query = false;                              ///< --query: the model's query scaling (S21) on top
  std::optional<int> digits;    ///< --digits N: significant digits of the difference and its tolerance (digits.hpp)
  bool json = false;            ///< --json: the report's numbers as JSON
  std::string coefficients;     ///< --coefficients FILE: FoPE's checkpoint (analysis/teaching/fope_apply.hpp)
  std::optional<long> kv_head;  ///< --kv-head H: FoPE's key-value head
};

/// The request of the options: the vector read, its length checked, the rules between the options, the RoPE
/// resolved (d = the vector's length unless a model sets it).
ApplyRequest apply_request(const ApplyOptions& opt) {
  ApplyRequest request;
  const std::vector<double> values = parse_list_argument(opt.vector, "--vector");
  request.x = Eigen::Map<const Eigen::VectorXd>(values.data(), static_cast<Eigen::Index>(values.size()));
  const int n = static_cast<int>(request.x.size());
  check_dimension(n, kMaxDenseDim, "vector length d");  // one of the three forms is the dense matrix
  request.position = *opt.position;
  if (opt.xpos) request.xpos = XposSetting{opt.xpos_scale_base, opt.role};
  request.query = opt.query;
  request.float32 = opt.scaling.rope.float32;
  request.model_options = opt.scaling.any();
  request.model_source = opt.scaling.source.any();
  request.coefficients = fope_checkpoint(opt.coefficients);
  request.kv_head = opt.kv_head;
  check_apply_request(request);
  // With --scaling, --config or --model: the model's spec (rope/models/rope_spec.hpp): its layout, its
  // scaled frequencies, its attention factor in cos and sin, its rotating channels (S19). The vector is
  // a head (head_dim numbers) or its rotating part (rotary_dim numbers).
  request.rope = resolve(opt.scaling, {std::nullopt, n, opt.base, kDefaultBase, opt.layout, Layout::Interleaved});
  return request;
}

int run_apply(const ApplyOptions& opt, std::ostream& out) {
  const ApplyRun run = rope::run_apply(apply_request(opt));
  emit_report(out, run, {opt.json, opt.lang, opt.digits, opt.csv});
  return run.agree() ? kOk : kVerifyFailed;
}

Command add_apply_command(CLI::App& app) {
  auto opt = std::make_shared<ApplyOptions>();
  opt->scaling.axis_blocks = true;  // (V6): model_apply places the pairs inside each axis's block
  CLI::App* sub = app.add_subcommand("apply", "Rotate a vector by RoPE three ways and compare them");
  add_position_option(*sub, "-m,--position", opt->position,
                      "position m (may be negative or fractional), or t,h,w for a model with multimodal sections")
      ->required();
  sub->add_option("-x,--vector", opt->vector, "the vector, comma-separated: x0,x1,… (even length d), or @FILE")
      ->required()
      ->type_name("LIST");
  add_base_option(*sub, opt->base);
  add_layout_option(*sub, opt->layout, Layout::Interleaved);
  sub->add_option("--csv", opt->csv, "write channel,input,matrix,elementwise,complex to FILE ('-' for stdout)")
      ->type_name("FILE");
  sub->add_flag("--json", opt->json,
                "print JSON: theta, angle, input, matrix, elementwise, complex, difference, tolerance, agree, …");
  CLI::Option* xpos =
      sub->add_flag("--xpos", opt->xpos,
                    "xPos: scale pair i by zeta_i^(m/s) (query) or zeta_i^(-m/s) (key) (docs/multi-axis.md (X2))");
  add_choice_option(
      *sub, "--role", opt->role, {"q", "k"},
      +[](std::string_view w) {
        if (w != "q" && w != "k") {
          throw InvalidArgument(error_msg("--role must be q or k (got '{0}')", w));
        }
        return w == "k" ? XposRole::Key : XposRole::Query;
      },
      "with --xpos: the vector is a query (q, the default) or a key (k)", "ROLE")
      ->needs(xpos);
  add_real_option(*sub, "--xpos-scale-base", opt->xpos_scale_base, "with --xpos: the scale base s, > 0 (default 512)")
      ->needs(xpos);
  sub->add_flag("--query", opt->query,
                "the vector is a query: also multiply it by the model's query scaling at m, as its attention does "
                "(Ministral 3 and Mistral 4's llama_4_scaling_beta, docs/scaling.md (S21))")
      ->excludes(xpos);
  add_lang_option(*sub, opt->lang);
  add_digits_option(*sub, opt->digits, "6",
                    "significant digits of the table and the rotated vectors (6), and of the difference and its "
                    "tolerance (as many as show them different, at least 3); 0: every digit; CSV always has every "
                    "digit");
  sub->footer(
      "Example:\n  rope apply --position 1 --vector 1,0,0,1\n  rope apply --position 100 --vector 1,0,0,1 --xpos --role k");
  add_scaling_options(*sub, opt->scaling);
  // apply has no --dim: the tower's d is the vector's length.
  sub->get_option("--vision")
      ->description(
          "a vision tower's 2-D RoPE of the vector's length and --base: qwen2-vl, llama.cpp, pixtral, llama4, axial or gemma4 "
          "(docs/multi-axis.md §6)");
  add_float32_options(*sub, opt->scaling);
  add_fope_options(*sub, opt->coefficients, opt->kv_head, opt->scaling);
  return {sub, [opt](std::ostream& out) { return run_apply(*opt, out); }};
}

}  // namespace rope::cli
