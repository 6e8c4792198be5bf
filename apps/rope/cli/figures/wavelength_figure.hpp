/// @file
/// The wavelength figure of rope wavelengths (λ_i against i on a log axis, the context lengths, the
/// pairs beyond each and the critical dimension of the first context, docs/math.md (M2), (M16)),
/// shared with rope extrapolation.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "rope/cli/figure_options.hpp"
#include "rope/plot/plot.hpp"

namespace rope::cli {

/// One wavelength curve: its name (legend, table, CSV header) and values.
struct WavelengthCurve {
  std::string name;    ///< legend and table
  std::string column;  ///< CSV header
  Eigen::VectorXd lambda;
};

/// λ_i of every curve against i = 0 … d/2 − 1, a dashed line per context, a dot on each pair with
/// λ_i > context, and the critical dimension of the first curve at the first context.
plot::Figure wavelength_figure(const FigureOptions& f, int dim, const std::string& model,
                               const std::vector<double>& contexts, const std::vector<WavelengthCurve>& curves);

}  // namespace rope::cli
