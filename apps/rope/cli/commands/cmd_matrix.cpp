// rope matrix: the dense block-diagonal R^d_{Θ,m}, docs/math.md (M5), (M6), and R_mᵀR_n = R_{n−m} (M7).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <memory>
#include <optional>

#include "rope/cli/axes_text.hpp"
#include "rope/cli/commands.hpp"
#include "rope/report/digits.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/figure_options.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/output.hpp"
#include "rope/report/printing.hpp"
#include "rope/io/csv.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/core/rotation.hpp"
#include "rope/core/tolerance.hpp"
#include "rope/cli/scaling_options.hpp"
#include "rope/models/rope_float32.hpp"
#include "rope/models/rope_spec.hpp"

namespace rope::cli {

/// Printing or writing more than 1024² entries is never what a user meant.
inline constexpr int kMaxMatrixDim = 1024;

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
  FigureOptions figure;
  ScalingOptions scaling;
};

namespace {

/// Entries with `digits` decimals, right-aligned; exact zeros as a plain 0 so the blocks stand out.
MatrixFormat with_digits(int digits) {
  MatrixFormat f;
  f.digits = digits;
  return f;
}

}  // namespace

int run_matrix(const MatrixOptions& opt, std::ostream& out) {
  // With --scaling, --config or --model the frequencies (and d, base) are the model's scaled ones.
  // With a model, its spec (rope/models/rope_spec.hpp): layout, attention factor, rotating channels.
  const ModelRope rope = resolve(opt.scaling, {opt.dim, kDefaultMatrixDim, opt.base, kDefaultBase, opt.layout,
                                               Layout::Interleaved, kMaxMatrixDim});
  const Layout layout = rope.spec.layout;
  std::string scaled;  // says which frequencies, when they are not plain RoPE's
  const Text t = opt.figure.tr();
  if (!rope.plain) {
    const ModelRope& rr = rope;
    scaled = t.tr(", {0} scaling f = {1} from {2}{3}", to_string(rr.spec.config.type),
                  format_number(rr.spec.params.factor), model_name(rr.spec, t), layer_text(rr.spec, t));
  }
  const int dim = rope.spec.rotary_dim;
  const double base = rope.spec.config.base;
  check_dimension(dim, kMaxMatrixDim);
  // The printed matrix: the model's head (head_dim, (S19)) or plain RoPE's d.
  const int size = !rope.plain ? rope.spec.head_dim : dim;
  check_dimension(size, kMaxMatrixDim, "head_dim");
  if (opt.digits < 0 || opt.digits > 17) {
    throw InvalidArgument(
        error_msg("{0} must be between {1} and {2} (got {3})", option_name("digits"), 0, 17, opt.digits));
  }
  check_figure_options(opt.figure);
  if (opt.figure.wanted() && !opt.relative.empty()) {
    throw InvalidArgument(error_msg("a figure ({0}, {1}, {2}, {3}) draws R_m: use it with {4}, not {5}",
                                    option_name("png"), option_name("svg"), option_name("pdf"), option_name("output"),
                                    option_name("position"), option_name("relative")));
  }
  if (opt.scaling.rope.float32 && !opt.relative.empty()) {
    throw InvalidArgument(
        error_msg("--float32 prints R_m as HF's float32 cos and sin give it: use it with --position, not --relative"));
  }
  if (opt.position.has_value() == !opt.relative.empty()) {
    throw InvalidArgument(
        error_msg("give exactly one of {0} M or {1} M N", option_name("position"), option_name("relative")));
  }
  if (rope.spec.axis_blocks &&
      !opt.relative.empty()) {  // (M7) is checked in one of the two layouts (relative_rotation)
    throw InvalidArgument(
        error_msg("--relative: Gemma 4's vision tower pairs channels inside each axis's block "
                  "(docs/multi-axis.md (V6)), and rope matrix checks R_mᵀ R_n = R_(n−m) in the interleaved "
                  "or half layout only: give --position"));
  }
  const Eigen::VectorXd theta = rope.spec.params.inv_freq;

  if (!opt.relative.empty()) {
    const AxisPosition& m = opt.relative[0];
    const AxisPosition& n = opt.relative[1];
    for (int k = 0; k < m.count; ++k)
      check_position_resolvable(m.value[static_cast<std::size_t>(k)], dim, "--relative M");
    for (int k = 0; k < n.count; ++k)
      check_position_resolvable(n.value[static_cast<std::size_t>(k)], dim, "--relative N");
    // (M7), and per axis (docs/multi-axis.md (A5)) for a model with multimodal sections or a vision tower.
    const AxisMap* axes = !rope.plain && rope.spec.axes ? &*rope.spec.axes : nullptr;
    const RelativeRotation rel = relative_rotation(theta, axes, m, n, layout);
    const double diff = (rel.product - rel.rotation).cwiseAbs().maxCoeff();
    // The angles reach θ_i·|p + o|: a vision tower's offset o (Llama 4's 1) counts in the tolerance.
    const double o = axes ? axes->position_offset : 0.0;
    const auto reach = [o](const AxisPosition& p) {
      double r = 0;
      for (int k = 0; k < p.count; ++k) r = std::max(r, std::abs(p.value[static_cast<std::size_t>(k)] + o));
      return r;
    };
    // Each of M and N resolves on its own, but the check's budget 2(|m| + |n|) must too: where it reaches
    // max_resolvable_position the tolerance of (M13) reaches 1 and "equal" would mean nothing.
    const double budget = 2 * (reach(m) + reach(n));
    if (budget >= max_resolvable_position(dim)) {
      throw InvalidArgument(error_msg(
          "--relative M N: 2·(|m| + |n|) = {0} is beyond what float64 resolves at d = {1}: it must be below {2}, where the tolerance κ·ε·(d + 2(|m| + |n|)) of (M13) reaches 1",
          fmt::format("{:g}", budget), dim, fmt::format("{:.3g}", max_resolvable_position(dim))));
    }
    const Check check{diff, 1.0, relative_tolerance(machine_epsilon<double>(), dim, budget)};
    const std::vector<std::string> left = matrix_lines(rel.product, with_digits(opt.digits));
    const std::vector<std::string> right = matrix_lines(rel.rotation, with_digits(opt.digits));
    out << t.tr("R_mᵀ R_n = R_(n−m) (docs/math.md (M7)), m = {0}, n = {1}, d = {2}, base = {3}{4}, {5}\n", m.text(),
                n.text(), dim, format_number(base), scaled, layout_text(rope, t));
    if (axes && axes->vision()) {
      out << t.tr(
          "per axis (docs/multi-axis.md (A5)): R_p turns pair i by θ_i·(p_a(i){0}), a(i) its axis: {1}; "
          "n − m = {2} carries no offset\n",
          axes->position_offset != 0 ? " + " + format_number(axes->position_offset) : "", axis_pattern(*axes),
          rel.delta.text());
    } else if (axes) {
      out << t.tr(
          "per axis (docs/multi-axis.md (A5)): R_p turns pair i by θ_i·p_a(i), a(i) its axis: {0}; n − m = {1}\n",
          axis_pattern(*axes), rel.delta.text());
    }
    if (rope.spec.attention_factor() != 1.0) {
      out << t.tr(
          "the rotating channels only; the attention factor a = {0} in cos and sin multiplies both sides by a²\n",
          format_number(rope.spec.attention_factor()));
    }
    out << '\n';
    const auto subscript = [](const AxisPosition& p) { return p.multi() ? p.text() : format_number(p.value[0]); };
    const std::string left_title = fmt::format("R_{}ᵀ R_{}", subscript(m), subscript(n));
    const std::string right_title = fmt::format("R_{}", subscript(rel.delta));
    out << fmt::format("{:<{}}   |   {}\n", left_title, left[0].size(), right_title);
    for (std::size_t i = 0; i < left.size(); ++i) out << left[i] << "   |   " << right[i] << '\n';
    const std::string bound = o != 0 ? fmt::format("|m + {0}|+|n + {0}|", format_number(o)) : "|m|+|n|";
    // The difference against its tolerance with the digits that tell them apart (digits.hpp); --digits
    // counts the entries' decimals.
    const std::vector<std::string> shown = compared({diff, check.tolerance}, std::nullopt);
    out << t.tr("\nmax |difference| = {0}  (tolerance κ·ε·(d + 2({1})) = {2}, (M13)): {3}\n", shown[0], bound, shown[1],
                check.passed() ? t.tr("equal") : t.tr("NOT EQUAL"));
    return check.passed() ? kOk : kVerifyFailed;
  }

  const AxisPosition& p = *opt.position;
  check_float32_position(opt.scaling, p);
  double largest = p.value[0];  // HF's dynamic update takes max(position_ids) + 1
  for (int k = 0; k < p.count; ++k) {
    check_position_resolvable(p.value[static_cast<std::size_t>(k)], dim,
                              p.multi() ? fmt::format("--position component {} of {}", k + 1, p.text()) : "--position");
    largest = std::max(largest, p.value[static_cast<std::size_t>(k)]);
  }
  // dynamic and longrope: the frequencies HF uses at this position (seq_len = m + 1 unless --seq-len).
  const std::optional<RopeSpec> spec =
      !rope.plain ? std::optional<RopeSpec>(spec_at_position(rope.spec, largest)) : std::nullopt;
  if (p.multi() && !(spec && spec->axes)) (void)axis_angles(theta, nullptr, p);  // throws: one position only
  // --float32: the entries HF's float32 cos and sin give (rope_float32.hpp), at a single position m.
  const bool f32 = spec && opt.scaling.rope.float32;
  // (A1): a model with multimodal sections turns block i by θ_i times the position of its axis.
  const Eigen::MatrixXd r = f32    ? spec_matrix_float32(*spec, p.value[0], size)
                            : spec ? spec_matrix(*spec, p, size)
                                   : rotation_matrix<double>(theta, p.value[0], layout);
  const std::string position = p.text();
  if (!opt.csv.empty()) write_output(opt.csv, to_csv(r, "col_"), out);
  if (opt.figure.wanted()) {
    const FigureOptions& f = opt.figure;
    plot::Figure fig;
    const bool interleaved = layout == Layout::Interleaved;
    fig.title = f.tr("rotation matrix Rₘ: d = {0}, m = {1}, base = {2}, {3}", dim, position, format_number(base),
                     interleaved ? f.tr("interleaved layout") : f.tr("half-split layout"));
    if (spec) {
      // The model's head (S19): its name, head_dim, and a when it is not 1.
      const std::string a = spec->attention_factor() != 1.0 ? f.tr(", a = {0:.6g}", spec->attention_factor()) : "";
      fig.title = spec->axis_blocks ? f.tr("{0}: head_dim {1}, d = {2}, m = {3}, half per axis block{4}", spec->name,
                                           size, dim, position, a)
                  : interleaved
                      ? f.tr("{0}: head_dim {1}, d = {2}, m = {3}, interleaved{4}", spec->name, size, dim, position, a)
                      : f.tr("{0}: head_dim {1}, d = {2}, m = {3}, half-split{4}", spec->name, size, dim, position, a);
    }
    fig.xlabel = f.tr("column j");
    fig.ylabel = f.tr("row i");
    plot::Heatmap h;
    h.z = r;
    h.rows_downward = true;
    h.colorbar_label = f.tr("entry R_ij");
    fig.heatmap = h;
    draw(fig, f);
  }
  if (opt.csv == "-") return kOk;
  out << t.tr("R^d_(Θ,m) for d = {0}, m = {1}, base = {2}{3}, {4}:\n  block i = R(m·θ_i) on channels {5}\n", dim,
              position, format_number(base), scaled, layout_text(rope, t),
              rope.spec.axis_blocks           ? "(b·d/2 + k, b·d/2 + k + d/4), i = b·d/4 + k (V6)"
              : layout == Layout::Interleaved ? "(2i, 2i+1)"
                                              : "(i, i+d/2)");
  if (spec && spec->axes && spec->axes->vision()) {
    out << vision_map_line(*spec->axes, p, t) << '\n';
    if (const auto note = patch_outside_grid(rope, p)) out << note->in(t.lang()) << '\n';
  } else if (spec && spec->axes) {
    out << t.tr(
        "M-RoPE ({0} sections [{1}]): block i is R(θ_i·p_a(i)), p_a(i) the position of its axis: {2} "
        "(docs/multi-axis.md (A1))\n",
        order_name(spec->axes->source.order, t), fmt::join(spec->axes->source.sections, ", "),
        axis_pattern(*spec->axes));
  }
  if (f32) out << float32_text(t) << '\n';
  if (spec) {
    if (spec->config.seq_len != rope.spec.config.seq_len) {
      for (const Message& note : spec->params.notes) out << note.in(t.lang()) << '\n';
    }
    if (size != dim) {
      out << t.tr("head_dim {0}: the rotating channels are {1} … {2}; the identity on the other {3}\n", size,
                  spec->rotary_offset, spec->rotary_offset + dim - 1, size - dim);
    }
    if (spec->deinterleaved_output) {
      out << t.tr(
          "the model's code returns the rotated pairs de-interleaved: pair i on rotating channels i and i + d/2\n");
    }
    if (spec->attention_factor() != 1.0) {
      out << t.tr("the attention factor a = {0} multiplies cos and sin (as HF does): the blocks are a·R(m·θ_i) (S19)\n",
                  format_number(spec->attention_factor()));
    }
  }
  out << '\n';
  print_matrix(out, r, with_digits(opt.digits));
  return kOk;
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
  position->excludes(relative);
  add_figure_options(*sub, opt->figure);
  add_scaling_options(*sub, opt->scaling);
  add_float32_options(*sub, opt->scaling);
  sub->footer(
      "Example:\n  rope matrix --dim 4 --position 1\n  rope matrix --dim 4 --relative 2 5\n  rope matrix --dim 64 --position 3 --png matrix.png\n  rope matrix --model qwen3-vl-8b --position 7,2,3 --digits 1");
  return {sub, [opt](std::ostream& out) { return run_matrix(*opt, out); }};
}

}  // namespace rope::cli
