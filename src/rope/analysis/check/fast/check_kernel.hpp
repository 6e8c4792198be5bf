/// @file
/// The fast path of rope check: every element of a dump against the reference of one or several variants under the
/// tolerance model (C1) of check.hpp, as the exact path (analysis/check/compare_exact.hpp) computes it, bit for bit,
/// in blocks of sequence indices that a source fills (the dumps in memory, or read from their files in pieces:
/// dump_stream.hpp), over the cores. A block's cos, sin and angle terms are computed once per position and variant
/// and serve every group; vectors whose pairs lie in a regular form are screened (check_screen.hpp), so that only the
/// elements whose exact ratio can be a maximum or a failure are computed exactly.
#pragma once

#include <functional>
#include <vector>

#include "rope/analysis/check/check.hpp"
#include "rope/analysis/check/compare_exact.hpp"
#include "rope/analysis/check/dump_blocks.hpp"
#include "rope/analysis/check/fast/check_screen.hpp"

namespace rope {

/// Compares the range with every variant in one pass over its blocks of `block_positions` sequence indices
/// (`positions`: one per index of the range), or over those of `pass.only`. The result does not depend on the number
/// of threads, and is compare_exact's for the same arguments (what `pass` leaves out aside: ComparePass).
/// @throws InvalidArgument as compare_dump, or what `fetch` throws.
std::vector<DumpComparison> compare_blocks(const BlockShape& shape, const std::vector<AxisPosition>& positions,
                                           const std::vector<Variant>& variants, const BlockFetch& fetch,
                                           long block_positions, const ProgressFn* progress = nullptr,
                                           const ComparePass& pass = {});

/// Sequence indices per block so that one block holds about `elements` elements (at least 1).
long block_positions_for(long groups, int d, long elements);

/// Called by compare_blocks on its calling thread, with its arguments and its result, after each comparison: how a test
/// runs the exact path on the inputs of every comparison a check makes (tests/cli/test_corpus.cpp).
using CompareWitness =
    std::function<void(const BlockShape&, const std::vector<AxisPosition>&, const std::vector<Variant>&,
                       const BlockFetch&, const ComparePass&, const std::vector<DumpComparison>&)>;
/// Installs `witness` (empty: none, the default); to be called while no comparison runs.
void set_compare_witness(CompareWitness witness);
const CompareWitness& compare_witness();

}  // namespace rope
