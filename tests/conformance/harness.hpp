// What the conformance tier's two harnesses share (ggml_rope_cases.cpp: the rope kernels; llama_pipeline.cpp:
// libllama's tiny models): .npy output, the CPU backend of the prebuilt libraries, GGUF metadata written with
// ggml's gguf API, and Llama 3.1's per-pair factors as llama.cpp's converter computes them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gguf.h"

namespace rope_conformance {

/// A .npy file (format version 1.0) in C order: `descr` "<f4" or "<i4", `bytes` of data, its shape.
void write_npy(const std::string& path, const char* descr, const void* data, std::size_t bytes,
               const std::vector<std::int64_t>& shape);

/// Loads the CPU backend: `variant` (a libggml-cpu-*.so path) when not empty, else the best variant of `libdir`
/// (FMA on most machines; libggml-cpu-x64.so is the portable one without FMA, whose last bits differ).
/// false, after one line on stderr, when none loads.
bool load_cpu_backend(const std::string& libdir, const std::string& variant);

/// Llama 3.1's per-pair factors as convert_hf_to_gguf.py computes them (conversion/llama.py:298-326).
std::vector<float> llama3_factors(int dim, double base, double factor, double low, double high, double l0);

/// The {arch}.KEY metadata of a GGUF file, chained: g.u32("block_count", 2).f32("rope.freq_base", 1e4).
template <class Self>
struct GgufKeys {
  gguf_context* g = gguf_init_empty();
  std::string arch;
  explicit GgufKeys(const std::string& a) : arch(a) { gguf_set_val_str(g, "general.architecture", a.c_str()); }
  Self& self() { return static_cast<Self&>(*this); }
  Self& u32(const std::string& k, std::uint32_t v) { return gguf_set_val_u32(g, (arch + "." + k).c_str(), v), self(); }
  Self& f32(const std::string& k, float v) { return gguf_set_val_f32(g, (arch + "." + k).c_str(), v), self(); }
  Self& boolean(const std::string& k, bool v) { return gguf_set_val_bool(g, (arch + "." + k).c_str(), v), self(); }
  Self& str(const std::string& k, const std::string& v) {
    return gguf_set_val_str(g, (arch + "." + k).c_str(), v.c_str()), self();
  }
  Self& i32s(const std::string& k, const std::vector<std::int32_t>& v) {
    gguf_set_arr_data(g, (arch + "." + k).c_str(), GGUF_TYPE_INT32, v.data(), v.size());
    return self();
  }
  /// An array of bools, one per layer (convert_hf_to_gguf.py's sliding_window_pattern).
  Self& bools(const std::string& k, const std::vector<bool>& v) {
    std::vector<std::int8_t> b(v.begin(), v.end());
    gguf_set_arr_data(g, (arch + "." + k).c_str(), GGUF_TYPE_BOOL, b.data(), b.size());
    return self();
  }
};

}  // namespace rope_conformance
