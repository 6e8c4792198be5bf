/// @file
/// The gnuplot script of a figure. Safety: every user-visible string enters the script through quote()
/// (rope/plot/text.hpp: single-quoted, control characters replaced, enhanced-text markup off), so no
/// title can run a gnuplot command. Numbers are written with fmt (shortest round-trip, independent of
/// the locale).
#pragma once

#include <string>
#include <vector>

#include "rope/plot/figure.hpp"

namespace rope::plot {

/// The whole script: settings, one datablock per data set, then for each output its terminal,
/// `set output`, the plot command and `unset output`. Pure: the same inputs give the same text.
/// @throws InvalidArgument for an empty figure, mismatched vector lengths, or a bad style.
std::string gnuplot_script(const Figure& figure, const std::vector<Output>& outputs, const Style& style);

}  // namespace rope::plot
