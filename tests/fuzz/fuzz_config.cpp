// libFuzzer target over the config.json reader (rope/models/model_config.hpp): any bytes either parse into a
// model whose frequencies can be computed, or give InvalidArgument with a one-line message; anything else (another
// exception, a crash, a sanitizer report, a hang) is a bug.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "rope/core/error.hpp"
#include "rope/models/model_config.hpp"
#include "rope/models/rope_spec.hpp"
#include "rope/models/scaling/scaling.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  rope::ModelConfig m;
  try {
    m = rope::parse_model_config(text, "config.json");
  } catch (const rope::InvalidArgument& e) {
    const std::string_view message = e.what();
    if (message.rfind("config.json", 0) != 0 || message.find('\n') != std::string_view::npos) {
      std::fprintf(stderr, "message does not start with the file name or is not one line: %s\n", e.what());
      std::abort();
    }
    return 0;
  }
  if (m.rope.head_dim < 2) std::abort();
  try {
    // The frequencies of the model read, as every command computes them next.
    const rope::RopeParameters p = rope::rope_parameters(m.rope);
    for (Eigen::Index i = 0; i < p.inv_freq.size(); ++i) {
      if (!(p.inv_freq[i] >= 0)) std::abort();  // NaN or negative frequency from an accepted config
    }
  } catch (const rope::InvalidArgument&) {
    // a contradiction only the computation finds: reported to the user the same way
  }
  if (m.vision_tower) {
    // --tower vision: the tower's spec, its 2-D map and frequencies (docs/multi-axis.md §6).
    try {
      const rope::RopeSpec s = rope::make_spec(rope::select_vision_tower(m));
      if (!s.axes || s.axes->pair_axis.size() != static_cast<std::size_t>(s.params.inv_freq.size())) std::abort();
      for (Eigen::Index i = 0; i < s.params.inv_freq.size(); ++i) {
        if (!(s.params.inv_freq[i] > 0)) std::abort();
      }
    } catch (const rope::InvalidArgument&) {
      // a head_dim the 2-D maps cannot take (not a multiple of 4, too large): exit 2 for the user
    }
  }
  return 0;
}
