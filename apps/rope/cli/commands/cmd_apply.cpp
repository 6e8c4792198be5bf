// rope apply: R_m x three ways (matrix, element-wise, complex), docs/math.md (M5), (M9), (M10).
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <memory>

#include "rope/cli/commands.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/output.hpp"
#include "rope/core/apply.hpp"
#include "rope/io/csv.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/core/parse.hpp"
#include "rope/core/rotation.hpp"
#include "rope/core/tolerance.hpp"
#include "rope/cli/scaling_options.hpp"

namespace rope::cli {

struct ApplyOptions {
  double position = 0.0;
  std::string vector;
  std::optional<double> base;
  Layout layout = Layout::Interleaved;
  std::string csv;
  Lang lang = Lang::En;
  ScalingOptions scaling;
};

namespace {

std::string join(const Eigen::VectorXd& v) {
  std::string s;
  for (Eigen::Index i = 0; i < v.size(); ++i) s += (i ? ", " : "") + format_number(v[i]);
  return "[" + s + "]";
}

}  // namespace

int run_apply(const ApplyOptions& opt, std::ostream& out) {
  const std::vector<double> values = parse_list_argument(opt.vector, "--vector");
  const Eigen::VectorXd x = Eigen::Map<const Eigen::VectorXd>(values.data(), static_cast<Eigen::Index>(values.size()));
  const int d = static_cast<int>(x.size());
  check_dimension(d, kMaxDenseDim, "vector length d");  // one of the three forms is the dense matrix
  const Text t(opt.lang);
  // With --scaling, --config or --model: a model's scaled frequencies; the vector must have its rotary
  // dimension.
  const Rope rope = resolve(opt.scaling, {std::nullopt, d, opt.base, kDefaultBase});
  std::string scaled;  // says which frequencies, when they are not plain RoPE's
  if (rope.scaled) {
    const ResolvedRope& rr = *rope.scaled;
    if (rr.d != d) {
      throw InvalidArgument(fmt::format("--vector has {} numbers but {} rotates d = {}", d, rr.model.name, rr.d));
    }
    scaled = t.format(", {} scaling f = {} from {}", ",{} 缩放 f = {},来自{}", to_string(rr.model.rope.type),
                      format_number(rr.params.factor), model_name(rr.model, t));
  }
  const double base = rope.base;
  const Eigen::VectorXd theta = rope.theta();
  const double m = opt.position;
  check_position_resolvable(m, d);

  const Eigen::VectorXd by_matrix = rotation_matrix<double>(theta, m, opt.layout) * x;
  const Eigen::VectorXd by_elementwise = apply_rotary(x, theta, m, opt.layout);
  const Eigen::VectorXd by_complex = apply_rotary_complex(x, theta, m, opt.layout);
  const double diff = std::max((by_matrix - by_elementwise).cwiseAbs().maxCoeff(),
                               (by_complex - by_elementwise).cwiseAbs().maxCoeff());
  const double scale = std::max(x.norm(), 1e-300);
  const Check check{diff, scale, relative_tolerance(machine_epsilon<double>(), d, std::abs(m))};
  const bool agree = check.passed();

  if (!opt.csv.empty()) {
    Eigen::VectorXd channel(d);
    for (int i = 0; i < d; ++i) channel[i] = i;
    const Table table{{"channel", "input", "matrix", "elementwise", "complex"},
                      {channel, x, by_matrix, by_elementwise, by_complex}};
    write_output(opt.csv, to_csv(table), out);
  }
  if (opt.csv != "-") {
    out << t.format("RoPE at position m = {}, d = {}, base = {}{}, {} layout\n\n",
                    "位置 m = {} 处的 RoPE,d = {},base = {}{},{} 排列\n\n", format_number(m), d, format_number(base), scaled,
                    layout_name(opt.layout, t));
    out << fmt::format("{:>5}  {:>10}  {:>22}  {:>22}\n", t("pair", "维度对"), t("channels", "通道"), "θ_i",
                       t("angle m·θ_i (rad)", "角度 m·θ_i (rad)"));
    for (int i = 0; i < d / 2; ++i) {
      const auto [a, b] = pair_channels(d, i, opt.layout);
      out << fmt::format("{:>5}  {:>10}  {:>22}  {:>22}\n", i, fmt::format("({}, {})", a, b),
                         format_number(theta[i]), format_number(m * theta[i]));
    }
    out << fmt::format("\n{:<14}x = {}\n", t("input", "输入"), join(x));
    out << fmt::format("{:<14}R_m x = {}\n", t("matrix", "矩阵"), join(by_matrix));
    out << fmt::format("{:<14}x ⊙ cos(mΘ) + rot(x) ⊙ sin(mΘ) = {}\n", t("element-wise", "逐元素"), join(by_elementwise));
    out << fmt::format("{:<14}(x_a + i·x_b)·e^(i·m·θ_i) = {}\n", t("complex", "复数"), join(by_complex));
    out << t.format("\nmax |difference| between the three forms = {:.3g}  (tolerance κ·ε·(d + |m|)·‖x‖ = {:.3g}, (M13)): {}\n",
                    "\n三种算法之间的最大 |差| = {:.3g}  (容差 κ·ε·(d + |m|)·‖x‖ = {:.3g},(M13)):{}\n", diff, check.tolerance * check.scale,
                    agree ? t("they agree", "结果一致") : t("THEY DISAGREE", "结果不一致"));
  }
  return agree ? kOk : kVerifyFailed;
}

Command add_apply_command(CLI::App& app) {
  auto opt = std::make_shared<ApplyOptions>();
  CLI::App* sub = app.add_subcommand("apply", "Rotate a vector by RoPE three ways and compare them");
  add_real_option(*sub, "-m,--position", opt->position, "position m (may be negative or fractional)")->required();
  sub->add_option("-x,--vector", opt->vector, "the vector, comma-separated: x0,x1,… (even length d), or @FILE")
      ->required()
      ->type_name("LIST");
  add_base_option(*sub, opt->base);
  add_layout_option(*sub, opt->layout);
  sub->add_option("--csv", opt->csv, "write channel,input,matrix,elementwise,complex to FILE ('-' for stdout)")
      ->type_name("FILE");
  add_lang_option(*sub, opt->lang);
  sub->footer("Example:\n  rope apply --position 1 --vector 1,0,0,1");
  add_scaling_options(*sub, opt->scaling);
  return {sub, [opt](std::ostream& out) { return run_apply(*opt, out); }};
}

}  // namespace rope::cli
