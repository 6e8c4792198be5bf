/// @file
/// The printers of `rope sections` (analysis/teaching/sections_run.hpp): the text (each map's axes and the
/// pattern of every pair, what llama.cpp does with the same sections; for a vision tower the six
/// implementations at its d and base), the CSV (M-RoPE: pair, theta, wavelength and the axis of every pair in
/// each map; a vision tower: each implementation's theta and axis per pair), the value and the ownership figure:
/// every pair a point at its wavelength, coloured by its axis, one row per map.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "rope/analysis/teaching/sections_run.hpp"
#include "rope/plot/figure.hpp"
#include "rope/report/emit.hpp"
#include "rope/report/value.hpp"

namespace rope {

class Text;

/// vision, dim, base, and for M-RoPE sections, from ("default", "typed" or "model"), maps [{name, axes: the
/// axis letter of every pair}]; for a vision tower chosen and towers [{kind, theta, axes}].
Value sections_value(const SectionsRun& run);

/// The CSV text, every digit.
std::string sections_csv(const SectionsRun& run);

/// The text for people.
void print_sections(std::ostream& out, const SectionsRun& run, const Text& t);

/// The ownership figure: the maps top to bottom, the model's own marked (a vision tower: the six
/// implementations, the tower's marked). @throws InvalidArgument when no pair has a finite wavelength.
plot::Figure sections_figure(const SectionsRun& run, const Text& t);

/// With --grid, the figure is the latent grid instead: p and p′ marked, the pairs below coloured by axis and those
/// that turn p and p′ apart barred. The GIF of the grid's walk: one frame per cell walked, that cell marked and every
/// pair a dial turned to its angle there. @throws InvalidArgument without a walk.
std::vector<plot::Figure> sections_grid_frames(const SectionsRun& run, const Text& t);

/// The report of `rope sections`: report/emit.hpp.
template <>
struct Report<SectionsRun> {
  static Value value(const SectionsRun& run) { return sections_value(run); }
  static void text(std::ostream& out, const SectionsRun& run, const Printing& how) {
    print_sections(out, run, Text(how.lang));
  }
  static std::string csv(const SectionsRun& run) { return sections_csv(run); }
};

}  // namespace rope
