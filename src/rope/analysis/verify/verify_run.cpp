// rope verify as one call (verify_run.hpp): the RoPE resolved, the request's rules, the suite, then the per-axis
// rows, xPos's rows and the cast-inputs contrast that the run asks for.
#include "rope/analysis/verify/verify_run.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "rope/analysis/verify/axis_identities.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/core/invalid_quantity.hpp"
#include "rope/io/csv.hpp"

namespace rope {

bool VerifyRequest::any_model() const {
  return source.any() || !rope.first_scaling_setting().empty() || !rope.vision.empty() || rope.tower != Tower::Default;
}

std::vector<const IdentityResult*> VerifyRun::rows() const {
  std::vector<const IdentityResult*> shown;
  for (const IdentityResult& r : report.identities) shown.push_back(&r);
  shown.push_back(&report.contrast);
  if (xpos_contrast) shown.push_back(&*xpos_contrast);
  if (cast_inputs) shown.push_back(&cast_inputs->row);
  return shown;
}

namespace {

/// Plain RoPE of the request's dimension and base, or the model's RoPE with them on top (an explicit layout
/// overrides the model's).
ModelRope resolve_for(const VerifyRequest& q) {
  if (!q.any_model()) check_dimension(q.dim.value_or(q.settings.dim), kMaxVerifyDim);
  RopeOverrides r = q.rope;
  r.head_dim = q.dim;
  r.default_head_dim = q.settings.dim;
  r.base = q.base;
  r.default_base = q.settings.base;
  r.layout = q.layout;
  r.default_layout = q.settings.layout;
  ModelRope rope = with_longrope_rule(resolve_model_rope(q.source, r), q.longrope);
  if (rope.spec.axis_blocks) {
    throw InvalidArgument(
        error_msg("Gemma 4's vision tower pairs channels inside each axis's block (docs/multi-axis.md (V6)), "
                  "which this command does not place: rope apply, check, diff, sections, inspect, "
                  "frequencies, wavelengths, decay, attention and matrix take it"));
  }
  if (rope.spec.head_slices > 1) {
    throw InvalidArgument(
        error_msg("{0} gives each head its own slice of one table over {1} heads (LTX-2's rope_type split, "
                  "docs/multi-axis.md (W10)), which this command does not place: rope check and positions take it",
                  rope.spec.name, rope.spec.head_slices));
  }
  return rope;
}

/// The suite's trials, watched: the watch's start and finish around them, whatever happens.
VerifyReport run_trials(const VerifySettings& settings, VerifyWatch* watch) {
  struct Finish {
    VerifyWatch* watch;
    ~Finish() { watch->finish(); }
  };
  try {
    if (!watch) return verify(settings);
    watch->start(!settings.dense);
    const Finish finish{watch};
    return verify(settings, [watch](long done, long total) { return watch->update(done, total); });
  } catch (const InvalidQuantity& e) {
    // The library's quantities, named as the front end's settings.
    for (const char* setting : {"trials", "max-position", "positions"}) {
      if (e.quantity() == setting) throw InvalidArgument(option_name(setting) + " " + e.rule());
    }
    throw InvalidArgument(e.what());
  }
}

}  // namespace

VerifyRun run_verify(const VerifyRequest& q) {
  if (!(q.xpos_scale_base > 0) || !std::isfinite(q.xpos_scale_base)) {
    throw InvalidArgument(error_msg("{0} must be a finite number > 0 (got {1})", option_name("xpos-scale-base"),
                                    format_number(q.xpos_scale_base)));
  }
  // xPos as apply and decay take it: plain RoPE's frequencies, float64; refused before any trial runs.
  if (q.xpos && q.any_model()) {
    throw InvalidArgument(error_msg("{0} applies to plain RoPE: leave out {1}, {2} and {3}", option_name("xpos"),
                                    option_name("model"), option_name("config"), option_name("scaling")));
  }
  if (q.xpos && q.dtype && *q.dtype != DType::F64) {
    throw InvalidArgument(
        error_msg("{0} is checked in float64: leave out {1}", option_name("xpos"), option_name("dtype")));
  }
  const VerifyVectors* vectors = q.settings.vectors.get();
  VerifyRequest asked = q;
  if (vectors) {
    // d from the user's vectors; with a model they must be its rotated channels.
    const auto d = static_cast<int>(vectors->q.rows());
    if (q.dim && *q.dim != d) {
      throw InvalidArgument(
          error_msg("{0} {1} does not match the {2} numbers per vector of q and k: leave out {3} "
                    "or give vectors of length {4}",
                    option_name("dim"), *q.dim, d, option_name("dim"), *q.dim));
    }
    if (!q.any_model()) asked.dim = d;
    if (vectors->at) {  // each pair once at the given positions, whose largest bounds the tolerance's budget (M13)
      for (const double p : *vectors->at) {
        if (!(p >= 0 && p < kMaxVerifyPosition && p == std::floor(p))) {
          throw InvalidArgument(error_msg("{0} must be integers between 0 and {1} (got {2})", option_name("positions"),
                                          format_number(kMaxVerifyPosition - 1), format_number(p)));
        }
      }
      asked.settings.trials = vectors->pairs();
      asked.settings.max_position = std::max({(*vectors->at)[0], (*vectors->at)[1], (*vectors->at)[2]}) + 1;
    }
  }
  VerifyRun run;
  run.dtype = q.dtype;
  run.xpos_scale_base = q.xpos_scale_base;
  run.from_file = !q.source.file.empty();
  VerifySettings settings = asked.settings;
  if (q.dtype) settings.dtype = *q.dtype;
  // With a scaling, a config or a model, its scaled frequencies: the identities hold for any frequencies, so they
  // must pass too. The model's own layout (models/rope_spec.hpp) unless one is given.
  run.rope = resolve_for(asked);
  const ModelRope& rope = run.rope;
  if (vectors && vectors->q.rows() != rope.spec.rotary_dim) {
    throw InvalidArgument(
        error_msg("q and k hold {0} numbers per vector, and the model rotates {1} channels: give "
                  "vectors of {2} numbers (the rotated channels of a head)",
                  vectors->q.rows(), rope.spec.rotary_dim, rope.spec.rotary_dim));
  }
  settings.dim = rope.spec.rotary_dim;
  settings.base = rope.spec.config.base;
  settings.layout = rope.spec.layout;
  if (!rope.plain) settings.inv_freq = rope.spec.params.inv_freq;
  if (q.strategy) {
    if (!q.dtype || *q.dtype == DType::F64) {
      throw InvalidArgument(error_msg("{0} needs {1} f32, f16 or bf16: float64 has one way to compute the angles",
                                      option_name("strategy"), option_name("dtype")));
    }
    settings.strategy = *q.strategy;
  }
  run.report = run_trials(settings, q.watch);
  VerifyReport& report = run.report;
  // docs/multi-axis.md: with multimodal sections, the identities per axis (A5)-(A7), in float64.
  // Under a dtype f32/f16/bf16 they are left out, and the table says so (axes_left_out).
  run.axes_left_out = !rope.plain && rope.spec.axes && q.dtype && *q.dtype != DType::F64;
  if (!rope.plain && rope.spec.axes && !report.interrupted && !run.axes_left_out) {
    for (IdentityResult& r : verify_axes(rope.spec, settings.trials, settings.max_position, settings.seed, vectors)) {
      report.identities.push_back(std::move(r));
    }
  }
  // docs/multi-axis.md §5: with xPos, the identities of xPos (X3), (X4) in float64, and RoPE's plain relative
  // identity (M8) as the contrast that must fail once the scale is there.
  if (q.xpos && !report.interrupted) {
    const Eigen::VectorXd theta = settings.inv_freq ? *settings.inv_freq : frequencies(settings.dim, settings.base);
    XposIdentities x = verify_xpos(theta, settings.layout, q.xpos_scale_base, settings.trials, settings.max_position,
                                   settings.seed, vectors);
    for (IdentityResult& r : x.rows) report.identities.push_back(std::move(r));
    run.xpos_contrast = std::move(x.contrast);
  }
  const VerifySettings& s = report.settings;
  const bool low = !s.dense && (s.dtype == DType::F16 || s.dtype == DType::BF16) && s.strategy != Strategy::CastInputs;
  // The contrast searches the max-position from which the low type fails: none to search at given positions.
  if (low && !report.interrupted && !(vectors && vectors->at)) {
    run.cast_inputs = cast_inputs_contrast(s);
    run.cast_inputs->row.name = fmt::format("all-{} (contrast)", to_string(s.dtype));
    run.cast_inputs->row.name_text = msg("all-{0} (contrast)", to_string(s.dtype));
    run.cast_inputs->row.expected_to_fail = true;
  }
  return run;
}

}  // namespace rope
