// rope sections: which pair turns with which position axis, chunked (A2) next to interleaved (A3), with
// the wavelengths per axis and the ownership figure, docs/multi-axis.md §1.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <memory>

#include "rope/cli/axes_text.hpp"
#include "rope/cli/commands.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/figure_options.hpp"
#include "rope/cli/figures/sections_figure.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/output.hpp"
#include "rope/cli/printing.hpp"
#include "rope/cli/scaling_options.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "rope/core/parse.hpp"
#include "rope/io/csv.hpp"
#include "rope/models/axes.hpp"
#include "rope/models/vision_rope.hpp"

namespace rope::cli {

/// --dim, --base and --sections when not typed: Qwen3-VL's text model (data/models/qwen3-vl-8b.json).
inline constexpr int kDefaultSectionsDim = 128;
inline constexpr double kDefaultSectionsBase = 5e6;
/// --dim and --base with --vision when not typed: Pixtral-12B's vision tower (HF PixtralVisionConfig: head_dim 64).
inline constexpr int kDefaultVisionDim = 64;

struct SectionsOptions {
  std::optional<int> dim;
  std::optional<double> base;
  std::string sections;  ///< "24,20,20"; empty: the model's, or 24,20,20
  std::string csv;
  FigureOptions figure;
  ScalingOptions scaling;
};

namespace {

std::vector<int> parse_sections(const std::string& text) {
  std::vector<int> out;
  for (double x : parse_real_list(text, "--sections")) {
    if (!(x >= 0 && x <= 65536) || x != std::floor(x)) {
      throw InvalidArgument(fmt::format("--sections: every section is a whole number in 0 … 65536 (got {})", format_number(x)));
    }
    out.push_back(static_cast<int>(x));
  }
  return out;
}

/// The strip chart: one row per order, every pair a point at its wavelength, coloured by its axis.
void draw_sections(const AxisMap& chunked, const AxisMap& interleaved, const Eigen::VectorXd& theta, const FigureOptions& f,
                   const std::string& sections) {
  plot::Figure fig;
  fig.title = fmt::format(f.text("Which pair turns with which axis: sections [{}], d = {}",
                                 "每一对跟随哪个轴:分段 [{}],d = {}"),
                          sections, 2 * theta.size());
  fig.xlabel = f.text("wavelength λⱼ = 2π/θⱼ (positions): pair j = 0 at the left, the last pair at the right",
                      "波长 λⱼ = 2π/θⱼ(位置数):左端为第 0 对,右端为最后一对");
  fig.ylabel = "";
  fig.log_x = true;
  fig.yrange = {{-0.8, 1.9}};
  fig.ytics = false;  // the rows are labelled
  const AxisMap* rows[2] = {&interleaved, &chunked};
  for (int row = 0; row < 2; ++row) {
    for (int a = 0; a < 3; ++a) {
      plot::Series s;
      if (row == 1) s.label = fmt::format("{} ({})", axis_letter(a), axis_name(a).in(f.zh()));
      s.color = a;
      s.points = true;
      std::vector<double> x;
      for (std::size_t j = 0; j < rows[row]->pair_axis.size(); ++j) {
        if (rows[row]->pair_axis[j] == a && theta[static_cast<Eigen::Index>(j)] > 0) {
          x.push_back(kTwoPi / theta[static_cast<Eigen::Index>(j)]);
        }
      }
      if (x.empty()) continue;
      s.x = Eigen::Map<const Eigen::VectorXd>(x.data(), static_cast<Eigen::Index>(x.size()));
      s.y = Eigen::VectorXd::Constant(s.x.size(), row);
      fig.series.push_back(s);
    }
  }
  const double left = kTwoPi / theta[0];
  fig.labels.push_back({left, 1.35, f.text("chunked (A2): Qwen2-VL, Qwen2.5-VL", "分块 (A2):Qwen2-VL、Qwen2.5-VL"),
                        plot::Label::Anchor::Left, std::nullopt, std::nullopt});
  fig.labels.push_back({left, 0.35, f.text("interleaved (A3): Qwen3-VL", "交错 (A3):Qwen3-VL"), plot::Label::Anchor::Left,
                        std::nullopt, std::nullopt});
  fig.key = plot::Figure::Key::TopRight;
  draw(fig, f);
}

/// A vision tower (--vision, --tower vision): its map next to the other four 2-D maps at the same d and base.
int run_vision_sections(const SectionsOptions& opt, const Rope& rope, std::ostream& out) {
  const RopeSpec& spec = rope.scaled->spec;
  const VisionRope chosen = parse_vision_rope(spec.axes->vision_kind);
  std::vector<VisionPairs> rows;
  for (VisionRope k : {VisionRope::Qwen2VL, VisionRope::LlamaCpp, VisionRope::Pixtral, VisionRope::Llama4, VisionRope::Axial}) {
    rows.push_back(vision_pairs(k, spec.rotary_dim, rope.base));
  }
  const auto letter = [](const VisionPairs& p, Eigen::Index j) { return p.axis[static_cast<std::size_t>(j)] == 0 ? "h" : "w"; };
  if (!opt.csv.empty()) {
    std::string csv = "pair";
    for (const VisionPairs& p : rows) {
      std::string name = to_string(p.kind);
      for (char& c : name) c = c == '-' || c == '.' ? '_' : c;
      csv += fmt::format(",theta_{0},axis_{0}", name);
    }
    csv += '\n';
    for (Eigen::Index j = 0; j < rows.front().theta.size(); ++j) {
      csv += std::to_string(j);
      for (const VisionPairs& p : rows) csv += fmt::format(",{},{}", format_number(p.theta[j]), letter(p, j));
      csv += '\n';
    }
    write_output(opt.csv, csv, out);
  }
  if (opt.figure.wanted()) draw(vision_sections_figure(opt.figure, rows, chosen), opt.figure);
  if (opt.csv == "-") return kOk;
  const Text t = opt.figure.tr();
  out << t.format("2-D vision RoPE of {}: d = {}, base = {}\n\n", "{} 的二维视觉 RoPE:d = {},base = {}\n\n",
                  model_name(rope.scaled->model, t), spec.rotary_dim, format_number(rope.base));
  print_axis_summary(out, *spec.axes, spec.params.inv_freq, t);
  out << t.format("\nthe same d and base in the five implementations (docs/multi-axis.md §6):\n",
                  "\n同样的 d 与 base 在五种实现中(docs/multi-axis.md §6):\n");
  const std::size_t layout_width = t.zh() ? 24 : 13;
  out << "  " << pad(t("kind", "实现"), 11) << pad(t("eq.", "公式"), 6) << pad(t("layout", "排列"), layout_width)
      << pad(t("from", "起点"), 7) << pad(t("λ of h (patches)", "h 的 λ(块数)"), 22) << t("λ of w (patches)", "w 的 λ(块数)") << '\n';
  for (const VisionPairs& p : rows) {
    const AxisMap map = vision_axis_map(p);
    const std::vector<AxisRange> r = axis_ranges(p.theta, map);
    const auto range = [](const AxisRange& a) { return fmt::format("{:.6g} … {:.6g}", a.shortest, a.longest); };
    out << "  " << pad(to_string(p.kind), 11) << pad(map.vision_equation, 6) << pad(layout_name(p.layout, t), layout_width)
        << pad(format_number(p.offset), 7) << pad(range(r[0]), 22) << range(r[1]) << (p.kind == chosen ? "  ←" : "") << '\n';
  }
  out << t("\neach axis gets its own ladder base^(−4k/d), the same wavelengths for rows and columns, except Pixtral (V3):\n"
           "the row takes the even and the column the odd frequencies of the head's ladder base^(−2i/d);\n"
           "Llama 4 (V4) gives the column the first pairs and counts patches from 1\n",
           "\n每个轴有自己的频率阶梯 base^(−4k/d),行与列的波长相同;Pixtral (V3) 例外:\n"
           "行取整个头的阶梯 base^(−2i/d) 的偶数频率,列取奇数频率;\nLlama 4 (V4) 把前一半的对给列,块从 1 开始计数\n");
  return kOk;
}

}  // namespace

int run_sections(const SectionsOptions& opt, std::ostream& out) {
  check_figure_options(opt.figure);
  const bool vision = !opt.scaling.vision.empty();
  const Rope rope = resolve(opt.scaling, {opt.dim, vision ? kDefaultVisionDim : kDefaultSectionsDim, opt.base,
                                          vision ? kDefaultBase : kDefaultSectionsBase, std::nullopt, Layout::Half});
  if (rope.scaled && rope.scaled->spec.axes && rope.scaled->spec.axes->vision()) {
    if (!opt.sections.empty()) {
      throw InvalidArgument("--sections: a vision tower's map is fixed by its implementation (--vision, --tower vision); "
                            "it reads no sections");
    }
    return run_vision_sections(opt, rope, out);
  }
  const Eigen::VectorXd theta = rope.theta();
  const int pairs = static_cast<int>(theta.size());
  std::vector<int> sections{24, 20, 20};
  std::string from = opt.sections.empty() ? opt.figure.tr()("Qwen3-VL's default", "Qwen3-VL 的默认值") : "--sections";
  if (rope.scaled && rope.scaled->spec.axes) {
    sections = rope.scaled->spec.axes->source.sections;
    from = rope.scaled->spec.name;
  }
  if (!opt.sections.empty()) {
    sections = parse_sections(opt.sections);
    from = "--sections";
  }
  if (sections.size() != 3) {
    throw InvalidArgument(fmt::format("--sections needs 3 numbers t,h,w (got {})", sections.size()));
  }
  const AxisMap chunked = make_axis_map({sections, SectionOrder::Chunked}, pairs);
  const AxisMap interleaved = make_axis_map({sections, SectionOrder::Interleaved}, pairs);
  const std::string list = fmt::format("{}", fmt::join(sections, ", "));
  if (!opt.csv.empty()) {
    std::string csv = "pair,theta,wavelength,chunked,interleaved\n";
    for (int j = 0; j < pairs; ++j) {
      csv += fmt::format("{},{},{},{},{}\n", j, format_number(theta[j]), format_number(kTwoPi / theta[j]),
                         axis_letter(chunked.pair_axis[static_cast<std::size_t>(j)]),
                         axis_letter(interleaved.pair_axis[static_cast<std::size_t>(j)]));
    }
    write_output(opt.csv, csv, out);
  }
  if (opt.figure.wanted()) draw_sections(chunked, interleaved, theta, opt.figure, list);
  if (opt.csv == "-") return kOk;
  const Text t = opt.figure.tr();
  out << t.format("M-RoPE sections [{}] ({}) over {} pairs, d = {}, base = {}:\nthe same sections, chunked and interleaved\n\n",
                  "M-RoPE 分段 [{}]({}),共 {} 对,d = {},base = {}:\n同一分段的分块与交错两种排法\n\n", list, from, pairs, 2 * pairs,
                  format_number(rope.base));
  print_axis_summary(out, chunked, theta, t);
  out << '\n';
  print_axis_summary(out, interleaved, theta, t);
  out << t.format("\nchunked:     {}\ninterleaved: {}\n", "\n分块:{}\n交错:{}\n", axis_pattern(chunked), axis_pattern(interleaved));
  out << t("\nthe frequencies fall with the pair index: chunks give each axis one band of wavelengths,\n"
           "interleaving gives every axis pairs from the whole range (docs/multi-axis.md)\n",
           "\n频率随维度对编号递减:分块让每个轴只得到一段波长,交错让每个轴都得到全范围的维度对(docs/multi-axis.md)\n");
  return kOk;
}

Command add_sections_command(CLI::App& app) {
  auto opt = std::make_shared<SectionsOptions>();
  CLI::App* sub = app.add_subcommand("sections", "Which pair turns with which M-RoPE axis: chunked next to interleaved");
  add_dim_option(*sub, opt->dim, kDefaultSectionsDim);
  add_base_option(*sub, opt->base, kDefaultSectionsBase);
  sub->add_option("--sections", opt->sections, "the pairs per axis t,h,w, e.g. 16,24,24 (default: the model's, else 24,20,20)")
      ->type_name("LIST");
  sub->add_option("--csv", opt->csv, "write pair,theta,wavelength,chunked,interleaved to FILE ('-' for stdout)")->type_name("FILE");
  add_figure_options(*sub, opt->figure);
  add_scaling_options(*sub, opt->scaling);
  sub->footer("Example:\n  rope sections\n  rope sections --model qwen2-vl-7b\n  rope sections --model qwen3-vl-8b --png sections.png\n"
              "  rope sections --vision pixtral\n  rope sections --model llama-4-scout-17b-16e --tower vision");
  return {sub, [opt](std::ostream& out) { return run_sections(*opt, out); }};
}

}  // namespace rope::cli
