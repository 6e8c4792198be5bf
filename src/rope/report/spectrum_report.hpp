/// @file
/// The printers of `rope spectrum` (analysis/spectrum/spectrum.hpp): the text for people (in either language: the dump,
/// the spec, the bands, one row per pair, a line per head, the notes), the value of its numbers (`--json`: `pairs`
/// pooled over batch rows and heads, `heads` per head, `bands`) and its two figures (per pair the energy share as
/// bars and the normalised frequency entropy as a line over the wavelength; the heads × pairs heat map of the
/// energy share).
#pragma once

#include <ostream>

#include "rope/analysis/spectrum/spectrum.hpp"
#include "rope/plot/figure.hpp"
#include "rope/report/emit.hpp"
#include "rope/report/value.hpp"

namespace rope {

class Text;

/// file, dump {shape, axes, dtype, seq, batch, heads, d, positions}, spec {layout, rotary_dim, base, scaling,
/// layout_from, base_assumed, no_rope}, frequency_bins (⌊T/2⌋), pairs [{pair, wavelength, energy_share,
/// frequency_entropy, flat, flat_series}], heads [{head, pairs […]}], bands {energy {first, last, pairs, share,
/// target}, lowest_entropy, highest_entropy} and notes.
Value spectrum_value(const SpectrumRun& run);

/// The report for people.
void print_spectrum(std::ostream& out, const SpectrumRun& run, const Text& t);

/// Its report (report/emit.hpp): the value, the text.
template <>
struct Report<SpectrumRun> {
  static Value value(const SpectrumRun& run) { return spectrum_value(run); }
  static void text(std::ostream& out, const SpectrumRun& run, const Printing& how) {
    print_spectrum(out, run, Text(how.lang));
  }
};

/// Per pair over its wavelength (log axis): the energy share as bars, FE_j / ln⌊T/2⌋ as a line (both in [0, 1]).
plot::Figure spectrum_figure(const SpectrumRun& run, const Text& t);
/// The energy share of every pair in every head (rows: heads, columns: pairs).
plot::Figure spectrum_heads_figure(const SpectrumRun& run, const Text& t);

}  // namespace rope
