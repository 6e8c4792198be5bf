// The printers of rope matrix (matrix_report.hpp): the text and the figure.
#include "rope/report/matrix_report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "rope/io/csv.hpp"
#include "rope/models/rope_spec.hpp"
#include "rope/report/digits.hpp"
#include "rope/report/json.hpp"
#include "rope/report/model_text.hpp"
#include "rope/report/printing.hpp"
#include "rope/report/rope_text.hpp"
#include "rope/report/text.hpp"

namespace rope {

namespace {

/// Entries with `digits` decimals, right-aligned; exact zeros as a plain 0 so the blocks stand out.
MatrixFormat entry_format(int digits) {
  MatrixFormat f;
  f.digits = digits;
  return f;
}

/// The rows of m, each a list of numbers.
Value rows(const Eigen::MatrixXd& m) {
  Value v = Value::array();
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    const Eigen::VectorXd row = m.row(i).transpose();
    v.push_back(std::vector<double>(row.data(), row.data() + row.size()));
  }
  return v;
}

/// ", yarn scaling f = 4 from the model{, layer type …}": which frequencies, when they are not plain RoPE's.
std::string scaled_text(const ModelRope& rope, const Text& t) {
  if (rope.plain) return "";
  return t.tr(", {0} scaling f = {1} from {2}{3}", to_string(rope.spec.config.type),
              format_number(rope.spec.params.factor), model_name(rope.spec, t.lang()), layer_text(rope.spec, t));
}

void print_relative(std::ostream& out, const MatrixRun& run, const Text& t) {
  const ModelRope& rope = run.rope;
  const std::string scaled = scaled_text(rope, t);
  const int dim = run.dim;
  const double base = rope.spec.config.base;
  const AxisPosition& m = run.relative[0];
  const AxisPosition& n = run.relative[1];
  const RelativeRotation& rel = *run.rotation;
  const AxisMap* axes = !rope.plain && rope.spec.axes ? &*rope.spec.axes : nullptr;
  const double o = run.offset;
  const double diff = run.check.difference;
  const Check& check = run.check;
  const std::vector<std::string> left = matrix_lines(rel.product, entry_format(run.digits));
  const std::vector<std::string> right = matrix_lines(rel.rotation, entry_format(run.digits));
  if (run.fope_head) {
    out << t.tr(
        "R_mᵀ R_n beside R_(n−m) for FoPE, m = {0}, n = {1}, d = {2}, base = {3}, {4}: key-value head {5} of "
        "{6}, coefficients from {7}\n",
        m.text(), n.text(), dim, format_number(base), model_name(rope.spec, t.lang()), run.fope_head->kv_head,
        run.fope_head->kv_heads, run.fope_head->coefficients->file);
  } else {
    out << t.tr("R_mᵀ R_n = R_(n−m) (docs/math.md (M7)), m = {0}, n = {1}, d = {2}, base = {3}{4}, {5}\n", m.text(),
                n.text(), dim, format_number(base), scaled, layout_text(rope, t));
  }
  if (axes && axes->vision()) {
    out << t.tr(
        "per axis (docs/multi-axis.md (A5)): R_p turns pair i by θ_i·(p_a(i){0}), a(i) its axis: {1}; "
        "n − m = {2} carries no offset\n",
        axes->position_offset != 0 ? " + " + format_number(axes->position_offset) : "", axis_pattern(*axes),
        rel.delta.text());
  } else if (axes) {
    out << t.tr("per axis (docs/multi-axis.md (A5)): R_p turns pair i by θ_i·p_a(i), a(i) its axis: {0}; n − m = {1}\n",
                axis_pattern(*axes), rel.delta.text());
  }
  if (rope.spec.attention_factor() != 1.0) {
    out << t.tr("the rotating channels only; the attention factor a = {0} in cos and sin multiplies both sides by a²\n",
                readable(rope.spec.attention_factor()));
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
  const std::vector<std::string> shown = compared({diff, check.tolerance * check.scale}, std::nullopt);
  if (run.fope_head) {  // FoPE does not claim (M7): its numbers, not a pass
    out << (check.passed()
                ? t.tr("\nmax |R_mᵀ R_n − R_(n−m)| = {0} (row {1}, column {2}): within a rotation's tolerance {3} "
                       "(M13): these coefficients make every block a rotation\n",
                       shown[0], run.fope_row, run.fope_column, shown[1])
                : t.tr("\nmax |R_mᵀ R_n − R_(n−m)| = {0} (row {1}, column {2}), against a rotation's tolerance {3} "
                       "(M13): the relative property R_mᵀ R_n = R_(n−m) does not hold for FoPE, whose blocks are "
                       "scaled and mix the frequencies (docs/multi-axis.md §7)\n",
                       shown[0], run.fope_row, run.fope_column, shown[1]));
    return;
  }
  out << t.tr("\nmax |difference| = {0}  (tolerance κ·ε·(d + 2({1})) = {2}, (M13)): {3}\n", shown[0], bound, shown[1],
              check.passed() ? t.tr("equal") : t.tr("NOT EQUAL"));
}

}  // namespace

Value matrix_value(const MatrixRun& run) {
  const ModelRope& rope = run.rope;
  Value v = Value::object();
  v["dim"] = run.dim;
  v["head_dim"] = run.size;
  v["base"] = rope.spec.config.base;
  v["layout"] = std::string(to_string(rope.spec.layout));
  v["model"] = rope.plain ? Value() : Value(rope.spec.name);
  v["attention_factor"] = (run.spec ? *run.spec : rope.spec).attention_factor();
  if (run.rotation) {
    v["m"] = run.relative[0].text();
    v["n"] = run.relative[1].text();
    v["delta"] = run.rotation->delta.text();
    v["product"] = rows(run.rotation->product);
    v["rotation"] = rows(run.rotation->rotation);
    v["difference"] = run.check.difference;
    v["tolerance"] = run.check.tolerance * run.check.scale;
    v["equal"] = run.check.passed();
    if (run.fope_head)
      v["largest_entry"] = std::vector<double>{static_cast<double>(run.fope_row), static_cast<double>(run.fope_column)};
  } else {
    v["position"] = run.position->text();
    v["float32"] = run.float32;
    v["matrix"] = rows(run.matrix);
  }
  if (run.fope_head) {  // FoPE (analysis/teaching/fope_apply.hpp): the head, and the blocks at the position
    Value f = Value::object();
    f["kv_head"] = run.fope_head->kv_head;
    f["kv_heads"] = run.fope_head->kv_heads;
    f["coefficients"] = run.fope_head->coefficients->file;
    f["kept"] = run.fope_head->coefficients->kept;
    if (run.fope) {
      f["cos"] = as_list(run.fope->cos);
      f["sin"] = as_list(run.fope->sin);
      f["scale"] = as_list(run.fope->scale);
      f["angle"] = as_list(run.fope->angle);
    }
    v["fope"] = std::move(f);
  }
  return v;
}

std::string matrix_csv(const MatrixRun& run) { return run.rotation ? "" : to_csv(run.matrix, "col_"); }

void print_matrix(std::ostream& out, const MatrixRun& run, const Text& t) {
  if (run.rotation) {
    print_relative(out, run, t);
    return;
  }
  const ModelRope& rope = run.rope;
  const std::string scaled = scaled_text(rope, t);
  const Layout layout = rope.spec.layout;
  const int dim = run.dim;
  const int size = run.size;
  const double base = rope.spec.config.base;
  const AxisPosition& p = *run.position;
  const std::optional<RopeSpec>& spec = run.spec;
  const std::string position = p.text();
  if (run.fope) {
    out << t.tr(
        "FoPE's R_m for d = {0}, m = {1}, base = {2}, {3}: key-value head {4} of {5}, coefficients from {6}:\n"
        "  block j = |ζ_j|·R(arg ζ_j) = [[cos′_j, −sin′_j], [sin′_j, cos′_j]] on channels (j, j+d/2) "
        "(docs/multi-axis.md (F2)–(F4)); blocks {7} … {8} are padded: the identity\n\n",
        dim, position, format_number(base), model_name(rope.spec, t.lang()), run.fope_head->kv_head,
        run.fope_head->kv_heads, run.fope_head->coefficients->file, run.fope->kept, dim / 2 - 1);
    print_matrix(out, run.matrix, entry_format(run.digits));
    return;
  }
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
        order_name(spec->axes->source.order, t.lang()), fmt::join(spec->axes->source.sections, ", "),
        axis_pattern(*spec->axes));
  }
  if (run.float32) out << float32_text(t) << '\n';
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
                  readable(spec->attention_factor()));
    }
  }
  out << '\n';
  print_matrix(out, run.matrix, entry_format(run.digits));
}

plot::Figure matrix_figure(const MatrixRun& run, const Text& f) {
  const Layout layout = run.rope.spec.layout;
  const std::optional<RopeSpec>& spec = run.spec;
  const std::string position = run.position ? run.position->text() : "";
  plot::Figure fig;
  const bool interleaved = layout == Layout::Interleaved;
  fig.title = f.tr("rotation matrix Rₘ: d = {0}, m = {1}, base = {2}, {3}", run.dim, position,
                   format_number(run.rope.spec.config.base),
                   interleaved ? f.tr("interleaved layout") : f.tr("half-split layout"));
  if (spec) {
    // The model's head (S19): its name, head_dim, and a when it is not 1.
    const std::string a = spec->attention_factor() != 1.0 ? f.tr(", a = {0:.6g}", spec->attention_factor()) : "";
    fig.title =
        spec->axis_blocks ? f.tr("{0}: head_dim {1}, d = {2}, m = {3}, half per axis block{4}", spec->name, run.size,
                                 run.dim, position, a)
        : interleaved
            ? f.tr("{0}: head_dim {1}, d = {2}, m = {3}, interleaved{4}", spec->name, run.size, run.dim, position, a)
            : f.tr("{0}: head_dim {1}, d = {2}, m = {3}, half-split{4}", spec->name, run.size, run.dim, position, a);
  }
  if (run.fope) {  // FoPE (fope_apply.hpp): the blocks are one key-value head's scaled rotations
    fig.title = f.tr("{0}: FoPE, key-value head {1}, d = {2}, m = {3}, |ζ|·R(arg ζ) blocks", run.rope.spec.name,
                     run.fope_head->kv_head, run.dim, position);
  }
  fig.xlabel = f.tr("column j");
  fig.ylabel = f.tr("row i");
  plot::Heatmap h;
  h.z = run.matrix;
  h.rows_downward = true;
  h.colorbar_label = f.tr("entry Rᵢⱼ");
  fig.heatmap = h;
  return fig;
}

}  // namespace rope
