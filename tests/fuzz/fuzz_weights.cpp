// libFuzzer target over the readers of rope weights (rope/io/weights_file.hpp, rope/io/ggml_blocks.hpp): the first
// byte chooses the reader, the rest is its input. 0: a model.safetensors.index.json; 1: a safetensors header
// (its buffer the rest of the input's length); 2–8: ggml's block decoders (F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q6_K)
// on the whole blocks of the rest; 9: a GGUF file's tensor directory as the weights reader takes it
// (gguf_weight_tensors: every tensor's bytes inside the file); 10: a sharded checkpoint, several files in one input
// (a 2-byte little-endian length and the index, then per shard its index_shards order a 4-byte length and the
// shard's bytes), joined as open_weights joins them (join_shards). Any bytes either read or give InvalidArgument with
// one line that starts with the file name; a decoder reads only the bytes of its blocks. Anything else (another
// exception, a crash, a sanitizer report, a hang) is a bug.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "rope/core/error.hpp"
#include "rope/io/ggml_blocks.hpp"
#include "rope/io/gguf.hpp"
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

std::uint64_t fuzz_weights_le(std::string_view b, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = n; i-- > 0;) v = (v << 8) | static_cast<unsigned char>(b[i]);
  return v;
}

/// Mode 10: the index, then each shard it names; a shard's header as safetensors_file_tensors reads a file's.
void fuzz_sharded(std::string_view rest) {
  if (rest.size() < 2) return;
  const std::size_t n = fuzz_weights_le(rest, 2);
  if (n > rest.size() - 2) return;
  const auto map = rope::parse_safetensors_index(rest.substr(2, n), "index.json");
  std::string_view files = rest.substr(2 + n);
  std::vector<std::vector<rope::WeightTensor>> shards;
  for (const std::string& shard : rope::index_shards(map)) {
    (void)shard;
    std::string_view bytes;
    if (files.size() >= 4) {
      const std::size_t len = std::min<std::size_t>(fuzz_weights_le(files, 4), files.size() - 4);
      bytes = files.substr(4, len);
      files.remove_prefix(4 + len);
    }
    const std::string name = "shard-" + std::to_string(shards.size());
    if (bytes.size() < 8 || fuzz_weights_le(bytes, 8) > bytes.size() - 8) {  // the file reader refuses it first
      shards.emplace_back();
      continue;
    }
    const std::uint64_t h = fuzz_weights_le(bytes, 8);
    shards.push_back(rope::parse_safetensors_tensors(bytes.substr(8, static_cast<std::size_t>(h)), 8 + h,
                                                     bytes.size() - 8 - h, shards.size(), name));
  }
  const auto tensors = rope::join_shards(map, std::move(shards), "index.json");
  for (const auto& [tensor, file] : map) {
    bool found = false;
    for (const rope::WeightTensor& t : tensors) found = found || t.name == tensor;
    if (!found) std::abort();  // join_shards promised every tensor of the weight_map
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  const unsigned mode = data[0] % 11;
  try {
    if (mode == 9) {
      const rope::GgufFile g = rope::parse_gguf(rest, "model.gguf");
      for (const rope::WeightTensor& t : rope::gguf_weight_tensors(g, "model.gguf")) {
        if (t.decodable && (t.offset > rest.size() || t.bytes > rest.size() - t.offset)) std::abort();
      }
    } else if (mode == 10) {
      fuzz_sharded(rest);
    } else if (mode == 0) {
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
    const std::string_view what = e.what();
    check_message(e, mode == 9                                    ? "model.gguf"
                     : mode == 10 && what.rfind("shard-", 0) == 0 ? "shard-"
                     : mode == 0 || mode == 10                    ? "index.json"
                                                                  : "model.safetensors");
  }
  return 0;
}
