/// @file
/// `rope verify` as one library call: the identity suite of verify.hpp on plain RoPE of a dimension and base or
/// on a model's scaled frequencies (models/resolve.hpp), in float64 or a lower type, then the rows that depend on
/// the run: the per-axis identities of a multimodal model (docs/multi-axis.md (A5)–(A7)), xPos's rows (X3), (X4)
/// and its contrast, and the cast-inputs contrast of a float16 or bfloat16 run. The report's printers are
/// report/verify_report.hpp.
#pragma once

#include <optional>

#include "rope/analysis/verify/verify.hpp"
#include "rope/analysis/verify/xpos.hpp"
#include "rope/core/dtype.hpp"
#include "rope/models/longrope_rule.hpp"
#include "rope/models/resolve.hpp"

namespace rope {

/// What the trials report as they run: the command line draws a bar on a terminal and lets Ctrl-C stop them.
class VerifyWatch {
 public:
  virtual ~VerifyWatch() = default;
  /// The trials start; `stoppable`: update's answer is heeded (the fast path; the dense one runs to the end).
  virtual void start(bool stoppable) = 0;
  /// (trials done, trials asked); returning false stops the run, which reports the trials done so far.
  virtual bool update(long done, long total) = 0;
  /// The trials ended, done, stopped or by an exception; the rows after them are not watched.
  virtual void finish() = 0;
};

struct VerifyRequest {
  /// trials, max_position, seed, dense; dim, base and layout are plain RoPE's when the fields below are not given.
  /// settings.vectors: the user's q and k (every row, the per-axis and xPos ones too, on them); d is theirs, and a
  /// model's rotated channels must be as many. Given positions (VerifyVectors::at) check each pair once there:
  /// trials and max_position are then the pairs and the largest position + 1, and no float16/bfloat16 contrast.
  VerifySettings settings;
  ModelSource source;     ///< a preset or a config file; none: plain RoPE
  RopeOverrides rope;     ///< the scaling settings (head_dim, base and layout: below)
  LongRopeRule longrope;  ///< whose rule picks LongRoPE's list (models/longrope_rule.hpp): HF's unless given
  std::optional<int> dim;
  std::optional<double> base;
  std::optional<Layout> layout;      ///< default: the model's, or settings.layout
  std::optional<DType> dtype;        ///< default: float64, and the report of before the type could be chosen
  std::optional<Strategy> strategy;  ///< with a dtype other than float64 (default: angle-f32, as Hugging Face)
  bool xpos = false;                 ///< the xPos rows (X3), (X4) and their contrast, on plain RoPE in float64
  double xpos_scale_base = kDefaultXposScaleBase;
  VerifyWatch* watch = nullptr;  ///< none: the trials run to the end unwatched

  /// Whether anything beyond plain RoPE of a dimension and base was asked for.
  bool any_model() const;
};

/// The report of one run: the RoPE verified, the suite's rows and the contrasts the run added.
struct VerifyRun {
  ModelRope rope;              ///< what was verified (`plain` for plain RoPE)
  std::optional<DType> dtype;  ///< as asked (the report says the type only when it was)
  VerifyReport
      report;  ///< settings as run, the trials done, the identities (per-axis and xPos rows last), the contrast
  std::optional<IdentityResult> xpos_contrast;  ///< with xPos: RoPE's relative identity (M8) without its scale
  double xpos_scale_base = kDefaultXposScaleBase;
  std::optional<StrategyContrast> cast_inputs;  ///< float16 or bfloat16 with another strategy: row 1 with cast-inputs
  bool axes_left_out = false;  ///< a multimodal model under a dtype other than float64: no per-axis rows
  bool from_file = false;      ///< the RoPE of a config file: the report says it checks mathematics, not code

  /// Whether every identity passed (in the trials done: interrupted() tells a run stopped early).
  bool passed() const { return report.all_passed(); }
  bool interrupted() const { return report.interrupted; }
  /// Every row in the order the table prints them: the identities, the contrast, xPos's and cast-inputs' contrasts.
  std::vector<const IdentityResult*> rows() const;
};

/// Resolves the RoPE, checks the request's rules and runs the suite.
/// @throws InvalidArgument for a rule between settings (naming them by option_name) or a bad value, IoError for
///         an unreadable config file.
VerifyRun run_verify(const VerifyRequest& request);

}  // namespace rope
