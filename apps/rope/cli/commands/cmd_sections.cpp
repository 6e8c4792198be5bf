// rope sections: which pair turns with which position axis, chunked (A2) next to interleaved (A3), with
// the wavelengths per axis and the ownership figure, docs/multi-axis.md §1.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <memory>

#include "rope/cli/axes_text.hpp"
#include "rope/cli/commands.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/figure_options.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/output.hpp"
#include "rope/cli/scaling_options.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "rope/core/parse.hpp"
#include "rope/io/csv.hpp"
#include "rope/models/axes.hpp"

namespace rope::cli {

/// --dim, --base and --sections when not typed: Qwen3-VL's text model (data/models/qwen3-vl-8b.json).
inline constexpr int kDefaultSectionsDim = 128;
inline constexpr double kDefaultSectionsBase = 5e6;

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

}  // namespace

int run_sections(const SectionsOptions& opt, std::ostream& out) {
  check_figure_options(opt.figure);
  const Rope rope = resolve(opt.scaling, {opt.dim, kDefaultSectionsDim, opt.base, kDefaultSectionsBase, std::nullopt, Layout::Half});
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
  sub->footer("Example:\n  rope sections\n  rope sections --model qwen2-vl-7b\n  rope sections --model qwen3-vl-8b --png sections.png");
  return {sub, [opt](std::ostream& out) { return run_sections(*opt, out); }};
}

}  // namespace rope::cli
