// ggml's block decoders (ggml_blocks.hpp), from ggml-org/llama.cpp at de3ff815ea7d (the conformance tier's
// source, scripts/install-llama.sh): ggml/src/ggml-common.h (block_q4_0: half d, 16 bytes of nibbles; block_q8_0:
// half d, 32 int8; block_q4_K: half d, half dmin, 12 bytes of 6-bit scales and mins, 128 bytes of nibbles;
// block_q6_K: 128 bytes of low nibbles ql, 64 bytes of high bit pairs qh, 16 int8 scales, half d) and
// ggml/src/ggml-quants.c (dequantize_row_q4_0, dequantize_row_q8_0, get_scale_min_k4 and dequantize_row_q4_K,
// dequantize_row_q6_K). The arithmetic is ggml's, in float, in the same order, so the values are ggml's bit for
// bit; tests/io/test_ggml_blocks.cpp holds them to gguf-py's dequantizer (gguf-py/gguf/quants.py).
#include "rope/io/ggml_blocks.hpp"

#include <cstring>
#include <fmt/format.h>

namespace rope {

namespace {

/// IEEE binary16 to float, exactly (subnormals, infinities and NaN included).
float ggml_half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1Fu;
  std::uint32_t mantissa = h & 0x3FFu;
  std::uint32_t bits = 0;
  if (exponent == 0x1F) {
    bits = sign | 0x7F800000u | (mantissa << 13);
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa != 0) {  // subnormal: normalise
    std::uint32_t e = 113;
    while ((mantissa & 0x400u) == 0) {
      mantissa <<= 1;
      --e;
    }
    bits = sign | (e << 23) | ((mantissa & 0x3FFu) << 13);
  } else {
    bits = sign;
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

std::uint16_t ggml_u16(const unsigned char* p) { return static_cast<std::uint16_t>(p[0] | (p[1] << 8)); }

float ggml_half_at(const unsigned char* p) { return ggml_half_to_float(ggml_u16(p)); }

/// ggml-quants.c get_scale_min_k4.
void scale_min_k4(int j, const unsigned char* q, std::uint8_t& d, std::uint8_t& m) {
  if (j < 4) {
    d = q[j] & 63;
    m = q[j + 4] & 63;
  } else {
    d = static_cast<std::uint8_t>((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
    m = static_cast<std::uint8_t>((q[j + 4] >> 4) | ((q[j - 0] >> 6) << 4));
  }
}

void decode_q4_0(const unsigned char* b, float* y) {  // 18 bytes, 32 values
  const float d = ggml_half_at(b);
  const unsigned char* qs = b + 2;
  for (int j = 0; j < 16; ++j) {
    const int x0 = (qs[j] & 0x0F) - 8;
    const int x1 = (qs[j] >> 4) - 8;
    y[j] = static_cast<float>(x0) * d;
    y[j + 16] = static_cast<float>(x1) * d;
  }
}

void decode_q8_0(const unsigned char* b, float* y) {  // 34 bytes, 32 values
  const float d = ggml_half_at(b);
  for (int j = 0; j < 32; ++j) y[j] = static_cast<float>(static_cast<std::int8_t>(b[2 + j])) * d;
}

void decode_q4_k(const unsigned char* b, float* y) {  // 144 bytes, 256 values
  const float d = ggml_half_at(b);
  const float min = ggml_half_at(b + 2);
  const unsigned char* scales = b + 4;
  const unsigned char* q = b + 16;
  int is = 0;
  std::uint8_t sc = 0, m = 0;
  for (int j = 0; j < 256; j += 64) {
    scale_min_k4(is + 0, scales, sc, m);
    const float d1 = d * sc;
    const float m1 = min * m;
    scale_min_k4(is + 1, scales, sc, m);
    const float d2 = d * sc;
    const float m2 = min * m;
    for (int l = 0; l < 32; ++l) *y++ = d1 * static_cast<float>(q[l] & 0xF) - m1;
    for (int l = 0; l < 32; ++l) *y++ = d2 * static_cast<float>(q[l] >> 4) - m2;
    q += 32;
    is += 2;
  }
}

void decode_q6_k(const unsigned char* b, float* y) {  // 210 bytes, 256 values
  const unsigned char* ql = b;
  const unsigned char* qh = b + 128;
  const auto* sc = reinterpret_cast<const std::int8_t*>(b + 192);
  const float d = ggml_half_at(b + 208);
  for (int n = 0; n < 256; n += 128) {
    for (int l = 0; l < 32; ++l) {
      const int is = l / 16;
      const auto q1 = static_cast<std::int8_t>(((ql[l + 0] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32);
      const auto q2 = static_cast<std::int8_t>(((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32);
      const auto q3 = static_cast<std::int8_t>(((ql[l + 0] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32);
      const auto q4 = static_cast<std::int8_t>(((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32);
      y[l + 0] = d * static_cast<float>(sc[is + 0]) * static_cast<float>(q1);
      y[l + 32] = d * static_cast<float>(sc[is + 2]) * static_cast<float>(q2);
      y[l + 64] = d * static_cast<float>(sc[is + 4]) * static_cast<float>(q3);
      y[l + 96] = d * static_cast<float>(sc[is + 6]) * static_cast<float>(q4);
    }
    y += 128;
    ql += 64;
    qh += 32;
    sc += 8;
  }
}

}  // namespace

std::optional<GgmlType> ggml_type(std::uint32_t type) {
  switch (type) {
    case 0:
    case 1:
    case 2:
    case 8:
    case 12:
    case 14:
    case 30:
      return static_cast<GgmlType>(type);
    default:
      return std::nullopt;
  }
}

std::string ggml_type_name(std::uint32_t type) {
  switch (type) {
    case 0:
      return "F32";
    case 1:
      return "F16";
    case 2:
      return "Q4_0";
    case 3:
      return "Q4_1";
    case 6:
      return "Q5_0";
    case 7:
      return "Q5_1";
    case 8:
      return "Q8_0";
    case 10:
      return "Q2_K";
    case 11:
      return "Q3_K";
    case 12:
      return "Q4_K";
    case 13:
      return "Q5_K";
    case 14:
      return "Q6_K";
    case 24:
      return "I8";
    case 25:
      return "I16";
    case 26:
      return "I32";
    case 27:
      return "I64";
    case 28:
      return "F64";
    case 30:
      return "BF16";
    default:
      return fmt::format("type {}", type);
  }
}

long ggml_block_elements(GgmlType type) {
  switch (type) {
    case GgmlType::Q4_0:
    case GgmlType::Q8_0:
      return 32;
    case GgmlType::Q4_K:
    case GgmlType::Q6_K:
      return 256;
    default:
      return 1;
  }
}

long ggml_block_bytes(GgmlType type) {
  switch (type) {
    case GgmlType::F32:
      return 4;
    case GgmlType::F16:
    case GgmlType::BF16:
      return 2;
    case GgmlType::Q4_0:
      return 18;
    case GgmlType::Q8_0:
      return 34;
    case GgmlType::Q4_K:
      return 144;
    case GgmlType::Q6_K:
      return 210;
  }
  return 1;
}

std::optional<std::uint64_t> ggml_row_bytes(GgmlType type, long n) {
  const long block = ggml_block_elements(type);
  if (n < 0 || n % block != 0) return std::nullopt;
  return static_cast<std::uint64_t>(n / block) * static_cast<std::uint64_t>(ggml_block_bytes(type));
}

void ggml_decode(GgmlType type, const unsigned char* data, long n, float* out) {
  if (n <= 0) return;  // an empty tensor: nothing to decode (its buffers may be null)
  switch (type) {
    case GgmlType::F32:
      std::memcpy(out, data, static_cast<std::size_t>(n) * 4);  // little-endian host (x86-64, aarch64)
      return;
    case GgmlType::F16:
      for (long i = 0; i < n; ++i) out[i] = ggml_half_to_float(ggml_u16(data + 2 * i));
      return;
    case GgmlType::BF16:
      for (long i = 0; i < n; ++i) {
        const std::uint32_t bits = static_cast<std::uint32_t>(ggml_u16(data + 2 * i)) << 16;
        std::memcpy(out + i, &bits, 4);
      }
      return;
    case GgmlType::Q4_0:
      for (long i = 0; i < n / 32; ++i) decode_q4_0(data + 18 * i, out + 32 * i);
      return;
    case GgmlType::Q8_0:
      for (long i = 0; i < n / 32; ++i) decode_q8_0(data + 34 * i, out + 32 * i);
      return;
    case GgmlType::Q4_K:
      for (long i = 0; i < n / 256; ++i) decode_q4_k(data + 144 * i, out + 256 * i);
      return;
    case GgmlType::Q6_K:
      for (long i = 0; i < n / 256; ++i) decode_q6_k(data + 210 * i, out + 256 * i);
      return;
  }
}

}  // namespace rope
