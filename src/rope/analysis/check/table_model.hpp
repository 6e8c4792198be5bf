/// @file
/// A cos/sin table against a model's RoPE (`rope check --cos FILE --sin FILE --model M`, or `--cos-sin-cache FILE`,
/// without dumps): is the table a kernel is handed the model's? Every entry of pair i at the row of position m is
/// compared with the model's a·cos(m·θ_i) and a·sin(m·θ_i) (a the attention factor) under
///
///     |c_i(m) − a·cos(m·θ_i)|, |s_i(m) − a·sin(m·θ_i)| <= κ · a · (ε_A·(1 + c_i·|m|·θ_i) + 2·ε_U)      (T2)
///
/// ε_A and c_i the angle model of (C2) (angle_error.hpp: how the engine computed m·θ_i; float32 by default, as every
/// engine's cache builder does), ε_U the table's type: the value rounded once when stored and once by the product with
/// a. A failing table is named, each finding a line: cos and sin swapped (row 0, position 0, holds (0, a) for
/// (a, 0), whatever θ), the repeated entries in the other layout's order (halves where the model pairs neighbours, or
/// pairs where it splits halves), another rotated width than the model's, too few rows for --seq-len's positions,
/// a magnitude |c + i·s| other than a (the attention factor missing: 1, or applied twice: a²), values rounded to
/// bfloat16 or float16 (every value on that type's grid, within (T2) of that type), and θ measured from the table's
/// columns — θ_i = (atan2(s_i(m), c_i(m)) + 2πk)/m at m = 1, 2, 4, … with k the whole turns m·θ_i predicted from the
/// row before, exact to the table's rounding — as plain RoPE without the model's scaling, plain RoPE of another base
/// (fitted by least squares on ln θ_i = −(2i/r)·ln b, rounded to the fewest significant digits that pass too), the
/// model's scaling on another base, or, where none fits, the first pair whose θ departs.
#pragma once

#include <Eigen/Core>
#include <functional>
#include <string>
#include <vector>

#include "rope/analysis/check/check.hpp"
#include "rope/analysis/check/check_run.hpp"
#include "rope/analysis/check/cos_sin_table.hpp"
#include "rope/core/message.hpp"
#include "rope/models/resolve.hpp"

namespace rope {

/// One thing wrong with a table: its name (JSON's, the tests') and its sentence.
struct TableFinding {
  std::string name;  ///< "cos-sin-swapped", "other-order", "rotary-width", "rows-short", "attention-factor-missing",
                     ///< "attention-factor-doubled", "magnitude-other", "not-rotation", "rounded", "scaling-ignored",
                     ///< "base-other", "scaled-base-other", "theta-other"
  Message says;
};

/// The report of a table checked against a model.
struct TableModelRun {
  ModelRope model;           ///< the model's RoPE as resolved (the report's header)
  RopeExpectation expected;  ///< θ, the attention factor and the angle model compared with
  GivenTable table;          ///< the table as read (its values dropped)
  AngleModel angles = AngleModel::Float32;
  long seq_len = 0;    ///< --seq-len: the positions 0 … seq_len − 1 a row is needed for (0: not given)
  long positions = 0;  ///< the positions compared (the table's rows, a row per position)
  long compared = 0;   ///< entries (a pair's cos and sin at a row) compared under (T2)
  long failed = 0;     ///< of them beyond (T2) (after the findings that explain a whole table: swapped, order)
  double worst = 0;    ///< the largest |Δ|/tolerance
  long worst_position = 0;
  int worst_pair = 0;
  double magnitude = 0;  ///< the median |c + i·s|
  /// θ_i measured from the table's columns (NaN where a pair has fewer than 2 rows); empty with one row.
  Eigen::VectorXd measured_theta;
  double measured_base = 0;  ///< the plain base the measured θ fits (0: not measured)
  std::vector<TableFinding> findings;
  bool passed() const { return failed == 0 && findings.empty(); }
};

/// The table read with a layout (interleaved or not) as cos_sin_table.hpp reads it: a front end's reader of its
/// files or arrays.
using TableReader = std::function<GivenTable(bool interleaved)>;

/// Checks the table `read` gives against the model `settings` names (its source, overrides, layout and angle model)
/// under (T2), names what is wrong. `seq_len` (0: none) the positions a row is needed for.
/// @throws InvalidArgument as read, and for a table whose width fits neither layout's reading.
TableModelRun check_table_against_model(const TableReader& read, const CheckSettings& settings);

/// The same of the files of `settings.table` (read_given_table).
TableModelRun run_table_model(const CheckSettings& settings);

}  // namespace rope
