// libFuzzer target over the GGUF reader and its mapping to a model (rope/io/gguf.hpp,
// rope/models/gguf/gguf_config.hpp): any bytes either give a model whose frequencies can be computed, or
// InvalidArgument with one line that starts with the file name; anything else (another exception, a
// crash, a sanitizer report, a hang, memory beyond the limits) is a bug.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "rope/core/error.hpp"
#include "rope/io/gguf.hpp"
#include "rope/models/gguf/gguf_config.hpp"
#include "rope/models/scaling/scaling.hpp"

namespace {

void check_message(const rope::InvalidArgument& e) {
  const std::string_view message = e.what();
  if (message.rfind("model.gguf: ", 0) != 0 || message.find('\n') != std::string_view::npos) {
    std::fprintf(stderr, "message does not start with the file name or is not one line: %s\n", e.what());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  rope::GgufModel g;
  try {
    g = rope::gguf_model(rope::parse_gguf(bytes, "model.gguf", rope::gguf_rope_tensor_names()));
  } catch (const rope::InvalidArgument& e) {
    check_message(e);
    return 0;
  }
  if (g.rotary_dim < 2 || g.rotary_dim > g.head_dim) std::abort();
  try {
    const rope::RopeParameters p = rope::rope_parameters(g.model.rope);
    for (Eigen::Index i = 0; i < p.inv_freq.size(); ++i) {
      if (!(p.inv_freq[i] >= 0)) std::abort();  // NaN or negative frequency from an accepted file
    }
  } catch (const rope::InvalidArgument&) {
    // a contradiction only the computation finds (e.g. a base <= 1): reported to the user the same way
  }
  return 0;
}
