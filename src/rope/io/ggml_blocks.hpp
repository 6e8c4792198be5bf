/// @file
/// ggml's tensor types as a GGUF file stores them, and their decoders to float: F32, F16, BF16 and the
/// quantized blocks Q8_0, Q4_0, Q4_K and Q6_K, dequantized as ggml does (ggml-org/llama.cpp at de3ff815ea7d, the
/// conformance tier's copy: ggml/src/ggml-common.h for the block layouts block_q8_0, block_q4_0, block_q4_K,
/// block_q6_K; ggml/src/ggml-quants.c dequantize_row_q8_0, dequantize_row_q4_0, dequantize_row_q4_K with
/// get_scale_min_k4, dequantize_row_q6_K; ggml/include/ggml.h enum ggml_type for the numbers). A Q4_K_M file mixes
/// Q4_K and Q6_K tensors; each tensor has one type.
///
/// A decoder reads exactly the bytes it is given (ggml_row_bytes of the row) and nothing else; every bit
/// pattern decodes to a number (NaN and infinities of a float16 scale included), so a reader needs no more
/// checks than the byte count. tests/fuzz/fuzz_weights.cpp runs them on arbitrary bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rope {

/// ggml.h enum ggml_type, the types rope decodes.
enum class GgmlType : std::uint32_t { F32 = 0, F16 = 1, Q4_0 = 2, Q8_0 = 8, Q4_K = 12, Q6_K = 14, BF16 = 30 };

/// The type of ggml number `type` when rope decodes it.
std::optional<GgmlType> ggml_type(std::uint32_t type);
/// "F32", "Q4_K", … as gguf-py's GGMLQuantizationType names them; "type N" for another number.
std::string ggml_type_name(std::uint32_t type);
/// Elements per block: 1 (F32, F16, BF16), 32 (Q8_0, Q4_0), 256 (Q4_K, Q6_K).
long ggml_block_elements(GgmlType type);
/// Bytes per block: 4, 2, 2, 34, 18, 144, 210.
long ggml_block_bytes(GgmlType type);
/// Bytes of a row of `n` elements, nullopt unless n >= 0 is a whole number of blocks.
std::optional<std::uint64_t> ggml_row_bytes(GgmlType type, long n);

/// Decodes `n` elements (a whole number of blocks) of `type` from `data`, which holds ggml_row_bytes(type, n)
/// bytes, little endian, into `out`.
void ggml_decode(GgmlType type, const unsigned char* data, long n, float* out);

}  // namespace rope
