// libFuzzer target over the tensor readers (rope/io/tensor_file.hpp): the first byte picks the reader (npy,
// safetensors, csv) and --bf16-bits, the rest is the file. Any bytes either parse into a tensor whose value
// count is the product of its shape (at most kMaxTensorElements), or give InvalidArgument with one line
// starting with the file name; anything else (another exception, a crash, a read past the input under
// ASan, a hang) is a bug. A first byte with its top bit set picks rope check's --axis-positions reader
// (models/axes.hpp parse_axis_position_rows) instead: rows of 1 … 4 finite components, all of the first
// row's length, at most the row limit, or one line of InvalidArgument starting with the file name. A first
// byte 0x40 … 0x7f picks the torch.save reader (io/torch_file.hpp): the listing of every tensor, then the
// tensor "q" (or the only one) read through its view, integers allowed with bit 2.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "rope/core/error.hpp"
#include "rope/io/tensor_file.hpp"
#include "rope/io/torch_file.hpp"
#include "rope/models/axes.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const int selector = data[0];
  // A copy of exactly the input bytes, so that ASan sees any read past the end.
  const std::string bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  rope::TensorReadOptions options;
  options.bf16_bits = (selector & 4) != 0;
  if (selector & 8) options.tensor = "q";
  if (selector & 0x80) {
    constexpr std::size_t kRows = 1000;
    try {
      const std::vector<rope::AxisPosition> rows = rope::parse_axis_position_rows(bytes, "positions", kRows);
      if (rows.empty() || rows.size() > kRows) std::abort();
      for (const rope::AxisPosition& p : rows) {
        if (p.count < 1 || p.count > rope::kMaxAxes || p.count != rows.front().count) std::abort();
        for (int k = 0; k < p.count; ++k) {
          if (!std::isfinite(p.value[static_cast<std::size_t>(k)])) std::abort();
        }
      }
    } catch (const rope::InvalidArgument& e) {
      const std::string_view message = e.what();
      if (message.rfind("positions", 0) != 0 || message.find('\n') != std::string_view::npos) {
        std::fprintf(stderr, "message does not start with the file name or is not one line: %s\n", e.what());
        std::abort();
      }
    }
    return 0;
  }
  rope::TensorData t;
  try {
    if (selector & 0x40) {
      options.integers = (selector & 4) != 0;
      const std::vector<rope::TorchTensorInfo> listed = rope::list_torch_tensors(bytes, "dump");
      if (static_cast<long>(listed.size()) > rope::kMaxTorchTensors) std::abort();
      t = rope::parse_torch(bytes, "dump", options);
    } else {
      switch (selector % 3) {
        case 0:
          t = rope::parse_npy(bytes, "dump", options);
          break;
        case 1:
          t = rope::parse_safetensors(bytes, "dump", options);
          break;
        default:
          t = rope::parse_csv_tensor(bytes, "dump");
          break;
      }
    }
  } catch (const rope::InvalidArgument& e) {
    const std::string_view message = e.what();
    if (message.rfind("dump", 0) != 0 || message.find('\n') != std::string_view::npos) {
      std::fprintf(stderr, "message does not start with the file name or is not one line: %s\n", e.what());
      std::abort();
    }
    return 0;
  }
  long count = 1;
  for (const long dim : t.shape) count *= dim;
  if (count != t.size() || count > rope::kMaxTensorElements) std::abort();
  return 0;
}
