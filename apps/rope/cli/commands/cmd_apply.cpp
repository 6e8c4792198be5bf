// rope apply: R_m x three ways (matrix, element-wise, complex), docs/math.md (M5), (M9), (M10).
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <memory>

#include "rope/cli/axes_text.hpp"
#include "rope/cli/commands.hpp"
#include "rope/report/digits.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/output.hpp"
#include "rope/analysis/model_apply.hpp"
#include "rope/io/csv.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/core/parse.hpp"
#include "rope/core/rotation.hpp"
#include "rope/core/tolerance.hpp"
#include "rope/cli/scaling_options.hpp"
#include "rope/models/rope_float32.hpp"
#include "rope/models/rope_spec.hpp"
#include "rope/analysis/xpos.hpp"
#include "rope/cli/choice_option.hpp"

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
  std::optional<int> digits;  ///< --digits N: significant digits of the difference and its tolerance (digits.hpp)
};

namespace {

/// `v` as [v0, v1, …], each with `digits` significant digits (0: every digit; report/digits.hpp).
std::string join(const Eigen::VectorXd& v, int digits = 0) {
  std::string s;
  for (Eigen::Index i = 0; i < v.size(); ++i) s += (i ? ", " : "") + with_digits(v[i], digits);
  return "[" + s + "]";
}

}  // namespace

int run_apply(const ApplyOptions& opt, std::ostream& out) {
  const std::vector<double> values = parse_list_argument(opt.vector, "--vector");
  const Eigen::VectorXd x = Eigen::Map<const Eigen::VectorXd>(values.data(), static_cast<Eigen::Index>(values.size()));
  const int n = static_cast<int>(x.size());
  check_dimension(n, kMaxDenseDim, "vector length d");  // one of the three forms is the dense matrix
  const Text t(opt.lang);
  if (opt.xpos && (opt.scaling.any() || opt.position->multi())) {
    throw InvalidArgument(
        error_msg("--xpos applies to plain RoPE: leave out --model, --config and --scaling, and give one position"));
  }
  if (opt.query && !opt.scaling.source.any()) {
    throw InvalidArgument(error_msg("{0} scales a query as a model's attention does: give {1} or {2}",
                                    option_name("query"), option_name("model"), option_name("config")));
  }
  // With --scaling, --config or --model: the model's spec (rope/models/rope_spec.hpp): its layout, its
  // scaled frequencies, its attention factor in cos and sin, its rotating channels (S19). The vector is
  // a head (head_dim numbers) or its rotating part (rotary_dim numbers).
  const ModelRope rope =
      resolve(opt.scaling, {std::nullopt, n, opt.base, kDefaultBase, opt.layout, Layout::Interleaved});
  std::string scaled;  // says which frequencies, when they are not plain RoPE's
  if (!rope.plain) {
    const RopeSpec& spec = rope.spec;
    try {
      static_cast<void>(rotary_offset_for(spec, n));  // the library's rule; the message names --vector
    } catch (const InvalidArgument&) {
      throw InvalidArgument(
          spec.partial()
              ? error_msg(
                    "--vector has {0} numbers but {1} has head_dim {2} of which d = {3} rotate: give {4} or {5} numbers",
                    n, spec.name, spec.head_dim, spec.rotary_dim, spec.head_dim, spec.rotary_dim)
              : error_msg("--vector has {0} numbers but {1} rotates d = {2}", n, spec.name, spec.rotary_dim));
    }
    scaled = t.tr(", {0} scaling f = {1} from {2}{3}", to_string(rope.spec.config.type),
                  format_number(spec.params.factor), model_name(rope.spec, t), layer_text(spec, t));
  }
  const int d = rope.spec.rotary_dim;
  const AxisPosition& p = *opt.position;
  check_float32_position(opt.scaling, p);
  for (int k = 0; k < p.count; ++k) {
    // A multi-axis position names the component that is too large (its axis is the model's k-th).
    check_position_resolvable(p.value[static_cast<std::size_t>(k)], d,
                              p.multi() ? fmt::format("--position component {} of {}", k + 1, p.text()) : "position m");
  }
  const ModelApply r = model_apply(
      rope.spec, x, p, opt.xpos ? std::optional<XposSetting>({opt.xpos_scale_base, opt.role}) : std::nullopt,
      opt.scaling.rope.float32);
  const RopeSpec& spec = r.spec;
  const double a = spec.attention_factor();
  const double base = rope.spec.config.base;
  const AxisMap* axes = spec.axes ? &*spec.axes : nullptr;
  const int offset = r.offset;
  const bool agree = r.check.passed();
  const std::optional<Float32Angles>& g32 = r.float32;
  // --query: Ministral 3 and Mistral 4 multiply the query by s(m) (S21) after RoPE, on every layer; the three
  // forms were compared before, and s(m) scales them alike.
  const std::optional<QueryScaling>& qs = rope.model.query_scaling;
  const double s_m = opt.query && qs ? qs->at(p[0]) : 1.0;
  const Eigen::VectorXd by_matrix = s_m * r.by_matrix;
  const Eigen::VectorXd by_elementwise = s_m * r.by_elementwise;
  const Eigen::VectorXd by_complex = s_m * r.by_complex;
  const Eigen::VectorXd by_float32 = s_m * r.by_float32;

  if (!opt.csv.empty()) {
    Eigen::VectorXd channel(n);
    for (int i = 0; i < n; ++i) channel[i] = i;
    Table table{{"channel", "input", "matrix", "elementwise", "complex"},
                {channel, x, by_matrix, by_elementwise, by_complex}};
    if (g32) {
      table.header.push_back("float32");
      table.columns.push_back(by_float32);
    }
    write_output(opt.csv, to_csv(table), out);
  }
  if (opt.csv != "-") {
    // The table and the vectors with 6 digits, or --digits N (report/digits.hpp kTableDigits); CSV has every digit.
    const int digits = opt.digits.value_or(kTableDigits);
    const auto num = [digits](double v) { return with_digits(v, digits); };
    const int w = std::min(22, std::max(18, column_width(digits)));  // the angle header fits
    out << t.tr("RoPE at position m = {0}, d = {1}, base = {2}{3}, {4}\n", p.text(), d, format_number(base), scaled,
                layout_text(rope, t));
    if (axes && axes->vision()) {
      out << vision_map_line(*axes, p, t) << '\n';
      if (const auto note = patch_outside_grid(rope, p)) out << note->in(t.lang()) << '\n';
    } else if (axes) {
      out << t.tr(
          "M-RoPE ({0} sections [{1}]): pair i turns by θ_i times the position of its axis (docs/multi-axis.md (A1))\n",
          order_name(axes->source.order, t), fmt::join(axes->source.sections, ", "));
    }
    if (n != d) {
      out << t.tr("head_dim {0}: channels {1} … {2} rotate, the other {3} pass through unchanged\n", n, offset,
                  offset + d - 1, n - d);
    }
    if (spec.config.seq_len != rope.spec.config.seq_len) {
      for (const Message& note : spec.params.notes) out << note.in(t.lang()) << '\n';
      out << spec.notes.back().in(t.lang()) << '\n';
    }
    if (spec.deinterleaved_output) {
      out << t.tr(
          "the model's code returns the rotated pairs de-interleaved: pair i on channels i and i + d/2 of the "
          "rotating part (q·k is unchanged)\n");
    }
    if (opt.xpos) {
      out << t.tr(
          "xPos, s = {0}: pair i times ζ_i^({1}m/s), ζ_i = (2i/d + 0.4)/1.4 (docs/multi-axis.md (X1), (X2)); "
          "ζ^({2}m/s) = {3}\n",
          format_number(opt.xpos_scale_base), opt.role == XposRole::Query ? "" : "−",
          opt.role == XposRole::Query ? "" : "−", join(r.xpos_scale, digits));
    }
    if (a != 1.0) {
      out << t.tr(
          "attention factor a = {0} multiplies cos and sin (as HF does): the rotated channels are a·R_m x (S19)\n",
          format_number(a));
    }
    if (opt.query && qs) {
      out << t.tr(
          "query scaling (S21): the query after RoPE times s(m) = 1 + β·ln(1 + ⌊m / L0⌋) = {0} (β = {1}, L0 = {2}; "
          "{3}): every result below is s(m)·R_m x\n",
          format_number(s_m), format_number(qs->beta), format_number(qs->original), qs->from.in(t.lang()));
    } else if (opt.query) {
      out << t.tr("--query: {0} does not scale its queries: the result is the rotation alone\n",
                  model_name(rope.spec, t));
    }
    if (g32) out << float32_text(t) << '\n';
    out << '\n';
    const std::string f32_head =
        g32 ? fmt::format("  {:>{}}  {:>{}}", t.tr("θ_i float32"), w, t.tr("angle float32"), w) : "";
    out << fmt::format("{:>5}  {:>10}  {}{:>{}}  {:>{}}{}\n", t.tr("pair"), t.tr("channels"),
                       axes ? fmt::format("{:>4}  ", t.tr("axis")) : "", "θ_i", w,
                       axes ? t.tr("angle θ_i·p_a (rad)") : t.tr("angle m·θ_i (rad)"), w, f32_head);
    for (int i = 0; i < d / 2; ++i) {
      const auto [ca, cb] = spec_pair_channels(spec, i);
      const std::string axis =
          axes ? fmt::format("{:>4}  ", axis_letter(axes->pair_axis[static_cast<std::size_t>(i)])) : "";
      const std::string f32 =
          g32 ? fmt::format("  {:>{}}  {:>{}}", num(g32->inv_freq[i]), w, num(g32->angle[i]), w) : "";
      out << fmt::format("{:>5}  {:>10}  {}{:>{}}  {:>{}}{}\n", i, fmt::format("({}, {})", offset + ca, offset + cb),
                         axis, num(r.frequency[i]), w, num(r.angle[i]), w, f32);
    }
    out << fmt::format("\n{:<14}x = {}\n", t.tr("input"), join(x));
    out << fmt::format("{:<14}R_m x = {}\n", t.tr("matrix"), join(by_matrix, digits));
    out << fmt::format("{:<14}x ⊙ cos(mΘ) + rot(x) ⊙ sin(mΘ) = {}\n", t.tr("element-wise"),
                       join(by_elementwise, digits));
    out << fmt::format("{:<14}(x_a + i·x_b)·e^(i·m·θ_i) = {}\n", t.tr("complex"), join(by_complex, digits));
    if (g32) {
      out << fmt::format("{:<14}x ⊙ cos + rotate(x) ⊙ sin = {}\n", "float32 (HF)", join(by_float32, digits));
      out << t.tr(
          "max |float32 − float64| = {0:.3g} (float32's ε = {1:.3g}: expected of the order of ε·(1 + |m·θ_0|)·‖x‖)\n",
          (by_float32 - by_elementwise).cwiseAbs().maxCoeff(), static_cast<double>(machine_epsilon<float>()));
    }
    // The difference against its tolerance, with the digits that tell them apart (digits.hpp), or --digits N.
    const std::vector<std::string> shown =
        compared({r.check.difference, r.check.tolerance * r.check.scale}, opt.digits);
    out << t.tr("\nmax |difference| between the three forms = {0}  (tolerance κ·ε·(d + |m|)·‖x‖ = {1}, (M13)): {2}\n",
                shown[0], shown[1], agree ? t.tr("they agree") : t.tr("THEY DISAGREE"));
  }
  return agree ? kOk : kVerifyFailed;
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
  return {sub, [opt](std::ostream& out) { return run_apply(*opt, out); }};
}

}  // namespace rope::cli
