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
#include "rope/report/printing.hpp"
#include "rope/cli/scaling_options.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "rope/core/parse.hpp"
#include "rope/io/csv.hpp"
#include "rope/models/axes.hpp"
#include "rope/models/rope_spec.hpp"
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
      throw InvalidArgument(
          error_msg("--sections: every section is a whole number in 0 … 65536 (got {0})", format_number(x)));
    }
    out.push_back(static_cast<int>(x));
  }
  return out;
}

/// "as chunked at every pair", or "as interleaved, except pairs 61, 62: e" (the pairs where llama.cpp's map
/// leaves HF's, with the axes llama.cpp gives them).
std::string ggml_difference(const AxisMap& ggml, const AxisMap& hf, const std::string& name, const std::string& hf_name,
                            const Text& t) {
  std::vector<int> pairs;
  std::string axes;
  for (std::size_t j = 0; j < ggml.pair_axis.size(); ++j) {
    if (ggml.pair_axis[j] == hf.pair_axis[j]) continue;
    pairs.push_back(static_cast<int>(j));
    const std::string letter(axis_letter(ggml.pair_axis[j]));
    if (axes.find(letter) == std::string::npos) axes += (axes.empty() ? "" : ", ") + letter;
  }
  if (pairs.empty()) return name + t.tr("every pair as {0}", hf_name);
  return name + t.tr("as {0}, except pairs {1}, which turn with {2} (A4)", hf_name, pair_list(pairs), axes);
}

/// A vision tower (--vision, --tower vision): its map next to the other four 2-D maps at the same d and base.
int run_vision_sections(const SectionsOptions& opt, const ModelRope& rope, std::ostream& out) {
  const RopeSpec& spec = rope.spec;
  const VisionRope chosen = parse_vision_rope(spec.axes->vision_kind);
  std::vector<VisionPairs> rows;
  for (VisionRope k : {VisionRope::Qwen2VL, VisionRope::LlamaCpp, VisionRope::Pixtral, VisionRope::Llama4,
                       VisionRope::Axial, VisionRope::Gemma4}) {
    rows.push_back(vision_pairs(k, spec.rotary_dim, rope.spec.config.base));
  }
  const auto letter = [](const VisionPairs& p, Eigen::Index j) {
    return p.axis[static_cast<std::size_t>(j)] == 0 ? "h" : "w";
  };
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
  out << t.tr("2-D vision RoPE of {0}: d = {1}, base = {2}\n\n", model_name(rope.spec, t), spec.rotary_dim,
              format_number(rope.spec.config.base));
  print_axis_summary(out, *spec.axes, spec.params.inv_freq, t);
  out << t.tr("\nthe same d and base in the six implementations (docs/multi-axis.md §6):\n");
  const std::size_t layout_width = (t.lang() == Lang::Zh) ? 24 : 16;
  out << "  " << pad(t.tr("kind"), 11) << pad(t.tr("eq."), 6) << pad(t.tr("layout"), layout_width)
      << pad(t.tr("from"), 7) << pad(t.tr("λ of h (patches)"), 22) << t.tr("λ of w (patches)") << '\n';
  for (const VisionPairs& p : rows) {
    const AxisMap map = vision_axis_map(p);
    const std::vector<AxisRange> r = axis_ranges(p.theta, map);
    const auto range = [](const AxisRange& a) { return fmt::format("{:.6g} … {:.6g}", a.shortest, a.longest); };
    const std::string layout = p.per_block ? t.tr("half, per axis") : layout_name(p.layout, t);
    out << "  " << pad(to_string(p.kind), 11) << pad(map.vision_equation, 6) << pad(layout, layout_width)
        << pad(format_number(p.offset), 7) << pad(range(r[0]), 20) << "  " << range(r[1])
        << (p.kind == chosen ? "  ←" : "") << '\n';
  }
  out << t.tr(
      "\neach axis gets its own ladder base^(−4k/d), the same wavelengths for rows and columns, except Pixtral (V3):\n"
      "the row takes the even and the column the odd frequencies of the head's ladder base^(−2i/d);\n"
      "Llama 4 (V4) gives the column the first pairs and counts patches from 1;\n"
      "Gemma 4 (V6) gives the column the first block of channels and the row the second, rotate_half inside each\n");
  return kOk;
}

}  // namespace

int run_sections(const SectionsOptions& opt, std::ostream& out) {
  check_figure_options(opt.figure);
  const bool vision = !opt.scaling.rope.vision.empty();
  const ModelRope rope =
      resolve(opt.scaling, {opt.dim, vision ? kDefaultVisionDim : kDefaultSectionsDim, opt.base,
                            vision ? kDefaultBase : kDefaultSectionsBase, std::nullopt, Layout::Half});
  if (!rope.plain && rope.spec.axes && rope.spec.axes->vision()) {
    if (!opt.sections.empty()) {
      throw InvalidArgument(
          error_msg("--sections: a vision tower's map is fixed by its implementation (--vision, --tower vision); "
                    "it reads no sections"));
    }
    return run_vision_sections(opt, rope, out);
  }
  const Eigen::VectorXd theta = rope.spec.params.inv_freq;
  const int pairs = static_cast<int>(theta.size());
  const Text t = opt.figure.tr();
  std::vector<int> sections{24, 20, 20};
  std::string from = opt.sections.empty() ? t.tr("Qwen3-VL's default") : "--sections";
  const AxisMap* model_map = nullptr;  // the model's own map, marked in the figure
  if (!rope.plain && rope.spec.axes) {
    sections = rope.spec.axes->source.sections;
    from = rope.spec.name;
    model_map = &*rope.spec.axes;
  }
  if (!opt.sections.empty()) {
    sections = parse_sections(opt.sections);
    from = "--sections";
    model_map = nullptr;
  }
  // ERNIE-4.5-VL writes its sections (h, w, t) and has its own map (A8): Qwen's maps beside it get the same pairs
  // per axis in their order t, h, w.
  const AxisMap* ernie = model_map && model_map->source.order == SectionOrder::Ernie3d ? model_map : nullptr;
  if (ernie) sections = {sections[2], sections[0], sections[1]};
  // Bailing (Ling/Ming) writes its sections t, h, w and has its own map (A9), beside Qwen's of the same sections.
  const AxisMap* bailing = model_map && model_map->source.order == SectionOrder::Bailing ? model_map : nullptr;
  if (sections.size() != 3 && sections.size() != 4 && opt.sections.empty()) {  // the model's, not the user's
    throw InvalidArgument(
        error_msg("{0}: the M-RoPE sections [{1}]: the maps need 3 sections, t,h,w (HF), or 4, t,h,w,e (llama.cpp)",
                  from, fmt::format("{}", fmt::join(sections, ", "))));
  }
  if (sections.size() != 3 && sections.size() != 4) {
    throw InvalidArgument(
        error_msg("--sections needs 3 numbers t,h,w (HF) or 4 t,h,w,e (llama.cpp) (got {0})", sections.size()));
  }
  // HF's maps (A2), (A3) read three sections adding up to d/2; llama.cpp's (A2) modulo Σs and (A4) read four,
  // HF's padded with a 0 as convert_hf_to_gguf.py writes rope.dimension_sections.
  const bool four = sections.size() == 4;
  std::vector<int> ggml_sections = sections;
  if (!four) ggml_sections.push_back(0);
  const std::vector<int> hf_sections(sections.begin(), sections.begin() + 3);
  const bool hf = !four || (sections[3] == 0 && hf_sections[0] + hf_sections[1] + hf_sections[2] == pairs);
  std::vector<SectionsRow> rows;
  if (hf) {
    rows.push_back({make_axis_map({hf_sections, SectionOrder::Chunked}, pairs), "chunked", t.tr("chunked:"),
                    t.tr("chunked (A2): Qwen2-VL, Qwen2.5-VL, GLM-4.1V, GLM-4.5V")});
    rows.push_back({make_axis_map({hf_sections, SectionOrder::Interleaved}, pairs), "interleaved", t.tr("interleaved:"),
                    t.tr("interleaved (A3): Qwen3-VL, Qwen3.5")});
  }
  if (ernie) rows.push_back({*ernie, "ernie_3d", t.tr("ERNIE 3-D:"), t.tr("ERNIE 3-D (A8): ERNIE-4.5-VL")});
  if (bailing) rows.push_back({*bailing, "bailing", "Bailing:", t.tr("Bailing (A9): Ling, Ming (vLLM)")});
  const AxisMap mrope = make_axis_map({ggml_sections, SectionOrder::GgmlMrope}, pairs);
  const AxisMap imrope = make_axis_map({ggml_sections, SectionOrder::GgmlImrope}, pairs);
  if (four) {
    rows.push_back({mrope, "llama_cpp_mrope", "MROPE:", t.tr("llama.cpp MROPE (A2): qwen2vl")});
    rows.push_back({imrope, "llama_cpp_imrope", "IMROPE:", t.tr("llama.cpp IMROPE (A4): qwen3vl")});
  }
  const std::string list = fmt::format("{}", fmt::join(sections, ", "));
  if (!opt.csv.empty()) {
    std::string csv = "pair,theta,wavelength";
    for (const SectionsRow& r : rows) csv += "," + r.column;
    csv += '\n';
    for (int j = 0; j < pairs; ++j) {
      csv += fmt::format("{},{},{}", j, format_number(theta[j]), format_number(kTwoPi / theta[j]));
      for (const SectionsRow& r : rows)
        csv += fmt::format(",{}", axis_letter(r.map.pair_axis[static_cast<std::size_t>(j)]));
      csv += '\n';
    }
    write_output(opt.csv, csv, out);
  }
  if (opt.figure.wanted()) {
    std::optional<std::size_t> marked;
    for (std::size_t r = 0; r < rows.size(); ++r) {
      if (model_map && rows[r].map.source.order == model_map->source.order) marked = r;
    }
    draw(mrope_sections_figure(opt.figure, rows, theta, list, marked), opt.figure);
  }
  if (opt.csv == "-") return kOk;
  out << t.tr(
      "M-RoPE sections [{0}] ({1}) over {2} pairs, d = {3}, base = {4}:\n{5}\n\n", list, from, pairs, 2 * pairs,
      format_number(rope.spec.config.base),
      ernie
          ? t.tr("ERNIE-4.5-VL's map of its sections (h, w, t) = [{0}] below Qwen's two maps of as many pairs per axis",
                 fmt::join(ernie->source.sections, ", "))
      : bailing ? t.tr("Bailing's map of its sections (t, h, w) below Qwen's two maps of the same sections")
      : !four   ? t.tr("the same sections, chunked and interleaved")
      : hf      ? t.tr("llama.cpp's four slots t, h, w, e next to HF's maps of the first three")
                : t.tr("llama.cpp's four slots t, h, w, e (HF's maps need three sections adding up to d/2)"));
  for (const SectionsRow& r : rows) {
    print_axis_summary(out, r.map, theta, t);
    out << '\n';
  }
  for (const SectionsRow& r : rows)
    out << pad(r.pattern, (t.lang() == Lang::Zh) ? 8 : 13) << axis_pattern(r.map) << '\n';
  // The map says which axis a pair turns with; the layout, which two channels the pair is (GLM-4.1V interleaved,
  // GLM-4.5V half, with the same sections).
  if (model_map)
    out << t.tr("\nthe two channels of a pair in {0}: {1}\n", from, layout_description(rope.spec).in(t.lang()));
  if (hf && !ernie && !bailing) {
    // What llama.cpp does with the same sections: where its map leaves HF's (the "e" slot of (A4)).
    out << t.tr("\nllama.cpp, with the sections as a converted GGUF has them ([{0}]):\n",
                fmt::join(ggml_sections, ", "));
    out << "  " << ggml_difference(mrope, rows[0].map, "MROPE (qwen2vl):  ", t.tr("chunked"), t) << '\n';
    out << "  " << ggml_difference(imrope, rows[1].map, "IMROPE (qwen3vl): ", t.tr("interleaved"), t) << '\n';
  }
  out << t.tr(
      "\nthe frequencies fall with the pair index: chunks give each axis one band of wavelengths,\n"
      "interleaving gives every axis pairs from the whole range (docs/multi-axis.md)\n");
  if (ernie) {
    out << t.tr(
        "ERNIE-4.5-VL gives height and width the fastest pairs alternately and the time the slowest band:\n"
        "the opposite of Qwen2-VL's chunks, which give the time the fastest (docs/multi-axis.md (A8))\n");
  }
  if (bailing) {
    out << t.tr(
        "Bailing gives height and width the fastest pairs alternately and the time the slowest band, as ERNIE-4.5-VL\n"
        "does with its sections written t, h, w (docs/multi-axis.md (A9))\n");
  }
  return kOk;
}

Command add_sections_command(CLI::App& app) {
  auto opt = std::make_shared<SectionsOptions>();
  opt->scaling.axis_blocks = true;  // draws the map of (V6), places no channel
  CLI::App* sub =
      app.add_subcommand("sections", "Which pair turns with which M-RoPE axis: chunked next to interleaved");
  add_dim_option(*sub, opt->dim, kDefaultSectionsDim);
  add_base_option(*sub, opt->base, kDefaultSectionsBase);
  sub->add_option(
         "--sections", opt->sections,
         "the pairs per axis t,h,w (HF), or t,h,w,e (llama.cpp's four slots), e.g. 16,24,24 (default: the model's, "
         "else 24,20,20)")
      ->type_name("LIST");
  sub->add_option(
         "--csv", opt->csv,
         "write pair,theta,wavelength and the axis of every pair in each map (chunked,interleaved; with four "
         "sections also llama_cpp_mrope,llama_cpp_imrope; for ERNIE-4.5-VL also ernie_3d, for Bailing also bailing) to "
         "FILE ('-' for stdout)")
      ->type_name("FILE");
  add_figure_options(*sub, opt->figure);
  add_scaling_options(*sub, opt->scaling);
  sub->footer(
      "Example:\n  rope sections\n  rope sections --model qwen2-vl-7b\n  rope sections --model qwen3-vl-8b --png sections.png\n"
      "  rope sections --sections 24,20,20,0\n  rope sections --vision pixtral\n"
      "  rope sections --model llama-4-scout-17b-16e --tower vision");
  return {sub, [opt](std::ostream& out) { return run_sections(*opt, out); }};
}

}  // namespace rope::cli
