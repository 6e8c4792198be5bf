/// @file
/// The work of resolve_model_rope counted (resolve.hpp): how many resolutions this process has made, so that a test
/// bounds a command's work by it (a check run resolves its model once, whatever the number of layer types).
#pragma once

namespace rope {

/// The resolutions (resolve_model_rope) this process has made.
long model_resolutions();

}  // namespace rope
