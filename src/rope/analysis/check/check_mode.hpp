/// @file
/// The modes of `rope check` beyond the forward pass (docs/check.md "Modes: the backward and the shifted cache"):
///
///  - grad: the dump before is the upstream gradient g = ∂L/∂y of y = s(p)·a·R(m)·x, the dump after the gradient the
///    kernel returned for x. Its exact value is the transpose of the forward's linear map,
///
///        ∂L/∂x = s(p)·a·R(m)ᵀ·g = s(p)·a·R(−m)·g,  pass-through channels: s(p)·g                       (G1)
///
///    (R(m) is a rotation, so R(m)ᵀ = R(−m): the same pairs, sin's sign flipped), with the spec, positions, layouts and
///    the tolerance (C1) of the forward check (R(−m)'s angle error is R(m)'s: (C1) depends on |m| alone).
///  - shift: the dump before is a K cache, the dump after that cache shifted in place by δ (llama.cpp's context shift,
///    `llama_memory_seq_add`): every key turns by the same δ, with the model's frequencies and no magnitude factor,
///
///        k′ = R(δ)·k,  pass-through channels unchanged                                                  (H1)
///
///    since the cached key already carries the attention factor a (YaRN's magnitude) from its forward pass: a·R(m)·x
///    turned by R(δ) is a·R(m + δ)·x. The check is the forward check at position δ for every key, with a = 1.
///  - shift-map: the dump before is a K cache, the dump after that cache with each key moved from its old position to
///    its new one (KV eviction with compaction: vLLM RFC #57672, VeloxQuant's rope_remap_positions), each its own δ:
///
///        k′_i = R(new_i − old_i)·k_i,  pass-through channels unchanged                                   (H2)
///
///    (H1) with a δ per key: the forward check at position δ_i = new_i − old_i for key i, with a = 1. --shift δ is
///    the map whose every row is (p, p + δ).
#pragma once

#include <vector>

namespace rope {

enum class CheckMode {
  Forward,   ///< the dump after is RoPE of the dump before (the default)
  Grad,      ///< the dump after is the gradient of the input, the dump before the upstream gradient (G1)
  Shift,     ///< the dump after is the K cache before turned by δ (H1)
  ShiftMap,  ///< the dump after is the K cache before, key i turned by its own δ_i = new_i − old_i (H2)
};

/// "forward", "grad", "shift", "shift-map" (the JSON's `mode`).
const char* to_string(CheckMode mode);

/// A failing gradient that no forward row explains, measured once for the rows a gradient's own diagnosis finds
/// (heads or channels 0, never written, or another head's; the whole output 0): each failing group (batch × heads)
/// compared with 0 and with the group (g + k) mod groups for k = 1 … 16, and where every group fails, the channels that
/// fail.
struct GradientParts {
  long groups = 0;
  std::vector<long> failing;  ///< the groups that fail
  std::vector<long> zeroed;   ///< of those, the groups that are 0
  std::vector<long> crossed;  ///< of those, the groups that hold another group's gradient
  std::vector<long> from;     ///< the group each crossed one reads
  bool zero_passes = false;   ///< the whole dump is 0
  long offset = 0;            ///< every group g reads group (g + offset) mod groups; 0: no one offset
  int channel = -1;           ///< every group fails on channels channel … channel + channels − 1 alone; −1: not
  int channels = 0;
  bool channels_zero = false;  ///< those channels are 0
};

}  // namespace rope
