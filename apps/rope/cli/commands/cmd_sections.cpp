// rope sections: which pair turns with which position axis, chunked (A2) next to interleaved (A3), with
// the wavelengths per axis and the ownership figure, docs/multi-axis.md §1. The computation is
// rope/analysis/teaching/sections_run.hpp, its report (text, CSV, figure) rope/report/sections_report.hpp.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <memory>

#include "rope/analysis/teaching/sections_run.hpp"
#include "rope/cli/commands.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/figure_options.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/report_output.hpp"
#include "rope/cli/scaling_options.hpp"
#include "rope/report/sections_report.hpp"

namespace rope::cli {

struct SectionsOptions {
  std::optional<int> dim;
  std::optional<double> base;
  std::string sections;  ///< "24,20,20"; empty: the model's, or 24,20,20
  std::string csv;
  FigureOptions figure;
  ScalingOptions scaling;
};

int run_sections(const SectionsOptions& opt, std::ostream& out) {
  check_figure_options(opt.figure);
  const bool vision = !opt.scaling.rope.vision.empty();
  const SectionsRun run = rope::run_sections(
      {resolve(opt.scaling, {opt.dim, vision ? kDefaultVisionDim : kDefaultSectionsDim, opt.base,
                             vision ? kDefaultBase : kDefaultSectionsBase, std::nullopt, Layout::Half}),
       opt.sections});
  const Text t = opt.figure.tr();
  emit_report(out, run, {false, t.lang(), std::nullopt, opt.csv}, [&] {
    if (opt.figure.wanted()) draw(sections_figure(run, t), opt.figure);
  });
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
