/// @file
/// The value of the live page's latent grid (analysis/teaching/axes_grid.hpp): the grid, the axis letter of every
/// pair, the two patches of one row, their angles and the pairs that differ, and the part's sentence.
#pragma once

#include "rope/analysis/teaching/axes_grid.hpp"
#include "rope/core/message.hpp"
#include "rope/report/value.hpp"

namespace rope {

/// frames, rows, columns, axes (a letter per pair), per_axis {t, h, w}, first and second [frame, row, column],
/// angle_first, angle_second, differing (the pairs), only_w.
Value axes_grid_value(const AxesGridRun& run);

/// "patches (0, 1, 2) and (0, 1, 3), one row: 24 of 64 pairs turn them apart, all of them w pairs": the run's
/// point in the catalog's words.
Message axes_grid_sentence(const AxesGridRun& run);

/// "next row (1, 2, 1): 20 of 64 pairs turn it apart, just the h pairs": one of the patch's neighbours.
Message axes_grid_neighbour_sentence(const AxesGridRun& run, const AxesGridNeighbour& neighbour);

}  // namespace rope
