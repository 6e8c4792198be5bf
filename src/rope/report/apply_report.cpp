// The printers of rope apply (apply_report.hpp).
#include "rope/report/printing.hpp"
#include "rope/report/apply_report.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "rope/core/tolerance.hpp"
#include "rope/io/csv.hpp"
#include "rope/models/axes.hpp"
#include "rope/models/rope_spec.hpp"
#include "rope/report/digits.hpp"
#include "rope/report/json.hpp"
#include "rope/report/model_text.hpp"
#include "rope/report/rope_text.hpp"
#include "rope/report/text.hpp"

namespace rope {

namespace {

/// `v` as [v0, v1, …], each with `digits` significant digits (0: every digit; report/digits.hpp).
std::string join(const Eigen::VectorXd& v, int digits = 0) {
  std::string s;
  for (Eigen::Index i = 0; i < v.size(); ++i) s += (i ? ", " : "") + with_digits(v[i], digits);
  return "[" + s + "]";
}

}  // namespace

Value apply_value(const ApplyRun& run) {
  const ModelApply& r = run.apply;
  const RopeSpec& spec = r.spec;
  Value v = Value::object();
  v["position"] = run.position.text();
  v["dim"] = run.rope.spec.rotary_dim;
  v["head_dim"] = static_cast<int>(run.x.size());
  v["rotary_offset"] = r.offset;
  v["base"] = run.rope.spec.config.base;
  v["layout"] = std::string(to_string(spec.layout));
  v["model"] = run.rope.plain ? Value() : Value(run.rope.spec.name);
  v["scaling"] = run.rope.plain ? Value() : Value(std::string(to_string(run.rope.spec.config.type)));
  v["attention_factor"] = spec.attention_factor();
  v["query_scale"] = run.s_m;
  v["theta"] = as_list(r.frequency);
  v["angle"] = as_list(r.angle);
  v["input"] = as_list(run.x);
  v["matrix"] = as_list(run.by_matrix);
  v["elementwise"] = as_list(run.by_elementwise);
  v["complex"] = as_list(run.by_complex);
  if (r.float32) v["float32"] = as_list(run.by_float32);
  if (run.xpos) v["xpos_scale"] = as_list(r.xpos_scale);
  v["difference"] = r.check.difference;
  v["tolerance"] = r.check.tolerance * r.check.scale;
  v["agree"] = run.agree();
  if (run.fope) {  // FoPE (analysis/teaching/fope_apply.hpp): the head's scaled rotations, per pair
    const FopeBlocks& b = *run.fope;
    Value f = Value::object();
    f["kv_head"] = run.fope_head->kv_head;
    f["kv_heads"] = run.fope_head->kv_heads;
    f["kept"] = b.kept;
    f["padded"] = static_cast<int>(b.cos.size()) - b.kept;
    f["cos"] = as_list(b.cos);
    f["sin"] = as_list(b.sin);
    f["scale"] = as_list(b.scale);
    f["angle"] = as_list(b.angle);
    f["coefficients"] = run.fope_head->coefficients->file;
    v["fope"] = std::move(f);
  }
  return v;
}

std::string apply_csv(const ApplyRun& run) {
  const int n = static_cast<int>(run.x.size());
  Eigen::VectorXd channel(n);
  for (int i = 0; i < n; ++i) channel[i] = i;
  Table table{{"channel", "input", "matrix", "elementwise", "complex"},
              {channel, run.x, run.by_matrix, run.by_elementwise, run.by_complex}};
  if (run.apply.float32) {
    table.header.push_back("float32");
    table.columns.push_back(run.by_float32);
  }
  return to_csv(table);
}

namespace {

/// FoPE's report (docs/multi-axis.md §7 (F2)–(F4)): the head, every pair's cos′, sin′, |ζ| and arg ζ, the three forms.
void print_apply_fope(std::ostream& out, const ApplyRun& run, const Text& t, const std::optional<int>& digits_asked) {
  const ModelApply& r = run.apply;
  const FopeBlocks& b = *run.fope;
  const FopeHead& head = *run.fope_head;
  const int digits = digits_asked.value_or(kTableDigits);
  const auto num = [digits](double v) { return with_digits(v, digits); };
  const int w = std::min(22, std::max(12, column_width(digits)));
  const int d = run.rope.spec.rotary_dim, pairs = d / 2;
  out << t.tr("FoPE at position m = {0}, d = {1}, base = {2}, {3}: key-value head {4} of {5}, coefficients from {6}\n",
              run.position.text(), d, format_number(run.rope.spec.config.base), model_name(run.rope.spec, t.lang()),
              head.kv_head, head.kv_heads, head.coefficients->file);
  out << t.tr(
      "each pair is a scaled rotation [[cos′, −sin′], [sin′, cos′]] = |ζ|·R(arg ζ), cos′ and sin′ the kept "
      "frequencies' cos and sin mixed by the head's coefficients (docs/multi-axis.md (F2)–(F4)); pairs {0} … {1} are "
      "padded (cos′ 1, sin′ 0) and pass through\n",
      b.kept, pairs - 1);
  out << '\n';
  out << fmt::format("{:>5}  {:>10}  {:>{}}  {:>{}}  {:>{}}  {:>{}}  {:>{}}\n", t.tr("pair"), t.tr("channels"), "θ_i",
                     w, "cos′", w, "sin′", w, t.tr("scale |ζ|"), w, t.tr("angle arg ζ (rad)"), w);
  for (int j = 0; j < pairs; ++j) {
    const auto [ca, cb] = spec_pair_channels(r.spec, j);
    out << fmt::format("{:>5}  {:>10}  {:>{}}  {:>{}}  {:>{}}  {:>{}}  {:>{}}\n", j,
                       fmt::format("({}, {})", r.offset + ca, r.offset + cb),
                       j < b.kept ? num(r.frequency[j]) : t.tr("padded"), w, num(b.cos[j]), w, num(b.sin[j]), w,
                       num(b.scale[j]), w, num(b.angle[j]), w);
  }
  out << fmt::format("\n{:<14}x = {}\n", t.tr("input"), join(run.x));
  out << fmt::format("{:<14}R_m x = {}\n", t.tr("matrix"), join(run.by_matrix, digits));
  out << fmt::format("{:<14}x ⊙ cos′ + rot(x) ⊙ sin′ = {}\n", t.tr("element-wise"), join(run.by_elementwise, digits));
  out << fmt::format("{:<14}ζ_j·(x_a + i·x_b) = {}\n", t.tr("complex"), join(run.by_complex, digits));
  const std::vector<std::string> shown =
      compared({r.check.difference, r.check.tolerance * r.check.scale}, digits_asked);
  out << t.tr(
      "\nmax |difference| between the three forms = {0}  (tolerance κ·ε·(d + |m|)·max(1, |ζ|)·‖x‖ = {1}, (M13)): "
      "{2}\n",
      shown[0], shown[1], r.check.passed() ? t.tr("they agree") : t.tr("THEY DISAGREE"));
}

}  // namespace

void print_apply(std::ostream& out, const ApplyRun& run, const Text& t, const std::optional<int>& digits_asked) {
  if (run.fope) {
    print_apply_fope(out, run, t, digits_asked);
    return;
  }
  const ModelRope& rope = run.rope;
  const ModelApply& r = run.apply;
  const Eigen::VectorXd& x = run.x;
  const int n = static_cast<int>(x.size());
  std::string scaled;  // says which frequencies, when they are not plain RoPE's
  if (!rope.plain) {
    scaled = t.tr(", {0} scaling f = {1} from {2}{3}", to_string(rope.spec.config.type),
                  format_number(rope.spec.params.factor), model_name(rope.spec, t.lang()), layer_text(rope.spec, t));
  }
  const int d = rope.spec.rotary_dim;
  const AxisPosition& p = run.position;
  const RopeSpec& spec = r.spec;
  const double a = spec.attention_factor();
  const double base = rope.spec.config.base;
  const AxisMap* axes = spec.axes ? &*spec.axes : nullptr;
  const int offset = r.offset;
  const bool agree = r.check.passed();
  const std::optional<Float32Angles>& g32 = r.float32;
  const std::optional<QueryScaling>& qs = rope.model.query_scaling;
  const double s_m = run.s_m;
  const Eigen::VectorXd& by_matrix = run.by_matrix;
  const Eigen::VectorXd& by_elementwise = run.by_elementwise;
  const Eigen::VectorXd& by_complex = run.by_complex;
  const Eigen::VectorXd& by_float32 = run.by_float32;

  // The table and the vectors with 6 digits, or --digits N (report/digits.hpp kTableDigits); CSV has every digit.
  const int digits = digits_asked.value_or(kTableDigits);
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
        order_name(axes->source.order, t.lang()), fmt::join(axes->source.sections, ", "));
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
  if (run.xpos) {
    const XposSetting& xs = *run.xpos;
    out << t.tr(
        "xPos, s = {0}: pair i times ζ_i^({1}m/s), ζ_i = (2i/d + 0.4)/1.4 (docs/multi-axis.md (X1), (X2)); "
        "ζ^({2}m/s) = {3}\n",
        format_number(xs.scale_base), xs.role == XposRole::Query ? "" : "−", xs.role == XposRole::Query ? "" : "−",
        join(r.xpos_scale, digits));
  }
  if (a != 1.0) {
    out << t.tr(
        "attention factor a = {0} multiplies cos and sin (as HF does): the rotated channels are a·R_m x (S19)\n",
        readable(a, digits));
  }
  if (run.query && qs) {
    out << t.tr(
        "query scaling (S21): the query after RoPE times s(m) = 1 + β·ln(1 + ⌊m / L0⌋) = {0} (β = {1}, L0 = {2}; "
        "{3}): every result below is s(m)·R_m x\n",
        readable(s_m, digits), format_number(qs->beta), format_number(qs->original), qs->from.in(t.lang()));
  } else if (run.query) {
    out << t.tr("{0}: {1} does not scale its queries: the result is the rotation alone\n", option_name("query"),
                model_name(rope.spec, t.lang()));
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
    const std::string f32 = g32 ? fmt::format("  {:>{}}  {:>{}}", num(g32->inv_freq[i]), w, num(g32->angle[i]), w) : "";
    out << fmt::format("{:>5}  {:>10}  {}{:>{}}  {:>{}}{}\n", i, fmt::format("({}, {})", offset + ca, offset + cb),
                       axis, num(r.frequency[i]), w, num(r.angle[i]), w, f32);
  }
  out << fmt::format("\n{:<14}x = {}\n", t.tr("input"), join(x));
  out << fmt::format("{:<14}R_m x = {}\n", t.tr("matrix"), join(by_matrix, digits));
  out << fmt::format("{:<14}x ⊙ cos(mΘ) + rot(x) ⊙ sin(mΘ) = {}\n", t.tr("element-wise"), join(by_elementwise, digits));
  out << fmt::format("{:<14}(x_a + i·x_b)·e^(i·m·θ_i) = {}\n", t.tr("complex"), join(by_complex, digits));
  if (g32) {
    out << fmt::format("{:<14}x ⊙ cos + rotate(x) ⊙ sin = {}\n", "float32 (HF)", join(by_float32, digits));
    out << t.tr(
        "max |float32 − float64| = {0:.3g} (float32's ε = {1:.3g}: expected of the order of ε·(1 + |m·θ_0|)·‖x‖)\n",
        (by_float32 - by_elementwise).cwiseAbs().maxCoeff(), static_cast<double>(machine_epsilon<float>()));
  }
  // The difference against its tolerance, with the digits that tell them apart (digits.hpp), or --digits N.
  const std::vector<std::string> shown =
      compared({r.check.difference, r.check.tolerance * r.check.scale}, digits_asked);
  out << t.tr("\nmax |difference| between the three forms = {0}  (tolerance κ·ε·(d + |m|)·‖x‖ = {1}, (M13)): {2}\n",
              shown[0], shown[1], agree ? t.tr("they agree") : t.tr("THEY DISAGREE"));
}

}  // namespace rope
