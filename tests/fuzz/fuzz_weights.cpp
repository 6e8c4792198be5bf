// libFuzzer target over the readers of rope weights (rope/io/weights_file.hpp, rope/io/ggml_blocks.hpp): the first
// byte chooses the reader, the rest is its input. 0: a model.safetensors.index.json; 1: a safetensors header
// (its buffer the rest of the input's length); 2–8: ggml's block decoders (F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q6_K)
// on the whole blocks of the rest. Any bytes either read or give InvalidArgument with one line that starts with the
// file name; a decoder reads only the bytes of its blocks. Anything else (another exception, a crash, a sanitizer
// report, a hang) is a bug.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "rope/core/error.hpp"
#include "rope/io/ggml_blocks.hpp"
#include "rope/io/weights_file.hpp"

namespace {

void check_message(const rope::InvalidArgument& e, std::string_view name) {
  const std::string_view message = e.what();
  if (message.rfind(name, 0) != 0 || message.find('\n') != std::string_view::npos) {
    std::fprintf(stderr, "message does not start with the file name or is not one line: %s\n", e.what());
    std::abort();
  }
}

constexpr rope::GgmlType kTypes[] = {rope::GgmlType::F32,  rope::GgmlType::F16,  rope::GgmlType::BF16,
                                     rope::GgmlType::Q8_0, rope::GgmlType::Q4_0, rope::GgmlType::Q4_K,
                                     rope::GgmlType::Q6_K};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  const unsigned mode = data[0] % 9;
  try {
    if (mode == 0) {
      const auto map = rope::parse_safetensors_index(rest, "index.json");
      if (map.empty()) std::abort();
    } else if (mode == 1) {
      for (const auto& t :
           rope::parse_safetensors_tensors(rest, 8 + rest.size(), rest.size(), 0, "model.safetensors")) {
        if (t.offset < 8 + rest.size() || t.offset - 8 - rest.size() + t.bytes > rest.size()) std::abort();
      }
    } else {
      const rope::GgmlType type = kTypes[mode - 2];
      const long block = rope::ggml_block_elements(type);
      const long blocks = static_cast<long>(rest.size()) / rope::ggml_block_bytes(type);
      // An exact copy of the blocks, so that AddressSanitizer sees a read past them.
      const std::vector<unsigned char> bytes(rest.begin(), rest.begin() + blocks * rope::ggml_block_bytes(type));
      std::vector<float> out(static_cast<std::size_t>(blocks * block));
      rope::ggml_decode(type, bytes.data(), blocks * block, out.data());
    }
  } catch (const rope::InvalidArgument& e) {
    check_message(e, mode == 0 ? "index.json" : "model.safetensors");
  }
  return 0;
}
