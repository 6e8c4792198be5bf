/// @file
/// A model's RoPE in a report's words (report/text.hpp), as the headers of rope verify, apply, matrix and others
/// print it: the layout's name, the layout of the RoPE used, (the layer type a model's RoPE was taken from:
/// rope_text.hpp's layer_text).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "rope/core/types.hpp"
#include "rope/models/resolve.hpp"
#include "rope/models/rope_spec.hpp"
#include "rope/report/rope_text.hpp"

namespace rope {

class Text;  // report/text.hpp

/// "interleaved" or "half", and in Chinese the kind of pairing ("interleaved pairing" or "half-split pairing" in the
/// catalog) before it: the name users type stays.
std::string layout_name(Layout layout, const Text& t);

/// The layout for a header: plain RoPE "interleaved layout"; a model's "half layout (model family llama)".
std::string layout_text(const ModelRope& rope, const Text& t);

/// layer_text: report/rope_text.hpp.

/// What a command that works on whole heads (attention, decay) says about the spec it used, one line
/// each: the head and its rotating channels, the layout and how it is known, the scaling and the
/// attention factor a (scores × a²), and a model's NoPE layers (no rotation; the query temperature (S20)).
/// Every front end prints a model's RoPE with it.
std::vector<std::string> spec_summary(const ModelRope& rr, const Text& t);

/// Prints `lines` (spec_summary's) indented by two spaces, each wrapped at 100 columns (printing.hpp wrap_lines).
void print_summary(std::ostream& out, const std::vector<std::string>& lines);

}  // namespace rope
