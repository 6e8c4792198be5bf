/// @file
/// The options every figure-drawing command shares (--png, --svg, --pdf, --output, --title, --lang,
/// --width, --height, --keep-script) and the step from them to rope::plot.
#pragma once

#include <string>
#include <vector>

#include "rope/cli/lang.hpp"
#include "rope/plot/plot.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace rope::cli {

struct FigureOptions {
  std::string png;
  std::string svg;
  std::string pdf;
  std::string output;  ///< format from the extension
  std::string title;   ///< replaces the default title
  Lang lang = Lang::En;
  int width = 1200;
  int height = 800;
  std::string keep_script;

  bool wanted() const { return !png.empty() || !svg.empty() || !pdf.empty() || !output.empty(); }
  bool zh() const { return lang == Lang::Zh; }
  /// The English or the Chinese text, after --lang.
  const char* text(const char* en, const char* zh_text) const { return zh() ? zh_text : en; }
  /// The command's Text (lang.hpp), after --lang.
  Text tr() const { return Text(lang); }
};

void add_figure_options(CLI::App& app, FigureOptions& options);

/// Checks the sizes and the extension of --output, and that the options that only shape a figure
/// (--keep-script, --title, --width, --height) come with one. --lang (checked when parsed) also sets the
/// language of the command's text (lang.hpp), so it needs no figure.
/// @throws InvalidArgument.
void check_figure_options(const FigureOptions& options);

/// Applies --title, then renders into every requested file. Does nothing if none was requested.
void draw(plot::Figure figure, const FigureOptions& options);

}  // namespace rope::cli
