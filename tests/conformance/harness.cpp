#include "harness.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>

#include "ggml-backend.h"

namespace rope_conformance {

void write_npy(const std::string& path, const char* descr, const void* data, std::size_t bytes,
               const std::vector<std::int64_t>& shape) {
  std::string dims;
  for (std::size_t i = 0; i < shape.size(); ++i)
    dims += std::to_string(shape[i]) + (shape.size() == 1 || i + 1 < shape.size() ? ", " : "");
  std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::ofstream f(path, std::ios::binary);
  f.write("\x93NUMPY\x01\x00", 8);
  const auto n = static_cast<std::uint16_t>(header.size());
  f.put(static_cast<char>(n & 0xff)).put(static_cast<char>(n >> 8));
  f.write(header.data(), static_cast<std::streamsize>(header.size()));
  f.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
}

bool load_cpu_backend(const std::string& libdir, const std::string& variant) {
  if (!variant.empty()) {
    if (ggml_backend_load(variant.c_str())) return true;
    std::fprintf(stderr, "cannot load the CPU variant %s\n", variant.c_str());
    return false;
  }
  ggml_backend_load_all_from_path(libdir.c_str());
  if (ggml_backend_reg_count() > 0) return true;
  std::fprintf(stderr, "no CPU backend in %s\n", libdir.c_str());
  return false;
}

std::vector<float> llama3_factors(int dim, double base, double factor, double low, double high, double l0) {
  std::vector<float> out;
  for (int i = 0; i < dim; i += 2) {
    const double wavelen = 2 * M_PI * std::pow(base, static_cast<double>(i) / dim);
    if (wavelen < l0 / high)
      out.push_back(1.0f);
    else if (wavelen > l0 / low)
      out.push_back(static_cast<float>(factor));
    else {
      const double smooth = (l0 / wavelen - low) / (high - low);
      out.push_back(static_cast<float>(1 / ((1 - smooth) / factor + smooth)));
    }
  }
  return out;
}

}  // namespace rope_conformance
