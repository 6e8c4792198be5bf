// rope sections: which pair turns with which position axis, chunked (A2) next to interleaved (A3), with
// the wavelengths per axis and the ownership figure, docs/multi-axis.md §1. The computation is
// rope/analysis/teaching/sections_run.hpp, its report (text, CSV, figure) rope/report/sections_report.hpp.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <cmath>
#include <memory>

#include "rope/analysis/teaching/sections_run.hpp"
#include "rope/core/error.hpp"
#include "rope/core/parse.hpp"
#include "rope/models/mrope_positions.hpp"
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
  std::string grid;   ///< --grid FxHxW
  std::string patch;  ///< --patch F,R,C
  bool json = false;
  FigureOptions figure;
  ScalingOptions scaling;
};

/// --grid's frames, rows and columns and --patch's cell, as typed (the limits are the library's, axes_grid.hpp).
void grid_request(const SectionsOptions& opt, SectionsRequest& r) {
  if (opt.grid.empty()) {
    if (!opt.patch.empty())
      throw InvalidArgument(error_msg("{0} is a cell of {1}: give {2} too", "--patch", "--grid", "--grid"));
    if (opt.figure.animated())
      throw InvalidArgument(error_msg("{0} animates the latent grid's rotations: give {1} too", "--gif", "--grid"));
    return;
  }
  const std::array<long, 3> sides = parse_grid(opt.grid, "--grid");
  std::array<int, 3> grid{};
  for (std::size_t k = 0; k < 3; ++k) {
    if (sides[k] > kMaxAxesGridSide)
      throw InvalidArgument(error_msg("{0}: the grid's frames, rows and columns must be in 1 … {1} (got {2})", "--grid",
                                      kMaxAxesGridSide, sides[k]));
    grid[k] = static_cast<int>(sides[k]);
  }
  r.grid = grid;
  if (!opt.patch.empty()) {
    const std::vector<double> p = parse_real_list(opt.patch, "--patch");
    if (p.size() != 3 ||
        std::any_of(p.begin(), p.end(), [](double x) { return x != std::floor(x) || x < 0 || x > 16; }))
      throw InvalidArgument(
          error_msg("{0} must be 3 whole numbers frame,row,column counted from 0 (got '{1}')", "--patch", opt.patch));
    r.patch = {static_cast<int>(p[0]), static_cast<int>(p[1]), static_cast<int>(p[2])};
  }
  if (opt.figure.animated()) r.walk = opt.figure.frame_count();
}

int run_sections(const SectionsOptions& opt, std::ostream& out) {
  check_figure_options(opt.figure);
  const bool vision = !opt.scaling.rope.vision.empty();
  SectionsRequest request;
  request.rope = resolve(opt.scaling, {opt.dim, vision ? kDefaultVisionDim : kDefaultSectionsDim, opt.base,
                                       vision ? kDefaultBase : kDefaultSectionsBase, std::nullopt, Layout::Half});
  request.sections = opt.sections;
  grid_request(opt, request);
  const SectionsRun run = rope::run_sections(request);
  const Text t = opt.figure.tr();
  emit_report(out, run, {opt.json, t.lang(), std::nullopt, opt.csv}, [&] {
    if (opt.figure.wanted()) draw(sections_figure(run, t), opt.figure);
    if (opt.figure.animated()) draw_animation(sections_grid_frames(run, t), opt.figure);
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
  sub->add_option("--grid", opt->grid,
                  "a latent grid of F frames × H rows × W columns (each 1 … 16, W >= 2), e.g. 2x3x4: which pairs turn "
                  "two patches of one row apart; the figure draws the grid")
      ->type_name("FxHxW");
  sub->add_option("--patch", opt->patch,
                  "the grid's first patch frame,row,column from 0 (default 0,0,0); the second is its right neighbour")
      ->type_name("F,R,C");
  sub->add_flag("--json", opt->json,
                "print JSON: dim, base, sections, each map's axis letters; with --grid the grid, its map and the pairs "
                "that turn the two patches apart");
  add_figure_options(*sub, opt->figure);
  add_animation_options(*sub, opt->figure,
                        "animate the grid (with --grid): a patch walks its cells, the column fastest, each pair a dial "
                        "turned to its angle");
  add_scaling_options(*sub, opt->scaling);
  sub->footer(
      "Example:\n  rope sections\n  rope sections --model qwen2-vl-7b\n  rope sections --model qwen3-vl-8b --png sections.png\n"
      "  rope sections --sections 24,20,20,0\n  rope sections --vision pixtral\n"
      "  rope sections --model llama-4-scout-17b-16e --tower vision\n"
      "  rope sections --model qwen3-vl-8b --grid 2x3x4 --png grid.png\n"
      "  rope sections --model wan2.1-t2v-14b --grid 2x3x4 --gif grid.gif --frames 24");
  return {sub, [opt](std::ostream& out) { return run_sections(*opt, out); }};
}

}  // namespace rope::cli
