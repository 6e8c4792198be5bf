// The expectation of rope check and rope diff from their options (check_options.hpp): the model's RoPE, a layer
// without RoPE, and how the report names the scaling the reference used.
#include "rope/cli/commands/check_options.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "rope/analysis/expectation.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "rope/io/gguf.hpp"

namespace rope::cli {

RopeExpectation expectation_from_options(const CheckOptions& opt, int head_dim, bool per_axis, double max_position,
                                         Message& where) {
  const ModelRope rope = resolve(opt.scaling, {std::nullopt, head_dim, opt.base, kDefaultBase, std::nullopt, Layout::Interleaved});
  if (!rope.plain && rope.spec.axes && rope.spec.axes->vision() && !per_axis) {
    throw InvalidArgument(error_msg("a vision tower's 2-D RoPE turns each patch by its (row, column): give --axis-positions FILE with "
                          "a row ROW,COL per sequence index, or check the tower's rotation with rope apply --position ROW,COL"));
  }
  // The library's one construction (analysis/expectation.hpp), shared with the Python module.
  ExpectationRequest q;
  q.head_dim = head_dim;
  q.from_model = !opt.scaling.source.file.empty() || !opt.scaling.source.preset.empty();
  q.vision = !opt.scaling.rope.vision.empty();
  q.gguf = !opt.scaling.source.file.empty() && is_gguf_file(opt.scaling.source.file);
  q.angles = opt.angles;
  q.layout = opt.layout;
  q.max_position = max_position;
  RopeExpectation e = expectation_from_rope(rope, q);
  // --query: Ministral 3 and Mistral 4 multiply the query by s(p) (S21) after RoPE, on every layer (HF
  // get_llama_4_attn_scale in Ministral3Attention.forward); keys are not scaled.
  if (opt.query && !opt.scaling.source.any()) {
    throw InvalidArgument(error_msg("--query scales a query as a model's attention does: give --model or --config"));
  }
  if (opt.query && rope.model.query_scaling) {
    e.query_beta = rope.model.query_scaling->beta;
    e.query_original = rope.model.query_scaling->original;
  }
  if (opt.layout) {
    where = Message::same("--layout");
  } else if (!rope.plain && q.from_model) {
    where = msg("the model's class");
  } else if (!rope.plain && q.vision) {
    where = Message::same(fmt::format("--vision {}", opt.scaling.rope.vision));
  } else {
    where = msg("assumed: Hugging Face's rotate_half; give --layout");
  }
  return e;
}


/// The expectation of a layer without RoPE: d channels, none turning (θ_i = 0 for every pair), attention factor 1.
/// The angle model is the source's (float32 for Hugging Face, whose Llama 4 temperature (S20) is float32; ggml for a
/// GGUF), or --angles.
RopeExpectation unchanged_expectation(int head_dim, const CheckOptions& opt, int axis_components) {
  RopeExpectation e;
  if (axis_components > 1) {  // Qwen3.5's linear attention: t,h,w positions that turn nothing (θ = 0, an all-t map)
    std::vector<int> s(static_cast<std::size_t>(axis_components), 0);
    s.front() = head_dim / 2;  // every pair on t
    e.axes = make_axis_map({s, axis_components == 3 ? SectionOrder::Chunked : SectionOrder::GgmlMrope}, head_dim / 2);
  }
  e.angles = opt.angles ? *opt.angles
             : !opt.scaling.source.file.empty() && is_gguf_file(opt.scaling.source.file) ? AngleModel::Ggml
                                                                                         : AngleModel::Float32;
  e.head_dim = head_dim;
  e.theta = Eigen::VectorXd::Zero(head_dim / 2);
  e.error_model = msg("unchanged: the layer has no RoPE");
  return e;
}

std::optional<RopeExpectation> rope_of_other_layers(const CheckOptions& opt, int head_dim, bool per_axis, double max_position) {
  CheckOptions other = opt;
  other.scaling.rope.layer_type.clear();
  try {
    const ModelRope model = resolve(other.scaling, {std::nullopt, head_dim, opt.base, kDefaultBase, std::nullopt, Layout::Interleaved});
    if (!model.layers.empty()) {  // the first layer type that rotates (the default one may be a type without RoPE)
      const auto with_rope =
          std::find_if(model.layers.begin(), model.layers.end(), [](const LayerRope& l) { return l.spec.has_value(); });
      if (with_rope == model.layers.end()) return std::nullopt;
      other.scaling.rope.layer_type = with_rope->type;
    }
    Message where;
    return expectation_from_options(other, head_dim, per_axis, max_position, where);
  } catch (const InvalidArgument&) {  // the model's RoPE does not fit this dump (another head dimension): nothing to compare with
    return std::nullopt;
  }
}

std::string scaling_text(const RopeExpectation& e, bool no_rope, const Text& t) {
  if (no_rope) return t.tr("no RoPE on this layer");
  if (e.scaling.empty() || e.scaling == "default") return t.tr("none (default RoPE)");
  return e.scaling;
}

}  // namespace rope::cli
