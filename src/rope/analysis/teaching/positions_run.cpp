#include "rope/analysis/teaching/positions_run.hpp"

#include <algorithm>

#include "rope/core/error.hpp"
#include "rope/core/invalid_quantity.hpp"
#include "rope/io/csv.hpp"
#include "rope/models/model_config.hpp"

namespace rope {

namespace {

/// The rules of the model's vision_config with what the request types over them, and where each came from;
/// without a model, the request's.
void positions_rules(const PositionsRequest& q, PositionsRun& run) {
  PositionRules& rules = run.rules;
  // The rules between the model and the request (tokens_per_second, a video: resolve.hpp sequence_positions_for).
  if (q.model) {
    const bool has_video = std::any_of(q.segments.begin(), q.segments.end(),
                                       [](const Segment& seg) { return seg.kind == SegmentKind::Video; });
    const SequencePositions s =
        sequence_positions_for(*q.model, has_video, q.tokens_per_second.has_value(), q.frame_text.has_value());
    rules = s.rules;
    run.origin = s.origin;
    // A typed value replaces the config's line, saying so.
    if (q.merge_size && *q.merge_size != rules.spatial_merge_size) {
      run.origin[0] = msg("spatial_merge_size: {0} ({1} on the command line, over the config's {2})", *q.merge_size,
                          option_name("merge_size"), rules.spatial_merge_size);
    }
    if (q.tokens_per_second && *q.tokens_per_second != *rules.tokens_per_second) {
      const std::string typed = format_number(*q.tokens_per_second), own = format_number(*rules.tokens_per_second);
      run.origin[1] = msg("tokens_per_second: {0} ({1} on the command line, over the config's {2})", typed,
                          option_name("tokens_per_second"), own);
    }
  }
  if (!q.model || q.merge_size) rules.spatial_merge_size = q.merge_size.value_or(2);
  if (q.tokens_per_second) rules.tokens_per_second = q.tokens_per_second;
  if (q.second_per_grid && (rules.xdrope || rules.pangu)) {
    throw InvalidArgument(error_msg("{0}: {1} ({2}) has no seconds per grid: its position ids read no video time",
                                    option_name("second_per_grid"), q.model->spec.name,
                                    sequence_positions_of(*q.model).family));
  }
  if (q.second_per_grid && !rules.tokens_per_second) {
    throw InvalidArgument(error_msg("{0} scales video time (Qwen2.5-VL): give it with {1}",
                                    option_name("second_per_grid"), option_name("tokens_per_second")));
  }
  rules.second_per_grid = q.second_per_grid.value_or(1.0);
  rules.frame_text = q.frame_text;
  if (q.bailing) rules.bailing = true;
}

}  // namespace

PositionsRun run_positions(const PositionsRequest& request) {
  PositionsRun run;
  run.request = request;
  if (request.latent) {  // a diffusers transformer's latent grid (grid_rope.hpp)
    if (!request.model || !request.model->model.grid) {
      throw InvalidArgument(
          error_msg("{0} needs a diffusers transformer's config or preset (its _class_name one of "
                    "WanTransformer3DModel, FluxTransformer2DModel, Flux2Transformer2DModel, "
                    "QwenImageTransformer2DModel, HunyuanVideoTransformer3DModel, "
                    "LTXVideoTransformer3DModel, CosmosTransformer3DModel, Cosmos3OmniTransformer, "
                    "LTX2VideoTransformer3DModel)",
                    option_name(request.latent->audio ? "audio_frames" : "latent_shape")));
    }
    run.origin = request.model->spec.origin;
    run.grid = grid_positions(*request.model->model.grid, *request.latent);
    run.prefill = run.grid->tokens.size();
    return run;
  }
  positions_rules(request, run);
  try {
    if (run.rules.xdrope) {  // (X1), (X2): p is the index, no rope_deltas
      run.streams = xdrope_index(request.segments, run.rules.spatial_merge_size);
      run.prefill = run.streams.size();
      if (request.decode) {
        const auto decoded = xdrope_decode(run.prefill, run.streams.back().segment + 1, *request.decode);
        run.streams.insert(run.streams.end(), decoded.begin(), decoded.end());
      }
      return run;
    }
    run.ids = rope_index(request.segments, run.rules);
  } catch (const InvalidQuantity& e) {
    // A config's values are checked when it is read, so a rule out of range here is one the request typed.
    const std::pair<const char*, const char*> settings[] = {{"the spatial merge size", "merge_size"},
                                                            {"tokens per second", "tokens_per_second"},
                                                            {"seconds per grid", "second_per_grid"}};
    for (const auto& [quantity, setting] : settings) {
      if (e.quantity() == quantity) throw InvalidArgument(option_name(setting) + " " + e.rule());
    }
    throw InvalidArgument(e.what());
  }
  run.prefill = run.ids.size();
  run.delta = rope_delta(run.ids, run.rules);
  if (request.decode) {  // (Q5): the decode steps after the prefill, at index + rope_deltas
    const std::vector<TokenPosition> decoded = decode_positions(run.ids, *request.decode, run.rules);
    run.ids.insert(run.ids.end(), decoded.begin(), decoded.end());
  }
  return run;
}

}  // namespace rope
