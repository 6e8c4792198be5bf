/// @file
/// The ownership figures of rope sections: every pair a point at its wavelength λ_j = 2π/θ_j, coloured by
/// the axis it reads, one row per map. M-RoPE: HF's chunked (A2) and interleaved (A3) maps and llama.cpp's
/// MROPE and IMROPE (A4) of docs/multi-axis.md §1; a vision tower: the five 2-D maps of §6 ((V2)–(V5)) at the
/// same d and base (h the patch's row, w its column).
#pragma once

#include <Eigen/Core>
#include <optional>
#include <string>
#include <vector>

#include "rope/models/axes.hpp"

#include "rope/cli/figure_options.hpp"
#include "rope/models/vision_rope.hpp"
#include "rope/plot/plot.hpp"

namespace rope::cli {

/// One M-RoPE map of rope sections: its CSV column, the name of its pattern line and its figure label.
struct SectionsRow {
  AxisMap map;
  std::string column;   ///< "chunked", "interleaved", "llama_cpp_mrope", "llama_cpp_imrope"
  std::string pattern;  ///< "chunked:", "MROPE:", … before its pattern line, in the text's language
  std::string label;    ///< "chunked (A2): Qwen2-VL, Qwen2.5-VL", in the figure's language
};

/// `rows` top to bottom, `theta` the frequencies (λ_j = 2π/θ_j), `sections` "24, 20, 20" for the title;
/// the row `marked` (the model's own map) says so in its label.
plot::Figure mrope_sections_figure(const FigureOptions& f, const std::vector<SectionsRow>& rows,
                                   const Eigen::VectorXd& theta, const std::string& sections,
                                   std::optional<std::size_t> marked);

/// `rows` in order, top to bottom; `chosen` is marked in its row's label.
plot::Figure vision_sections_figure(const FigureOptions& f, const std::vector<VisionPairs>& rows, VisionRope chosen);

}  // namespace rope::cli
