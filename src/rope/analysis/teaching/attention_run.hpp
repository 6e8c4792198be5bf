/// @file
/// `rope attention` as one call (the report pattern of check_run.hpp): the attention matrix softmax(QKᵀ/√d) of
/// random (or given) queries and keys under RoPE, the additive sinusoidal encoding, ALiBi or no encoding, and the
/// shift test: move every position by C and see whether the scores change (docs/math.md (M8), (M12), (M13);
/// Press et al. 2021 for ALiBi). The request holds settings already checked by the front end (its option
/// rules name its flags); run_attention computes every matrix, shift row and GIF frame.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "rope/analysis/teaching/attention.hpp"
#include "rope/core/message.hpp"
#include "rope/core/random.hpp"
#include "rope/core/types.hpp"
#include "rope/models/resolve.hpp"

namespace rope {

/// Matrices are printed up to this many tokens; beyond, the CSV or the figure shows them (and the JSON leaves
/// them out).
inline constexpr int kMaxPrintedTokens = 16;

struct AttentionRequest {
  int tokens = 8;
  int dim = 8;                      ///< d: the model's head_dim, the length of the given vectors, or as typed
  std::vector<Encoding> encodings;  ///< one, or every one (compare)
  bool compare = false;             ///< every encoding with the same q and k
  std::optional<long> shift;        ///< C: run the shift test
  bool causal = false;
  std::uint64_t seed = kDefaultSeed;  ///< of the random q_i, k_j
  double base = kDefaultBase;         ///< rope and sinusoidal
  int heads = 8, head = 1;            ///< ALiBi: the heads for the slopes, and which head's slope
  std::optional<ModelRope> model;     ///< a model's RoPE (S19) for the rope encoding
  std::optional<QueriesKeys> user;    ///< the given q_i and k_j (a row per token); nullopt: drawn
  int frames = 0;                     ///< > 0: a GIF of the shift test, the shift growing from 0 to C
  bool wide = false;                  ///< the long verdicts (and the wide shift table)
  bool show_vectors = false;          ///< text: every q_i and k_j in full
  bool figure = false;                ///< a heatmap is drawn (the text then does not offer one)
  bool csv_stdout = false;            ///< the CSV goes to standard output (one CSV: not with compare)
};

/// One encoding's matrix.
struct AttentionResult {
  Encoding encoding = Encoding::Rope;
  AttentionSettings settings;
  double slope = 0.0;    ///< ALiBi's m
  Eigen::MatrixXd a;     ///< the weights A_ij
  Eigen::MatrixXd bias;  ///< ALiBi only
};

/// One row of the shift table and whether it is what the encoding promises.
struct ShiftRow {
  Encoding encoding;
  ShiftReport report;
  bool ok;
  Message verdict;
  bool by_design = false;  ///< the model's frequencies change with seq_len (dynamic, longrope)
};

struct AttentionRun {
  AttentionRequest request;  ///< as run
  QueriesKeys qk;
  Eigen::VectorXd positions;
  std::vector<AttentionResult> results;
  std::vector<ShiftRow> shifts;    ///< one per encoding with a shift, else none
  bool passed = true;              ///< every shift row ok
  double shared_max = 0.0;         ///< the largest weight of every result (compare: one colour range)
  std::vector<long> frame_shifts;  ///< the GIF's shifts
  std::vector<std::vector<Eigen::MatrixXd>> frame_weights;  ///< per result, per frame
  double frames_max = 0.0;                                  ///< the largest weight of every frame
};

/// The settings' softmax scale and query scaling from the model (none from plain RoPE or a vision tower: 1/√d).
void use_model_attention(AttentionSettings& settings, const ModelRope& model);

/// The row of encoding `e`: RoPE within rounding, ALiBi and none exactly 0, sinusoidal free to change.
/// `wide`: the long verdicts.
ShiftRow judge_shift(Encoding e, const ShiftReport& r, bool wide);

/// Marks the RoPE row as changed by design: the model's frequencies depend on seq_len, which moves from
/// `before` to `after` with the shift (HF's dynamic update; dynamic NTK and longrope).
void mark_regime_change(ShiftRow& row, long before, long after, bool wide);

/// The shift test's RoPE row when the query scaling s(p) is not the same at positions and positions + shift: the
/// scores change as the model's do, by design (exit 0), and the verdict says s(p) before and after.
void mark_query_scaling_change(ShiftRow& row, const AttentionSettings& settings, const Eigen::VectorXd& positions,
                               double shift, bool wide);

/// "1.277" or "1 … 1.277": the range of s(p) over `positions`.
std::string scaling_range(const QueryScaling& q, const Eigen::VectorXd& positions);

/// Every encoding's weights, the shift rows and the GIF's frames. @throws InvalidArgument from the library's
/// computations (the request's ranges are the front end's to check).
AttentionRun run_attention(const AttentionRequest& request);

}  // namespace rope
