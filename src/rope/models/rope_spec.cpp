#include "rope/models/rope_spec.hpp"

#include <array>
#include <cmath>
#include <fmt/format.h>

#include "rope/core/apply.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/core/rotation.hpp"
#include "rope/models/families/family_table.hpp"
#include "rope/core/message_context.hpp"
#include "rope/models/grid_rope.hpp"
#include "rope/models/layout_term.hpp"
#include "rope/models/vision_rope.hpp"

// The layouts are those of each family's HF modeling code, as data/families.json records them with the
// file they come from (family_table.hpp).

namespace rope {

std::optional<Layout> family_layout(std::string_view t) {
  const ModelFamily* family = find_model_family(t);
  return family ? family->layout : std::nullopt;
}

RopeSpec make_spec(const ModelConfig& model) {
  RopeSpec s;
  s.name = model.name;
  s.model_type = model.model_type;
  s.config = model.rope;
  s.params = rope_parameters(model.rope);
  s.rotary_dim = static_cast<int>(2 * s.params.inv_freq.size());
  s.original = frequencies(s.rotary_dim, model.rope.base);
  s.layout = model.rope.layout;
  s.layout_basis = model.layout_basis;
  s.layout_reason = model.layout_reason;
  s.origin = model.origin;
  s.layer_type = model.layer_type;
  for (const LayerTypeRope& lt : model.layer_types) {
    if (lt.name == model.layer_type) s.layers = lt.layers;
  }
  s.notes = model.notes;
  if (model.mrope) s.axes = make_axis_map(*model.mrope, s.rotary_dim / 2);
  s.fope = model.fope;
  if (model.grid) {
    // A diffusion transformer's latent grid (grid_rope.hpp (G1)–(G4)): its ladders per axis, read through (A1).
    s.params.inv_freq = grid_theta(*model.grid);
    s.params.attention_factor = 1.0;
    s.original = s.params.inv_freq;
    s.rotary_dim = model.grid->head_dim;
    s.axes = grid_axis_map(*model.grid);
    s.head_slices = model.grid->heads;  // (G6): each head its slice of the table
  }
  if (model.vision) {
    // A vision tower (docs/multi-axis.md §6): its own ladder per axis, (V2)-(V5), read through (A1)/(V1).
    const VisionPairs pairs = vision_pairs(*model.vision, s.rotary_dim, model.rope.base);
    s.params.inv_freq = pairs.theta;
    s.original = pairs.theta;
    s.axes = vision_axis_map(pairs);
    s.axis_blocks = pairs.per_block;  // (V6): Gemma 4's layout inside each axis's block
  }
  // The head: the rotating channels, plus the ones that pass through (partial rotary: after them;
  // DeepSeek MLA: qk_nope_head_dim before them, HF's split([qk_nope_head_dim, qk_rope_head_dim])).
  s.rotary_offset = model.qk_nope_head_dim.value_or(0);
  const ModelFamily* family = find_model_family(model.model_type);
  s.deinterleaved_output = family && family->deinterleaved_output && s.layout == Layout::Interleaved;
  s.head_dim =
      model.qk_nope_head_dim ? *model.qk_nope_head_dim + s.rotary_dim : std::max(model.rope.head_dim, s.rotary_dim);
  return s;
}

RopeSpec spec_at_position(const RopeSpec& spec, double m) {
  const ScalingType type = spec.config.type;
  if ((type != ScalingType::LongRope && type != ScalingType::Dynamic) || spec.config.seq_len) return spec;
  check_position(m, "position m");
  RopeSpec s = spec;
  s.config.seq_len = static_cast<long>(std::floor(std::abs(m))) + 1;
  s.params = rope_parameters(s.config);
  s.notes.push_back(
      {msg("seq_len {0} = position + 1, as HF's dynamic update takes max(position_ids) + 1", *s.config.seq_len)});
  return s;
}

void override_layout(RopeSpec& s, Layout layout) {
  const std::string name(to_string(layout));
  if (s.from_model && s.layout_known() && s.layout != layout) {
    s.notes.push_back(msg("{0} {1} overrides the model's {2} layout ({3}): the numbers are not the model's",
                          option_name("layout"), name, layout_term(s.layout), s.layout_reason));
  }
  // A layout given: the pairs in it, written back in place (llama.cpp's order), also where the model's code
  // de-interleaves its output (HF's DeepSeek-V3 with the same interleaved layout).
  s.deinterleaved_output = false;
  s.layout = layout;
  s.config.layout = layout;  // the scaling inputs' copy says the same
  s.layout_basis = LayoutBasis::Flag;
  s.layout_reason = msg("{0} on the command line", option_name("layout"));
  s.origin.push_back(msg("layout: {0} ({1} on the command line)", name, option_name("layout")));
}

Message layout_term(Layout layout) {
  // The catalog holds "interleaved" (交错, M-RoPE's sections) without a context, so the layout's entries have
  // their own (msgctxt "layout"); each id is a literal that scripts/pot.sh extracts (keyword msgc).
  switch (layout) {
    case Layout::Interleaved:
      return msgc("layout", "interleaved");
    case Layout::Half:
      return msgc("layout", "half");
  }
  return Message::same(std::string(to_string(layout)));
}

Message layout_description(const RopeSpec& s) {
  // one sentence per layout, so that a translation names the layout in its own words
  if (s.axis_blocks) {
    return s.layout == Layout::Interleaved
               ? msg("interleaved layout inside each axis's block of d/2 channels ({0})", s.layout_reason)
               : msg("half layout inside each axis's block of d/2 channels ({0})", s.layout_reason);
  }
  return s.layout == Layout::Interleaved ? msg("interleaved layout ({0})", s.layout_reason)
                                         : msg("half layout ({0})", s.layout_reason);
}

PairChannels spec_pair_channels(const RopeSpec& s, int i) {
  if (s.head_slices > 1) return head_slice_pair_channels(s.rotary_dim, i, s.layout, s.head_slices);
  return s.axis_blocks ? axis_block_pair_channels(s.rotary_dim, i, s.layout) : pair_channels(s.rotary_dim, i, s.layout);
}

Layout rotation_layout(const RopeSpec& s) { return s.axis_blocks || s.head_slices > 1 ? Layout::Half : s.layout; }

Eigen::VectorXd to_rotation_order(const RopeSpec& s, const Eigen::VectorXd& x) {
  if (!s.axis_blocks && s.head_slices <= 1) return x;
  const int half = s.rotary_dim / 2;
  Eigen::VectorXd y(x.size());
  for (int i = 0; i < half; ++i) {
    const auto [a, b] = spec_pair_channels(s, i);
    y[i] = x[a];
    y[i + half] = x[b];
  }
  return y;
}

Eigen::VectorXd from_rotation_order(const RopeSpec& s, const Eigen::VectorXd& y) {
  if (!s.axis_blocks && s.head_slices <= 1) return y;
  const int half = s.rotary_dim / 2;
  Eigen::VectorXd x(y.size());
  for (int i = 0; i < half; ++i) {
    const auto [a, b] = spec_pair_channels(s, i);
    x[a] = y[i];
    x[b] = y[i + half];
  }
  return x;
}

int rotary_offset_for(const RopeSpec& s, int n) {
  if (n == s.head_dim) return s.rotary_offset;
  if (n == s.rotary_dim) return 0;
  throw InvalidArgument(error_msg("{0} numbers, but {1} has head_dim {2} of which {3} rotate: give {4} or {5} numbers",
                                  n, s.name, s.head_dim, s.rotary_dim, s.head_dim, s.rotary_dim));
}

Eigen::VectorXd rotary_part(const RopeSpec& s, const Eigen::VectorXd& x) {
  const int offset = rotary_offset_for(s, static_cast<int>(x.size()));
  return x.segment(offset, s.rotary_dim);
}

Eigen::VectorXd spec_output(const RopeSpec& s, const Eigen::VectorXd& x, const Eigen::VectorXd& rotated,
                            bool times_factor) {
  const int offset = rotary_offset_for(s, static_cast<int>(x.size()));
  if (rotated.size() != s.rotary_dim) {
    throw InvalidArgument(
        error_msg("rotated part has {0} numbers, expected rotary dim {1}", rotated.size(), s.rotary_dim));
  }
  Eigen::VectorXd y = x;
  const int half = s.rotary_dim / 2;
  for (int i = 0; i < s.rotary_dim; ++i) {
    // de-interleaved: channel 2i goes to i, channel 2i+1 to i + d/2
    const int to = s.deinterleaved_output ? (i % 2 == 0 ? i / 2 : half + i / 2) : i;
    y[offset + to] = times_factor ? s.attention_factor() * rotated[i] : rotated[i];
  }
  return y;
}

Eigen::VectorXd spec_apply(const RopeSpec& s, const Eigen::VectorXd& x, double m) {
  const Eigen::VectorXd xr = to_rotation_order(s, rotary_part(s, x));
  return spec_output(s, x, from_rotation_order(s, apply_rotary<double>(xr, s.params.inv_freq, m, rotation_layout(s))));
}

Eigen::MatrixXd spec_matrix(const RopeSpec& s, double m, int n) { return spec_matrix(s, AxisPosition::single(m), n); }

Eigen::VectorXd spec_angles(const RopeSpec& s, const AxisPosition& p) {
  return axis_angles(s.params.inv_freq, s.axes ? &*s.axes : nullptr, p);
}

// The angles φ_j with position 1: apply_rotary and rotation_matrix compute 1·φ_j = φ_j exactly.
Eigen::VectorXd spec_apply(const RopeSpec& s, const Eigen::VectorXd& x, const AxisPosition& p) {
  const Eigen::VectorXd xr = to_rotation_order(s, rotary_part(s, x));
  return spec_output(s, x,
                     from_rotation_order(s, apply_rotary<double>(xr, spec_angles(s, p), 1.0, rotation_layout(s))));
}

Eigen::MatrixXd spec_matrix(const RopeSpec& s, const AxisPosition& p, int n) {
  const int offset = rotary_offset_for(s, n);
  Eigen::MatrixXd r = Eigen::MatrixXd::Identity(n, n);
  const Eigen::MatrixXd block = rotation_matrix<double>(spec_angles(s, p), 1.0, rotation_layout(s));
  // Column j of the block is the rotation of the unit vector e_j; spec_output places it as the model does. With
  // axis blocks (V6) the block acts in rotation order: channel j is column k of it, k = j's place in that order.
  for (int j = 0; j < s.rotary_dim; ++j) {
    Eigen::VectorXd rotated = block.col(j);
    if (s.axis_blocks || s.head_slices > 1) {
      Eigen::VectorXd unit = Eigen::VectorXd::Zero(s.rotary_dim);
      unit[j] = 1.0;
      rotated = from_rotation_order(s, block * to_rotation_order(s, unit));
    }
    Eigen::VectorXd e = Eigen::VectorXd::Zero(n);
    r.col(offset + j) = spec_output(s, e, rotated);
  }
  return r;
}

}  // namespace rope
