#include "rope/cli/figure_options.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "rope/cli/options.hpp"
#include "rope/core/error.hpp"

namespace rope::cli {

void add_figure_options(CLI::App& app, FigureOptions& o) {
  app.add_option("--png", o.png, "draw the figure to a PNG file")->type_name("FILE")->group("Figure");
  app.add_option("--svg", o.svg, "draw the figure to an SVG file")->type_name("FILE")->group("Figure");
  app.add_option("--pdf", o.pdf, "draw the figure to a PDF file")->type_name("FILE")->group("Figure");
  app.add_option("-o,--output", o.output, "draw the figure to FILE, format from its extension (.png, .svg, .pdf)")
      ->type_name("FILE")
      ->group("Figure");
  app.add_option("--title", o.title, "figure title (replaces the default)")->type_name("TEXT")->group("Figure");
  add_lang_option(app, o.lang);  // the text's language too, so not in the Figure group
  add_int_option(app, "--width", o.width, "figure width in pixels")->group("Figure");
  add_int_option(app, "--height", o.height, "figure height in pixels")->group("Figure");
  app.add_option("--keep-script", o.keep_script, "also save the gnuplot script, to edit and re-run with gnuplot")
      ->type_name("FILE")
      ->group("Figure");
}

void check_figure_options(const FigureOptions& o) {
  for (const auto& [name, value] : {std::pair{"--width", o.width}, std::pair{"--height", o.height}}) {
    if (value < plot::kMinPixels || value > plot::kMaxPixels) {
      throw InvalidArgument(
          fmt::format("{} must be between {} and {} pixels (got {})", name, plot::kMinPixels, plot::kMaxPixels, value));
    }
  }
  if (!o.output.empty()) plot::format_from_extension(o.output);
  if (!o.wanted()) {
    const FigureOptions defaults;
    for (const auto& [name, given] : {std::pair{"--keep-script", !o.keep_script.empty()}, std::pair{"--title", !o.title.empty()},
                                      std::pair{"--width", o.width != defaults.width},
                                      std::pair{"--height", o.height != defaults.height}}) {
      if (given) throw InvalidArgument(fmt::format("{} needs a figure: add --png, --svg, --pdf or --output", name));
    }
  }
}

void draw(plot::Figure figure, const FigureOptions& o) {
  if (!o.wanted()) return;
  if (!o.title.empty()) figure.title = o.title;
  std::vector<plot::Output> outputs;
  if (!o.png.empty()) outputs.push_back({o.png, plot::Format::Png});
  if (!o.svg.empty()) outputs.push_back({o.svg, plot::Format::Svg});
  if (!o.pdf.empty()) outputs.push_back({o.pdf, plot::Format::Pdf});
  if (!o.output.empty()) outputs.push_back({o.output, plot::format_from_extension(o.output)});
  plot::RenderOptions options;
  options.style.width = o.width;
  options.style.height = o.height;
  options.style.lang = to_string(o.lang);
  options.keep_script = o.keep_script;
  plot::render(figure, outputs, options);
}

}  // namespace rope::cli
