/// @file
/// The pieces gnuplot_script() (rope/plot/script.cpp) puts together, in the order of the script:
/// the datablocks and the plot clauses that draw them (script_data.cpp), then the settings: texts and
/// key, axes, reference lines and labels, one block per output. Internal to rope/plot; each piece
/// appends to `out` and assumes a figure that passed validate().
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "rope/plot/figure.hpp"

namespace rope::plot::script {

/// A number for the script: shortest round trip, locale-independent.
std::string num(double x);

/// A palette colour, "#RRGGBB", for a palette index >= 0 (cycling).
const char* color_of(int index);

/// Whether gnuplot autoscales the linear x (y) axis: no heatmap, no explicit range, not logarithmic.
bool autoscaled_x(const Figure& f);
bool autoscaled_y(const Figure& f);

/// Writes one datablock per data set (heatmap, bands, series, then the invisible anchors that keep
/// reference lines and labels inside an autoscaled range); returns the plot clauses that draw them.
std::vector<std::string> write_data(std::string& out, const Figure& f);

/// Title, axis labels, key (legend), grid and the text box style.
void write_texts_and_key(std::string& out, const Figure& f, const Style& style);

/// Ranges, logarithmic scales with their ticks, and a heatmap's ranges and palette.
/// `cjk_one_font`: a Chinese figure drawn by libgd, its tick labels written in_cjk_font as its texts are.
void write_axes(std::string& out, const Figure& f, bool cjk_one_font);

/// Reference lines and labels (with their arrows).
void write_annotations(std::string& out, const Figure& f);

/// `reset`, the datablocks and every setting of one figure (all but the output blocks); returns the plot
/// clauses. `one_font`: the figure is drawn by a terminal of one font (libgd's GIF and sixel), so a Chinese
/// figure's texts are written in_cjk_font.
std::vector<std::string> write_data_and_settings(std::string& out, const Figure& f, const Style& style, bool one_font);

/// The `set terminal` line of a format in a style.
std::string terminal_line(Format format, const Style& style);

/// For each output its terminal, `set output`, the plot command and `unset output`.
void write_outputs(std::string& out, const Figure& f, const std::vector<std::string>& plots,
                   const std::vector<Output>& outputs, const Style& style);

// The heatmap (script_heatmap.cpp).

/// The plot clause of the heatmap's datablock, as write_data() returns it.
inline constexpr const char* kHeatmapPlot = "$heat using 1:2:3 with image notitle";
/// The number of the object drawn behind cells without a value.
inline constexpr int kMissingObject = 1;

/// The colour range: symmetric around 0 for a diverging palette, else [min z, max z] or the given zrange.
std::pair<double, double> color_range(const Heatmap& h);

/// Whether some cell has no value (NaN, a masked cell): drawn as grey hatching, not as a colour.
bool has_missing(const Heatmap& h);

/// The grey hatching behind the heatmap that shows through cells without a value.
std::string missing_cells_object();

/// What one output needs to draw the heatmap sharply and readably: SVG and coloured text draw every
/// cell as a rectangle (`with image pixels`, which no viewer smooths), SVG moves the colour-bar label
/// clear of its tick labels, plain text writes one character per cell from a ramp with its key below.
/// Changes the heatmap's clause in `plots`; `before` and `after` are settings around the plot command.
void heatmap_for_output(Format format, const Heatmap& h, std::vector<std::string>& plots, std::string& before,
                        std::string& after);

}  // namespace rope::plot::script
